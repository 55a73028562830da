import type { ProviderCatalogue } from './types.js';

const THINKING =
  'https://docs.bigmodel.cn/cn/guide/capabilities/thinking-mode (read 2026-11-26): thinking on by default on GLM-5.2, 5.1, 5 and 4.7; hybrid (on when needed) on 4.6';
const EFFORT =
  'https://docs.bigmodel.cn/cn/guide/capabilities/thinking (read 2026-11-28): reasoning_effort on GLM-5.2 and later, max (default), xhigh, high, medium, low, minimal, none';
const ENUM = 'docs.bigmodel.cn chat API model enum (docs/upstreams.md §3.1)';
const OLDER = 'docs/upstreams.md §3.1 (older names still served [obs]); windows from the 2025 model pages';
// The vendor's own GLM-5.3 pages are not in the search store: their figures as OpenRouter's and Vercel's model pages quote them.
const GLM53 =
  'https://docs.z.ai/guides/llm/glm-5.3 as quoted by OpenRouter and Vercel (read 2026-11-28) [third party]: released 2026-08-18, 1M context, reasoning always on';
const GLM53_FLASH =
  'https://docs.z.ai/guides/vlm/glm-5.3-flash as quoted by OpenRouter and Vercel (read 2026-11-28) [third party]: released 2026-08-26, images and video, 1M context, 128K output';
const GLM52 =
  'shared/providers-2026.md, GLM-5.2 (released 2026-06-16): 1,048,576 context, 128K output (read 2026-11-28)';

/** (P) Zhipu BigModel GLM: the glm-5.x line reasons unless told not to (5.3 always); glm-4.x is still served. */
export const GLM_CATALOGUE: ProviderCatalogue = {
  models: [
    // A switch to off is "accepted and ignored" [third party, live probe 2026-10-19]: ALWAYS, so the gateway never sends one.
    {
      id: 'glm-5.3',
      contextWindow: 1_048_576,
      reasoning: 'always',
      effort: true,
      vision: false,
      tools: true,
      json: true,
      source: `${GLM53}; ${EFFORT}`,
    },
    {
      id: 'glm-5.3-flash',
      contextWindow: 1_048_576,
      maxOutputTokens: 131_072,
      reasoning: 'optional-on',
      effort: true,
      vision: true,
      tools: true,
      json: true,
      source: `${GLM53_FLASH}; ${THINKING}; ${EFFORT}`,
    },
    {
      id: 'glm-5.2',
      contextWindow: 1_048_576,
      maxOutputTokens: 131_072,
      reasoning: 'optional-on',
      effort: true,
      vision: false,
      tools: true,
      json: true,
      toolStream: true,
      source: `${GLM52}; ${THINKING}; ${EFFORT}; ${ENUM}`,
    },
    {
      id: 'glm-5.1',
      reasoning: 'optional-on',
      vision: false,
      tools: true,
      json: true,
      toolStream: true,
      source: `${THINKING}; ${ENUM}`,
    },
    {
      id: 'glm-5',
      contextWindow: 200_000,
      maxOutputTokens: 131_072,
      reasoning: 'optional-on',
      vision: false,
      tools: true,
      json: true,
      toolStream: true,
      source: `${THINKING}; 200K context, 128K output (docs.z.ai GLM-5 overview)`,
    },
    {
      id: 'glm-4.7',
      contextWindow: 200_000,
      maxOutputTokens: 131_072,
      reasoning: 'optional-on',
      vision: false,
      tools: true,
      json: true,
      toolStream: true,
      source: THINKING,
    },
    {
      id: 'glm-4.6',
      contextWindow: 200_000,
      maxOutputTokens: 131_072,
      reasoning: 'optional-on',
      vision: false,
      tools: true,
      json: true,
      source: THINKING,
    },
    {
      id: 'glm-4.5-air',
      contextWindow: 128_000,
      maxOutputTokens: 98_304,
      reasoning: 'optional-on',
      vision: false,
      tools: true,
      json: true,
      source: `${THINKING} (hybrid since GLM-4.5)`,
    },
    {
      id: 'glm-4-flash',
      contextWindow: 128_000,
      maxOutputTokens: 4_095,
      reasoning: 'none',
      vision: false,
      tools: true,
      json: true,
      source: OLDER,
    },
    {
      id: 'glm-4-plus',
      contextWindow: 128_000,
      maxOutputTokens: 4_095,
      reasoning: 'none',
      vision: false,
      tools: true,
      json: true,
      source: OLDER,
    },
    {
      id: 'glm-4v-plus',
      contextWindow: 8_000,
      maxOutputTokens: 1_024,
      reasoning: 'none',
      vision: true,
      tools: false,
      json: false,
      source: OLDER,
    },
  ],
  retired: [],
};
