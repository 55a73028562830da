import { ErrorCode } from '../../errors/codes.js';
import type { ChatProviderSpec } from './provider.js';

const BY_TYPE: Readonly<Record<string, ErrorCode>> = {
  content_filter: ErrorCode.BadUserInput,
  invalid_request_error: ErrorCode.BadUserInput,
  resource_not_found_error: ErrorCode.BadUserInput,
  invalid_authentication_error: ErrorCode.UpstreamError,
  incorrect_api_key_error: ErrorCode.UpstreamError,
  permission_denied_error: ErrorCode.UpstreamError,
  exceeded_current_quota_error: ErrorCode.UpstreamQuotaExhausted,
  rate_limit_reached_error: ErrorCode.UpstreamRateLimited,
  engine_overloaded_error: ErrorCode.UpstreamRateLimited,
  server_error: ErrorCode.UpstreamError,
  unexpected_output: ErrorCode.UpstreamError,
};

/** (S) Moonshot AI (Kimi): usage arrives inside the last choice of a stream, without asking. */
export const moonshot: ChatProviderSpec = {
  id: 'moonshot',
  variant: 'S',
  models: [
    { id: 'moonshot-v1-8k', contextWindow: 8_192, maxOutputTokens: 8_192 },
    { id: 'moonshot-v1-32k', contextWindow: 32_768, maxOutputTokens: 32_768 },
    { id: 'moonshot-v1-128k', contextWindow: 131_072, maxOutputTokens: 131_072 },
    { id: 'kimi-latest', contextWindow: 131_072, maxOutputTokens: 131_072, vision: true },
    { id: 'moonshot-v1-8k-vision-preview', contextWindow: 8_192, maxOutputTokens: 8_192, vision: true },
  ],
  temperature: { min: 0, max: 1 },
  toolChoices: ['none', 'auto', 'named'],
  streamUsageOption: false,
  // The type is Moonshot's only code: keep it as the upstream code.
  classifyError: (_status, error) => (error.type ? BY_TYPE[error.type] : undefined),
};
