import type { ProviderCatalogue } from './types.js';

const PRICING =
  'https://api-docs.deepseek.com/zh-cn/quick_start/pricing (read 2026-11-26): 1M context, output up to 384K, thinking on by default, JSON output and tool calls; image input on deepseek-flash only';

/** (R) DeepSeek, as its model and pricing page lists it; the names before V4 were retired on 2026-07-24. */
export const DEEPSEEK_CATALOGUE: ProviderCatalogue = {
  models: [
    // "Use the name deepseek-flash. The old names deepseek-v4-flash … are still accepted and served by DeepSeek-V4.1-Flash";
    // deepseek-v4-flash-vision-exp is the legacy alias shared/providers-2026.md lists as still served (read 2026-11-28).
    {
      id: 'deepseek-flash',
      aliases: ['deepseek-v4-flash', 'deepseek-v4-flash-vision-exp'],
      contextWindow: 1_048_576,
      maxOutputTokens: 393_216,
      reasoning: 'optional-on',
      effort: true,
      vision: true,
      tools: true,
      json: true,
      source: PRICING,
    },
    {
      id: 'deepseek-v4-pro',
      contextWindow: 1_048_576,
      maxOutputTokens: 393_216,
      reasoning: 'optional-on',
      effort: true,
      vision: false,
      tools: true,
      json: true,
      source: PRICING,
    },
  ],
  retired: [
    // "deepseek-chat and deepseek-reasoner … deprecated on 2026/07/24 15:59 UTC … the non-thinking mode and thinking mode of deepseek-v4-flash".
    {
      id: 'deepseek-chat',
      successor: 'deepseek-flash',
      since: '2026-07-24',
      note: 'with reasoning: {enabled: false} for the same behaviour',
      source: 'https://api-docs.deepseek.com/ (read 2026-11-26)',
    },
    {
      id: 'deepseek-reasoner',
      successor: 'deepseek-flash',
      since: '2026-07-24',
      note: 'reasoning is on by default there',
      source: 'https://api-docs.deepseek.com/ (read 2026-11-26)',
    },
    {
      id: 'deepseek-coder',
      successor: 'deepseek-flash',
      since: '2026-07-24',
      source: 'https://api-docs.deepseek.com/zh-cn/quick_start/pricing (read 2026-11-26): no longer listed',
    },
  ],
};
