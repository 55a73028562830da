import { ErrorCode } from '../../errors.js';
import type { ChatModelSpec, ChatProviderSpec } from './provider.js';

/** The sandbox account's inference endpoints, under the friendly names a newcomer would use. */
export const SANDBOX_ARK_ENDPOINTS: Readonly<Record<string, string>> = {
  'doubao-pro': 'ep-20250101-doubao-pro',
  'doubao-lite': 'ep-20250101-doubao-lite',
  'doubao-vision': 'ep-20250101-doubao-vision',
};

const RATE_LIMITED = /^(RateLimitExceeded|Model(Account)?[A-Za-z]*RateLimitExceeded|APIAccount[A-Za-z]*RateLimitExceeded|AccountRateLimitExceeded|InflightBatchsizeExceeded|RequestBurstTooFast|ServerOverloaded)/;
const QUOTA = /^(QuotaExceeded|SetLimitExceeded|AccountQuotaExceeded|AccountOverdueError|OperationDenied\.ServiceOverdue)/;
const CALLER = /^(MissingParameter|InvalidParameter|InvalidArgumentError|InvalidImageURL|OutofContextError|InvalidEndpointOrModel|ModelNotOpen|.*SensitiveContentDetected)/;

/**
 * (Q) Volcengine Ark (Doubao). Calls name an inference endpoint; `ARK_ENDPOINTS` gives them model names. Doubao
 * endpoints' limits depend on the model behind them, so the table guesses from the name (vision models say so).
 */
export function arkProvider(endpoints: Readonly<Record<string, string>>): ChatProviderSpec {
  const models: ChatModelSpec[] = Object.entries(endpoints).map(([id, upstreamModel]) => ({
    id,
    upstreamModel,
    vision: /vision/i.test(id),
    contextWindow: 32_768,
    maxOutputTokens: 4_096,
  }));
  return {
    id: 'ark',
    variant: 'Q',
    models,
    // A raw endpoint id (`ep-…`) or a dated model id (`doubao-seed-1-6-251015`) goes through as it is.
    acceptsRawModel: (model) => /^ep-[A-Za-z0-9-]+$/.test(model) || /^doubao-[a-z0-9-]+-\d{6}$/.test(model),
    temperature: { min: 0, max: 2 },
    toolChoices: ['none', 'auto', 'named'],
    streamUsageOption: true,
    finishReasons: { function_call: 'TOOL_CALLS' },
    classifyError(_status, error) {
      const code = error.code ?? '';
      if (code === 'AuthenticationError') return ErrorCode.UpstreamError;
      if (RATE_LIMITED.test(code)) return ErrorCode.UpstreamRateLimited;
      if (QUOTA.test(code)) return ErrorCode.UpstreamQuotaExhausted;
      if (CALLER.test(code)) return ErrorCode.BadUserInput;
      return undefined;
    },
    requestIdFrom: (error) => /Request id:\s*([0-9a-z]+)/i.exec(error.message ?? '')?.[1],
  };
}
