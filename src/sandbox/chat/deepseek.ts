import { randomUUID } from 'node:crypto';
import { SANDBOX_MODELS } from './models.js';
import type { ChatProvider, ErrorReply } from './provider.js';
import { describe, type Problem } from './chatRequest.js';

const deepseekError = (
  status: number,
  message: string,
  type: string,
  code: string | null = 'invalid_request_error',
): ErrorReply => ({
  status,
  body: { error: { message, type, param: null, code } },
});

/**
 * (R) DeepSeek: OpenAI-compatible, plus keep-alive lines and comments while a busy server works. Thinking is on by
 * default (deepseek-flash, deepseek-v4-pro); its limit is concurrency, not requests per minute.
 */
export const deepseek: ChatProvider = {
  name: 'deepseek',
  models: SANDBOX_MODELS.deepseek,
  // DeepSeek has no `n`: it is ignored.
  limits: { temperatureMax: 2 },
  validate(req) {
    // rate_limit: "user_id … a string matching [a-zA-Z0-9\-_]+, at most 512 long" (api-docs.deepseek.com, read 2026-11-28).
    const user = req.raw.user_id;
    if (user !== undefined && (typeof user !== 'string' || user.length > 512 || !/^[A-Za-z0-9_-]+$/.test(user))) {
      return {
        kind: 'invalid',
        param: 'user_id',
        detail: 'user_id must match [a-zA-Z0-9\\-_]+ and be at most 512 characters',
      };
    }
    return undefined;
  },
  reject(problem: Problem): ErrorReply {
    switch (problem.kind) {
      case 'path':
        return deepseekError(404, `Not Found: ${problem.method} ${problem.path}`, 'invalid_request_error');
      case 'auth':
        return deepseekError(
          401,
          `Authentication Fails, Your api key: ****${(problem.key ?? '').slice(-4)} is invalid`,
          'authentication_error',
        );
      case 'rate':
      case 'concurrency':
        return deepseekError(429, 'Rate Limit Reached', 'rate_limit_error', 'rate_limit_exceeded');
      case 'reasoning-missing':
        return deepseekError(
          400,
          'The `reasoning_content` in the thinking mode must be passed back to the API.',
          'invalid_request_error',
        );
      case 'forced-tool-choice':
        return deepseekError(400, 'Thinking mode does not support this tool_choice', 'invalid_request_error');
      case 'json-word':
        return deepseekError(
          400,
          "Prompt must contain the word 'json' in some form to use 'response_format' of type 'json_object'.",
          'invalid_request_error',
        );
      case 'range':
        return deepseekError(422, `Invalid Parameters: ${problem.detail}`, 'invalid_request_error');
      case 'model':
        return deepseekError(400, 'Model Not Exist', 'invalid_request_error');
      case 'vision':
        // DeepSeek's chat models take text parts only; the body fails to deserialize.
        return deepseekError(
          400,
          `Failed to deserialize the JSON body into the target type: ${problem.param}: unknown variant \`image_url\`, expected \`text\``,
          'invalid_request_error',
        );
      case 'context':
        return deepseekError(
          400,
          `This model's maximum context length is ${problem.limit} tokens. However, you requested ${problem.tokens} tokens (${problem.tokens} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`,
          'invalid_request_error',
        );
      case 'inference':
        return deepseekError(500, 'Server Error', 'server_error', null);
      default:
        return deepseekError(400, `Invalid Format: ${describe(problem)}`, 'invalid_request_error');
    }
  },
  faultReply(status) {
    switch (status) {
      case 400:
        return deepseekError(400, 'Invalid Format', 'invalid_request_error');
      case 401:
        return this.reject({ kind: 'auth', key: 'sk-0000000000000000' }, '');
      case 402:
        return deepseekError(402, 'Insufficient Balance', 'unknown_error', null);
      case 422:
        return deepseekError(422, 'Invalid Parameters', 'invalid_request_error');
      case 429:
        return this.reject({ kind: 'rate', limit: 0, retryAfterSec: 1 }, '');
      case 503:
        return deepseekError(503, 'Server is busy, please try again later', 'server_error', null);
      default:
        return deepseekError(status, 'Server Error', 'server_error', null);
    }
  },
  finishReasons: {
    stop: 'stop',
    length: 'length',
    tool_calls: 'tool_calls',
    filtered: 'content_filter',
    system_error: 'insufficient_system_resource',
  },
  triggers: new Set(['filtered', 'system_error']),
  newId: () => randomUUID(),
  usage: (u) => ({
    prompt_tokens: u.prompt,
    completion_tokens: u.completion,
    total_tokens: u.prompt + u.completion,
    prompt_tokens_details: { cached_tokens: u.cached },
    ...(u.reasoning ? { completion_tokens_details: { reasoning_tokens: u.reasoning } } : {}),
    prompt_cache_hit_tokens: u.cached,
    prompt_cache_miss_tokens: u.prompt - u.cached,
  }),
  // thinking_mode: "minimal → low, low → low, medium → high, high → high, xhigh → high, max → max, ultra → max".
  efforts: { minimal: 'low', low: 'low', medium: 'high', high: 'high', xhigh: 'high', max: 'max', ultra: 'max' },
  strictThinking: true,
  jsonNeedsWord: true,
  // Not among its parameters (api-docs.deepseek.com chat completion reference): `max_tokens` alone caps the answer.
  ignoresMaxCompletionTokens: true,
  // kv_cache: the cache is stored in units of 64 tokens; shorter prefixes are not cached.
  cacheBlock: 64,
  shape: {
    object: true,
    systemFingerprint: 'fp_3a5770e1b4_prod0225',
    logprobsNull: true,
    modelsCreated: false,
    roleInEveryDelta: false,
    omitNullFinishReason: false,
    usagePlacement(req) {
      const include = (req.raw.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      return include ? { extraChunk: true, nullElsewhere: true } : {};
    },
    keepAliveEvery: 10,
    keepAliveLines: true,
  },
};
