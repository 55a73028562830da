import { ErrorCode } from '../../errors/codes.js';
import { DEEPSEEK_CATALOGUE } from './models/deepseek.js';
import type { ChatProviderSpec } from './provider.js';
import { thinkingSwitch } from './reasoning.js';

/**
 * (R) DeepSeek: OpenAI-compatible; busy servers send keep-alive blank lines and SSE comments, which parsers skip.
 * Thinking is on by default; while it is, a forced tool choice is refused and every earlier assistant turn with tool
 * calls must carry its `reasoning_content` (api-docs.deepseek.com/guides/thinking_mode, read 2026-11-26).
 */
export const deepseek: ChatProviderSpec = {
  id: 'deepseek',
  variant: 'R',
  catalogue: DEEPSEEK_CATALOGUE,
  // The documented efforts are low, high and max; minimal and medium are "mapped" to low and high (thinking_mode).
  reasoning: {
    toggle: thinkingSwitch,
    efforts: { MINIMAL: 'low', LOW: 'low', MEDIUM: 'high', HIGH: 'high', MAX: 'max' },
  },
  refusesForcedToolChoiceWhileReasoning: true,
  needsReasoningWithToolCalls: true,
  jsonNeedsWord: true,
  // rate_limit: "user_id … a string matching [a-zA-Z0-9\-_]+, at most 512 long".
  userLength: { min: 1, max: 512 },
  userPattern: { test: (user) => /^[A-Za-z0-9_-]+$/.test(user), hint: 'letters, digits, _ and - only' },
  adjustBody(body) {
    if (body.user !== undefined) {
      body.user_id = body.user;
      delete body.user;
    }
  },
  temperature: { min: 0, max: 2 },
  toolChoices: ['none', 'auto', 'required', 'named'],
  streamUsageOption: true,
  finishReasons: { insufficient_system_resource: 'UPSTREAM_ERROR' },
  classifyError(status, error) {
    if (status === 402) return ErrorCode.UpstreamQuotaExhausted; // Insufficient Balance
    if (error.type === 'authentication_error') return ErrorCode.UpstreamError;
    if (error.type === 'rate_limit_error') return ErrorCode.UpstreamRateLimited;
    return undefined;
  },
};
