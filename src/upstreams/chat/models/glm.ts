import type { ProviderCatalogue } from './types.js';

const THINKING = 'https://docs.bigmodel.cn/cn/guide/capabilities/thinking-mode (read 2026-11-26): thinking on by default on GLM-5.2, 5.1, 5 and 4.7; hybrid (on when needed) on 4.6';
const ENUM = 'docs.bigmodel.cn chat API model enum (docs/upstreams.md §3.1)';
const OLDER = 'docs/upstreams.md §3.1 (older names still served [obs]); windows from the 2025 model pages';

/** (P) Zhipu BigModel GLM: the glm-5.x line reasons unless told not to; glm-4.x is still served. */
export const GLM_CATALOGUE: ProviderCatalogue = {
  models: [
    // reasoning_effort from GLM-5.2 on (docs/upstreams.md §3.1); its windows are not published on the pages read.
    { id: 'glm-5.2', reasoning: 'optional-on', effort: true, vision: false, tools: true, json: true, toolStream: true, source: `${THINKING}; ${ENUM}` },
    { id: 'glm-5.1', reasoning: 'optional-on', vision: false, tools: true, json: true, toolStream: true, source: `${THINKING}; ${ENUM}` },
    { id: 'glm-5', contextWindow: 200_000, maxOutputTokens: 131_072, reasoning: 'optional-on', vision: false, tools: true, json: true, toolStream: true, source: `${THINKING}; 200K context, 128K output (docs.z.ai GLM-5 overview)` },
    { id: 'glm-4.7', contextWindow: 200_000, maxOutputTokens: 131_072, reasoning: 'optional-on', vision: false, tools: true, json: true, toolStream: true, source: THINKING },
    { id: 'glm-4.6', contextWindow: 200_000, maxOutputTokens: 131_072, reasoning: 'optional-on', vision: false, tools: true, json: true, source: THINKING },
    { id: 'glm-4.5-air', contextWindow: 128_000, maxOutputTokens: 98_304, reasoning: 'optional-on', vision: false, tools: true, json: true, source: `${THINKING} (hybrid since GLM-4.5)` },
    { id: 'glm-4-flash', contextWindow: 128_000, maxOutputTokens: 4_095, reasoning: 'none', vision: false, tools: true, json: true, source: OLDER },
    { id: 'glm-4-plus', contextWindow: 128_000, maxOutputTokens: 4_095, reasoning: 'none', vision: false, tools: true, json: true, source: OLDER },
    { id: 'glm-4v-plus', contextWindow: 8_000, maxOutputTokens: 1_024, reasoning: 'none', vision: true, tools: false, json: false, source: OLDER },
  ],
  retired: [],
};
