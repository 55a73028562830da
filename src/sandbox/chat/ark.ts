import { randomBytes } from 'node:crypto';
import { SANDBOX_MEDIA_MODELS, SANDBOX_MODELS } from './models.js';
import type { ChatProvider, ErrorReply } from './provider.js';
import { describe, type Problem } from './chatRequest.js';

/** Ark error types: the HTTP status family each code belongs to (docs/upstreams.md §3.2). */
enum ArkType {
  BadRequest = 'BadRequest',
  Unauthorized = 'Unauthorized',
  Forbidden = 'Forbidden',
  NotFound = 'NotFound',
  TooManyRequests = 'TooManyRequests',
  InternalServiceError = 'InternalServiceError',
}

const STATUS: Record<ArkType, number> = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  TooManyRequests: 429,
  InternalServiceError: 500,
};

/** Every Ark message ends with the request id, which is how its support finds the call. */
const arkError = (type: ArkType, code: string, message: string, requestId: string, param = ''): ErrorReply => ({
  status: STATUS[type],
  body: { error: { code, message: `${message} Request id: ${requestId}`, param, type } },
});

/** (Q) Volcengine Ark (Doubao): models are inference endpoint ids `ep-…` or dated model ids. */
export const ark: ChatProvider = {
  name: 'ark',
  models: SANDBOX_MODELS.ark,
  // Ark is the one of the four that documents `thinking: {type: "auto"}` (volcengine.com/docs/82379/1494384).
  limits: { temperatureMax: 2, maxChoices: 8, thinkingAuto: true },
  validate(req) {
    // "With thinking disabled only minimal is allowed" [third party: anyfast's and Comfy's BytePlus pages, read 2026-11-28].
    if (req.thinking === 'disabled' && req.effort !== undefined && req.effort !== 'minimal') {
      return {
        kind: 'invalid',
        param: 'reasoning_effort',
        detail: `reasoning_effort ${JSON.stringify(req.effort)} needs thinking enabled; with thinking.type disabled only "minimal" is allowed`,
      };
    }
    return undefined;
  },
  reject(problem: Problem, requestId: string): ErrorReply {
    switch (problem.kind) {
      case 'path':
        return arkError(
          ArkType.NotFound,
          'NotFound',
          `The requested resource ${problem.method} ${problem.path} was not found.`,
          requestId,
        );
      case 'auth':
        return {
          status: 401,
          body: {
            error: {
              code: 'AuthenticationError',
              message: `The API key or AK/SK in the request is missing or invalid. Request ID: ${requestId}`,
              param: '',
              type: ArkType.Unauthorized,
            },
          },
        };
      case 'rate':
        return arkError(
          ArkType.TooManyRequests,
          'RateLimitExceeded.EndpointRPMExceeded',
          `The request failed because the endpoint has exceeded its RPM limit (${problem.limit}). Please try again later.`,
          requestId,
        );
      case 'model':
        return arkError(
          ArkType.NotFound,
          'InvalidEndpointOrModel.NotFound',
          `The model or endpoint ${problem.model} does not exist or you do not have access to it.`,
          requestId,
        );
      case 'missing':
        return arkError(
          ArkType.BadRequest,
          'MissingParameter',
          'The request failed because it is missing one or multiple required parameters.',
          requestId,
          problem.param,
        );
      case 'invalid':
      case 'range':
      case 'vision':
        return arkError(
          ArkType.BadRequest,
          'InvalidParameter',
          `The parameter \`${problem.param}\` specified in the request is not valid: ${describe(problem)}.`,
          requestId,
          problem.param,
        );
      case 'format':
        return arkError(
          ArkType.BadRequest,
          'InvalidParameter',
          `The request body is not valid: ${problem.detail}.`,
          requestId,
        );
      case 'context':
        return arkError(
          ArkType.BadRequest,
          'OutofContextError',
          `The request exceeded the model's context window: ${problem.tokens} tokens for ${problem.limit}.`,
          requestId,
          'messages',
        );
      case 'inference':
        return arkError(
          ArkType.InternalServiceError,
          'InternalServiceError',
          'The service encountered an unexpected internal error.',
          requestId,
        );
      default:
        // Ark has none of DeepSeek's and Kimi's thinking rules; what else reaches here is a bad parameter.
        return arkError(
          ArkType.BadRequest,
          'InvalidParameter',
          `The request is not valid: ${describe(problem)}.`,
          requestId,
        );
    }
  },
  faultReply(status, requestId) {
    switch (status) {
      case 400:
        return arkError(
          ArkType.BadRequest,
          'InvalidParameter',
          'A parameter specified in the request is not valid.',
          requestId,
        );
      case 401:
        return this.reject({ kind: 'auth', key: undefined }, requestId);
      case 403:
        return arkError(
          ArkType.Forbidden,
          'AccessDenied',
          'The request failed because you do not have access to the requested resource.',
          requestId,
        );
      case 404:
        return this.reject({ kind: 'model', model: 'ep-unknown' }, requestId);
      case 429:
        return this.reject({ kind: 'rate', limit: 0, retryAfterSec: 1 }, requestId);
      default:
        return {
          ...arkError(
            ArkType.InternalServiceError,
            'InternalServiceError',
            'The service encountered an unexpected internal error.',
            requestId,
          ),
          status,
        };
    }
  },
  finishReasons: { stop: 'stop', length: 'length', tool_calls: 'tool_calls', filtered: 'content_filter' },
  triggers: new Set(['filtered']),
  newId: (nowMs) => `0217${nowMs}${randomBytes(12).toString('hex')}`,
  usage: (u) => ({
    completion_tokens: u.completion,
    prompt_tokens: u.prompt,
    total_tokens: u.prompt + u.completion,
    prompt_tokens_details: { cached_tokens: u.cached },
    completion_tokens_details: { reasoning_tokens: u.reasoning },
  }),
  // minimal | low | medium | high, no max [third party: anyfast's and Comfy's BytePlus pages, read 2026-11-28].
  // minimal turns thinking off (same source).
  efforts: { minimal: 'none', low: 'low', medium: 'medium', high: 'high' },
  jsonSchema: true,
  cacheBlock: 64,
  shape: {
    object: true,
    serviceTier: 'default',
    logprobsNull: true,
    roleInEveryDelta: false,
    omitNullFinishReason: false,
    usagePlacement(req) {
      const options = (req.raw.stream_options ?? {}) as { include_usage?: unknown; chunk_include_usage?: unknown };
      const extraChunk = options.include_usage === true;
      const everyChunk = options.chunk_include_usage === true;
      return { extraChunk, everyChunk, nullElsewhere: extraChunk && !everyChunk };
    },
  },
  media: {
    embeddingModels: SANDBOX_MEDIA_MODELS.ark.embeddings,
    imageModels: SANDBOX_MEDIA_MODELS.ark.images,
    base64: true,
    sensitive: (requestId) =>
      arkError(
        ArkType.BadRequest,
        'InputTextSensitiveContentDetected',
        'The request failed because the input text may contain sensitive information.',
        requestId,
        'prompt',
      ),
    imageBody: (made) => ({
      model: made.model,
      created: made.created,
      data: [{ ...(made.b64 ? { b64_json: made.b64 } : { url: made.url }), size: made.size }],
      usage: { generated_images: 1, output_tokens: made.tokens, total_tokens: made.tokens },
    }),
  },
};
