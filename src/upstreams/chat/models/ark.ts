import type { CatalogueModel, ProviderCatalogue } from './types.js';

const CHAT_API =
  "https://www.volcengine.com/docs/82379/1494384 as summarised in shared/providers-2026.md (the page itself is not in the search store; read 2026-11-28): thinking enabled/disabled/auto, reasoning_effort minimal | low | medium | high (no max) [third party: anyfast's and Comfy's BytePlus pages], max_completion_tokens, json_schema";
const SEED2 =
  'https://docs.byteplus.com/en/docs/modelark/1330310 (read 2026-11-28): Doubao Seed 2.0, 256K context, 128K output (chain of thought included, default 4K)';
// Worded without the emulator's own credential, so that no test mistakes the reference for a leaked key.
const SANDBOX = "the built-in emulator's account: its three inference endpoints, as its model table lists them";

const seed2 = (id: string): CatalogueModel => ({
  id,
  contextWindow: 256_000,
  maxOutputTokens: 131_072,
  reasoning: 'optional-on',
  effort: true,
  tools: true,
  json: true,
  source: `${SEED2}; ${CHAT_API}`,
});

/**
 * (Q) Volcengine Ark: a call names an inference endpoint (`ep-…`, given model names by ARK_ENDPOINTS) or a dated
 * Model ID. The catalogue knows the Model IDs, and the sandbox account's endpoints; other endpoints are described with
 * `ARK_MODELS`. Ark also hosts other vendors' models under dated ids (`deepseek-v3-2-251201`): callable as they are,
 * with no facts of the catalogue's (what the caller asks goes to Ark as asked).
 */
export const ARK_CATALOGUE: ProviderCatalogue = {
  models: [
    {
      id: 'doubao-seed-1-6-251015',
      contextWindow: 256_000,
      maxOutputTokens: 32_768,
      reasoning: 'optional-on',
      effort: true,
      vision: true,
      tools: true,
      json: true,
      source: CHAT_API,
    },
    { ...seed2('doubao-seed-2-0-lite-260428'), vision: true },
    // The Seed 2.0 ids the BytePlus page lists; whether each takes images is not stated there.
    seed2('doubao-seed-2-0-pro-260215'),
    seed2('doubao-seed-2-0-lite-260215'),
    seed2('doubao-seed-2-0-mini-260215'),
    seed2('doubao-seed-2-0-code-preview-260215'),
    {
      id: 'ep-20250101-doubao-pro',
      contextWindow: 32_768,
      maxOutputTokens: 16_384,
      reasoning: 'optional-on',
      effort: true,
      vision: false,
      tools: true,
      json: true,
      source: SANDBOX,
    },
    {
      id: 'ep-20250101-doubao-lite',
      contextWindow: 32_768,
      maxOutputTokens: 16_384,
      reasoning: 'none',
      vision: false,
      tools: true,
      json: true,
      source: SANDBOX,
    },
    {
      id: 'ep-20250101-doubao-vision',
      contextWindow: 32_768,
      maxOutputTokens: 16_384,
      reasoning: 'optional-off',
      effort: true,
      vision: true,
      tools: true,
      json: true,
      source: SANDBOX,
    },
  ],
  retired: [],
};
