import type { ProviderCatalogue } from './types.js';

const K26 = 'https://platform.kimi.com/docs/pricing/chat-k26 and /docs/api/models-overview (read 2026-11-26): 256K context, thinking on unless disabled, images, ToolCalls, JSON Mode; temperature and top_p cannot be modified';
const THIRD = 'shared/providers-2026.md [third party], promptfoo Moonshot provider page (read 2026-11-26)';
const V1 = 'platform.moonshot.cn model list (docs/upstreams.md §3.4); still listed by promptfoo (read 2026-11-26)';

/** (S) Moonshot / Kimi: the K2.6 line reasons unless told not to, K3 always; `kimi-latest` and the K2 previews are gone. */
export const MOONSHOT_CATALOGUE: ProviderCatalogue = {
  models: [
    { id: 'kimi-k2.6', contextWindow: 262_144, reasoning: 'optional-on', vision: true, tools: true, json: true, fixedSampling: true, source: K26 },
    { id: 'kimi-k2.5', contextWindow: 262_144, reasoning: 'optional-on', vision: true, tools: true, json: true, fixedSampling: true, source: `${K26} (the same rules for K2.5)` },
    { id: 'kimi-k2.7-code', contextWindow: 262_144, reasoning: 'optional-on', vision: false, tools: true, json: true, fixedSampling: true, source: THIRD },
    { id: 'kimi-k3', contextWindow: 1_048_576, reasoning: 'always', vision: true, tools: true, json: true, fixedSampling: true, source: `${THIRD}: 1M context, thinking always on` },
    { id: 'moonshot-v1-8k', contextWindow: 8_192, maxOutputTokens: 8_192, reasoning: 'none', vision: false, tools: true, json: true, source: V1 },
    { id: 'moonshot-v1-32k', contextWindow: 32_768, maxOutputTokens: 32_768, reasoning: 'none', vision: false, tools: true, json: true, source: V1 },
    { id: 'moonshot-v1-128k', contextWindow: 131_072, maxOutputTokens: 131_072, reasoning: 'none', vision: false, tools: true, json: true, source: V1 },
    { id: 'moonshot-v1-8k-vision-preview', contextWindow: 8_192, maxOutputTokens: 8_192, reasoning: 'none', vision: true, tools: true, json: true, source: V1 },
  ],
  retired: ['kimi-latest', 'kimi-k2-0711-preview', 'kimi-k2-0905-preview', 'kimi-k2-turbo-preview', 'kimi-k2-thinking', 'kimi-k2-thinking-turbo'].map((id) => ({
    id,
    successor: 'kimi-k2.6',
    since: '2026',
    source: 'promptfoo Moonshot provider page (read 2026-11-26) [third party]: "discontinued in 2026 — use kimi-k2.6 instead"',
  })),
};
