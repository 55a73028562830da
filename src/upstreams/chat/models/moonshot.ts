import type { CatalogueModel, ProviderCatalogue } from './types.js';

const K26 =
  'https://platform.kimi.com/docs/pricing/chat-k26 and /docs/api/models-overview (read 2026-11-26): 256K context, thinking on unless disabled, images, ToolCalls, JSON Mode; temperature and top_p cannot be modified';
// The vendor's thinking-effort guide and K3.1 Pro quickstart are not in the search store: as third parties cite them.
const K3 =
  'https://platform.kimi.ai/docs/guide/use-thinking-effort and the K3.1 Pro quickstart as cited by synaps-engine\'s Kimi catalogue, AgentScope and Agno (read 2026-11-28) [third party]: 1M context, thinking always on (`thinking: {type: "disabled"}` answered with a 400), top-level reasoning_effort low | high | max, default max';
const K27 =
  'shared/providers-2026.md (S), kimi-k2.7-code and -highspeed (read 2026-11-28) [third party]: thinking always on, `thinking: {type: "disabled"}` answered with an error; takes images';
const V1 = 'platform.moonshot.cn model list (docs/upstreams.md §3.4); still listed by promptfoo (read 2026-11-26)';
/** "The K2 series retires at the end of December 2026; accounts created since 2026-10-31 no longer get it" [third party, 2026-11]. */
const K2_RETIRES = { deprecatedOn: '2026-10-31', retiresOn: '2026-12-31', successor: 'kimi-k3' } as const;

const k3 = (id: string, vision?: boolean): CatalogueModel => ({
  id,
  contextWindow: 1_048_576,
  reasoning: 'always',
  effort: true,
  ...(vision === undefined ? {} : { vision }),
  tools: true,
  json: true,
  fixedSampling: true,
  source: K3,
});

/** (S) Moonshot / Kimi: the K2 line (retiring) reasons unless told not to, K2.7-Code and K3 always; `kimi-latest` and the K2 previews are gone. */
export const MOONSHOT_CATALOGUE: ProviderCatalogue = {
  models: [
    k3('kimi-k3', true),
    // Its images are not stated on the pages read: unknown, so they go to Kimi as sent.
    k3('kimi-k3.1-pro'),
    k3('kimi-k3.1-pro-highspeed'),
    {
      id: 'kimi-k2.6',
      contextWindow: 262_144,
      reasoning: 'optional-on',
      vision: true,
      tools: true,
      json: true,
      fixedSampling: true,
      ...K2_RETIRES,
      source: K26,
    },
    {
      id: 'kimi-k2.5',
      contextWindow: 262_144,
      reasoning: 'optional-on',
      vision: true,
      tools: true,
      json: true,
      fixedSampling: true,
      ...K2_RETIRES,
      source: `${K26} (the same rules for K2.5)`,
    },
    {
      id: 'kimi-k2.7-code',
      contextWindow: 262_144,
      reasoning: 'always',
      vision: true,
      tools: true,
      json: true,
      fixedSampling: true,
      ...K2_RETIRES,
      source: K27,
    },
    {
      id: 'kimi-k2.7-code-highspeed',
      contextWindow: 262_144,
      reasoning: 'always',
      vision: true,
      tools: true,
      json: true,
      fixedSampling: true,
      ...K2_RETIRES,
      source: K27,
    },
    {
      id: 'moonshot-v1-8k',
      contextWindow: 8_192,
      maxOutputTokens: 8_192,
      reasoning: 'none',
      vision: false,
      tools: true,
      json: true,
      source: V1,
    },
    {
      id: 'moonshot-v1-32k',
      contextWindow: 32_768,
      maxOutputTokens: 32_768,
      reasoning: 'none',
      vision: false,
      tools: true,
      json: true,
      source: V1,
    },
    {
      id: 'moonshot-v1-128k',
      contextWindow: 131_072,
      maxOutputTokens: 131_072,
      reasoning: 'none',
      vision: false,
      tools: true,
      json: true,
      source: V1,
    },
    {
      id: 'moonshot-v1-8k-vision-preview',
      contextWindow: 8_192,
      maxOutputTokens: 8_192,
      reasoning: 'none',
      vision: true,
      tools: true,
      json: true,
      source: V1,
    },
  ],
  retired: [
    'kimi-latest',
    'kimi-k2-0711-preview',
    'kimi-k2-0905-preview',
    'kimi-k2-turbo-preview',
    'kimi-k2-thinking',
    'kimi-k2-thinking-turbo',
  ].map((id) => ({
    id,
    // Not kimi-k2.6: the K2 series itself retires at the end of 2026.
    successor: 'kimi-k3',
    since: '2026',
    note: 'which always reasons (leave reasoning.enabled out, and use toolChoice AUTO)',
    source:
      'promptfoo Moonshot provider page (read 2026-11-26) [third party]: "discontinued in 2026"; successor per shared/providers-2026.md (read 2026-11-28): the K2 series retires at the end of December 2026',
  })),
};
