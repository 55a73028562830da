import type { ProviderCatalogue } from './types.js';

const CHAT_API = 'https://www.volcengine.com/docs/82379/1494384 as summarised in shared/providers-2026.md (the page itself is not in the search store; not re-read 2026-11-26): thinking enabled/disabled/auto, reasoning_effort, max_completion_tokens, json_schema';
// Worded without the emulator's own credential, so that no test mistakes the reference for a leaked key.
const SANDBOX = "the built-in emulator's account: its three inference endpoints, as its model table lists them";

/**
 * (Q) Volcengine Ark: a call names an inference endpoint (`ep-…`, given model names by ARK_ENDPOINTS) or a dated
 * Model ID. The catalogue knows the Model IDs, and the sandbox account's endpoints; other endpoints are described with
 * `ARK_MODELS`.
 */
export const ARK_CATALOGUE: ProviderCatalogue = {
  models: [
    { id: 'doubao-seed-1-6-251015', contextWindow: 256_000, maxOutputTokens: 32_768, reasoning: 'optional-on', effort: true, vision: true, tools: true, json: true, source: CHAT_API },
    { id: 'doubao-seed-2-0-lite-260428', contextWindow: 256_000, maxOutputTokens: 32_768, reasoning: 'optional-on', effort: true, vision: true, tools: true, json: true, source: CHAT_API },
    { id: 'ep-20250101-doubao-pro', contextWindow: 32_768, maxOutputTokens: 16_384, reasoning: 'optional-on', effort: true, vision: false, tools: true, json: true, source: SANDBOX },
    { id: 'ep-20250101-doubao-lite', contextWindow: 32_768, maxOutputTokens: 16_384, reasoning: 'none', vision: false, tools: true, json: true, source: SANDBOX },
    { id: 'ep-20250101-doubao-vision', contextWindow: 32_768, maxOutputTokens: 16_384, reasoning: 'optional-off', effort: true, vision: true, tools: true, json: true, source: SANDBOX },
  ],
  retired: [],
};
