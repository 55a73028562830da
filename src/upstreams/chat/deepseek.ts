import { ErrorCode } from '../../errors/codes.js';
import type { ChatProviderSpec } from './provider.js';

/** (R) DeepSeek: OpenAI-compatible; busy servers send keep-alive blank lines and SSE comments, which parsers skip. */
export const deepseek: ChatProviderSpec = {
  id: 'deepseek',
  variant: 'R',
  models: [
    { id: 'deepseek-chat', contextWindow: 65_536, maxOutputTokens: 8_192 },
    { id: 'deepseek-coder', contextWindow: 32_768, maxOutputTokens: 4_096 },
    { id: 'deepseek-reasoner', contextWindow: 65_536, maxOutputTokens: 65_536 },
  ],
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
