import { ErrorCode } from '../../errors/codes.js';
import { ARK_CATALOGUE } from './models/ark.js';
import type { ChatProviderSpec, EmbeddingModelSpec, ImageModelSpec } from './provider.js';
import { thinkingSwitch } from './reasoning.js';

/** The sandbox account's inference endpoints, under the friendly names a newcomer would use. */
export const SANDBOX_ARK_ENDPOINTS: Readonly<Record<string, string>> = {
  'doubao-pro': 'ep-20250101-doubao-pro',
  'doubao-lite': 'ep-20250101-doubao-lite',
  'doubao-vision': 'ep-20250101-doubao-vision',
  'doubao-embedding': 'ep-20250101-doubao-embedding',
  'doubao-seedream': 'ep-20250101-doubao-seedream',
};

const RAW_ENDPOINT = /^ep-[A-Za-z0-9-]+$/;
/** A Model ID: lower-case name, then the six-digit date of its version (docs.byteplus.com/en/docs/modelark/1330310). */
const DATED_MODEL_ID = /^[a-z][a-z0-9.-]*-\d{6}$/;

/** Endpoints whose name says what they serve; everything else is a chat endpoint. */
const EMBEDDING_NAME = /embedding/i;
const IMAGE_NAME = /seedream|seededit/i;
export const isChatEndpointName = (name: string) => !EMBEDDING_NAME.test(name) && !IMAGE_NAME.test(name);

/** Seedream: a preset (1K, 2K, 4K) or WIDTHxHEIGHT. */
const SEEDREAM_SIZE = {
  test: (size: string) => /^[1-4]K$/.test(size) || /^\d{3,4}x\d{3,4}$/.test(size),
  hint: '1K, 2K, 4K or WIDTHxHEIGHT, e.g. 2048x2048',
};
// "Up to 256 texts per call" [?]: Ark documents the per-text token limit, not the count; 256 is what its SDK sends.
const arkEmbedding = (id: string, upstreamModel: string): EmbeddingModelSpec => ({ id, upstreamModel, maxInputs: 256 });
const arkImage = (id: string, upstreamModel: string): ImageModelSpec => ({
  id,
  upstreamModel,
  size: SEEDREAM_SIZE,
  formats: ['url', 'b64_json'],
});

const RATE_LIMITED =
  /^(RateLimitExceeded|Model(Account)?[A-Za-z]*RateLimitExceeded|APIAccount[A-Za-z]*RateLimitExceeded|AccountRateLimitExceeded|InflightBatchsizeExceeded|RequestBurstTooFast|ServerOverloaded)/;
const QUOTA =
  /^(QuotaExceeded|SetLimitExceeded|AccountQuotaExceeded|AccountOverdueError|OperationDenied\.ServiceOverdue)/;
const CALLER =
  /^(MissingParameter|InvalidParameter|InvalidArgumentError|InvalidImageURL|OutofContextError|InvalidEndpointOrModel|ModelNotOpen|.*SensitiveContentDetected)/;

/**
 * (Q) Volcengine Ark (Doubao). Calls name an inference endpoint; `ARK_ENDPOINTS` gives them model names. What an
 * endpoint can do depends on the model behind it: the catalogue knows the sandbox account's, `ARK_MODELS` the rest.
 */
export function arkProvider(endpoints: Readonly<Record<string, string>>): ChatProviderSpec {
  const all = Object.entries(endpoints);
  return {
    id: 'ark',
    variant: 'Q',
    catalogue: ARK_CATALOGUE,
    // thinking enabled | disabled (| auto); reasoning_effort minimal | low | medium | high, no max [third party, read
    // 2026-11-28]; max_completion_tokens covers the reasoning.
    reasoning: { toggle: thinkingSwitch, efforts: { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high' } },
    maxTokensField: 'max_completion_tokens',
    jsonSchema: true,
    // A raw endpoint id (`ep-…`) or a dated model id goes through as it is: Doubao's (`doubao-seed-1-6-251015`),
    // BytePlus' (`seed-2-0-lite-260228`) and other vendors' hosted on Ark (`deepseek-v3-2-251201`, `glm-4-7-251222`).
    acceptsRawModel: (model) => RAW_ENDPOINT.test(model) || DATED_MODEL_ID.test(model),
    temperature: { min: 0, max: 2 },
    toolChoices: ['none', 'auto', 'required', 'named'],
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
    embeddings: {
      models: all.filter(([id]) => EMBEDDING_NAME.test(id)).map(([id, ep]) => arkEmbedding(id, ep)),
      raw: (model) =>
        RAW_ENDPOINT.test(model) || /^doubao-embedding[a-z0-9-]*-\d{6}$/.test(model)
          ? arkEmbedding(model, model)
          : undefined,
    },
    images: {
      models: all.filter(([id]) => IMAGE_NAME.test(id)).map(([id, ep]) => arkImage(id, ep)),
      raw: (model) =>
        RAW_ENDPOINT.test(model) || /^doubao-(seedream|seededit)[a-z0-9-]*-\d{6}$/.test(model)
          ? arkImage(model, model)
          : undefined,
    },
  };
}
