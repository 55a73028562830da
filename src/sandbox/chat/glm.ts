import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { SANDBOX_MEDIA_MODELS, SANDBOX_MODELS } from './models.js';
import type { ChatProvider, ErrorReply } from './provider.js';
import { describe, type Problem } from './chatRequest.js';

/** Zhipu BigModel business codes (docs/upstreams.md §3.1); the HTTP status goes with the code. */
enum GlmCode {
  NoAuthHeader = '1001',
  BadToken = '1002',
  BadParameter = '1210',
  UnknownModel = '1211',
  BadMessages = '1214',
  NetworkError = '1234',
  PromptTooLong = '1261',
  Unsafe = '1301',
  RateLimited = '1302',
}

const glmError = (status: number, code: string, message: string): ErrorReply => ({
  status,
  body: { error: { code, message } },
});

/** (P) Zhipu AI / BigModel GLM. */
export const glm: ChatProvider = {
  name: 'glm',
  models: SANDBOX_MODELS.glm,
  // GLM has no `n`: it is ignored, as fields outside its schema are.
  limits: { temperatureMax: 1 },
  validate(req) {
    if (req.raw.stream_options !== undefined)
      return { kind: 'invalid', param: 'stream_options', detail: 'stream_options is not supported' };
    if (req.raw.tool_choice !== undefined && req.raw.tool_choice !== 'auto')
      return { kind: 'invalid', param: 'tool_choice', detail: 'tool_choice only supports auto' };
    // One stop word; user_id 6–128 characters (docs.bigmodel.cn chat API, read 2026-11-28).
    if (req.stop.length > 1) return { kind: 'invalid', param: 'stop', detail: 'stop supports only one stop word' };
    const user = req.raw.user_id;
    if (user !== undefined && (typeof user !== 'string' || user.length < 6 || user.length > 128))
      return { kind: 'invalid', param: 'user_id', detail: 'user_id must be 6 to 128 characters' };
    if (req.messages.every((m) => m.role === 'system' || m.role === 'assistant')) {
      return {
        kind: 'invalid',
        param: 'messages',
        detail: 'messages must not contain only system or assistant messages',
      };
    }
    return undefined;
  },
  reject(problem: Problem, requestId: string): ErrorReply {
    switch (problem.kind) {
      case 'path':
        // BigModel's front answers unknown paths with a Spring-style body, not its business envelope.
        return {
          status: 404,
          body: {
            timestamp: new Date().toISOString(),
            status: 404,
            error: 'Not Found',
            path: `/api/paas/v4${problem.path}`,
          },
        };
      case 'auth':
        return problem.key === undefined
          ? glmError(401, GlmCode.NoAuthHeader, 'Header中未收到Authentication参数，无法进行身份验证')
          : glmError(401, GlmCode.BadToken, 'Authorization Token非法，请确认Authorization Token正确传递。');
      case 'rate':
        return glmError(429, GlmCode.RateLimited, 'Rate limit reached for requests');
      case 'model':
        return glmError(400, GlmCode.UnknownModel, '模型不存在，请检查模型代码。');
      case 'context':
        return glmError(400, GlmCode.PromptTooLong, 'Prompt exceeds max length');
      case 'inference':
        return glmError(500, GlmCode.NetworkError, `网络错误，错误id：${requestId}，请联系客服`);
      default: {
        const code =
          'param' in problem && problem.param.startsWith('messages') ? GlmCode.BadMessages : GlmCode.BadParameter;
        return glmError(400, code, `API 调用参数有误，请检查文档。${describe(problem)}`);
      }
    }
  },
  faultReply(status, requestId) {
    if (status === 401) return this.reject({ kind: 'auth', key: 'invalid' }, requestId);
    if (status === 429) return this.reject({ kind: 'rate', limit: 0, retryAfterSec: 1 }, requestId);
    if (status === 400) return glmError(400, GlmCode.BadParameter, 'API 调用参数有误，请检查文档。');
    return glmError(status, String(status), STATUS_CODES[status] ?? 'Error');
  },
  finishReasons: {
    stop: 'stop',
    length: 'length',
    tool_calls: 'tool_calls',
    filtered: 'sensitive',
    system_error: 'network_error',
    context_exceeded: 'model_context_window_exceeded',
  },
  triggers: new Set(['filtered', 'system_error', 'context_exceeded', 'error']),
  newId(nowMs) {
    // A Beijing-time timestamp followed by 16 hex digits: 20250206093013a182c11a9afe42c8.
    const stamp = new Date(nowMs + 8 * 3_600_000).toISOString().replace(/\D/g, '').slice(0, 14);
    return stamp + randomBytes(8).toString('hex');
  },
  usage: (u) => ({
    prompt_tokens: u.prompt,
    completion_tokens: u.completion,
    total_tokens: u.prompt + u.completion,
    prompt_tokens_details: { cached_tokens: u.cached },
    ...(u.reasoning ? { completion_tokens_details: { reasoning_tokens: u.reasoning } } : {}),
  }),
  // reasoning_effort (GLM-5.2 and later): max (default), xhigh, high, medium, low, minimal, none; none and minimal mean
  // no thinking, low and medium act as high, xhigh as max (docs.bigmodel.cn/cn/guide/capabilities/thinking, read 2026-11-28).
  efforts: { max: 'max', xhigh: 'max', high: 'high', medium: 'high', low: 'high', minimal: 'none', none: 'none' },
  cacheBlock: 64,
  shape: {
    object: false,
    requestIdField: true,
    roleInEveryDelta: true,
    omitNullFinishReason: true,
    usagePlacement: () => ({ last: 'top' }),
    // Without `tool_stream: true` GLM sends each tool call whole, in one delta.
    streamsToolArguments: (req) => req.raw.tool_stream === true,
    inBandError: (requestId) => ({
      error: { code: GlmCode.NetworkError, message: `网络错误，错误id：${requestId}，请联系客服` },
    }),
  },
  media: {
    embeddingModels: SANDBOX_MEDIA_MODELS.glm.embeddings,
    imageModels: SANDBOX_MEDIA_MODELS.glm.images,
    base64: false,
    sensitive: () =>
      glmError(
        400,
        GlmCode.Unsafe,
        '系统检测到输入或生成内容可能包含不安全或敏感内容，请您避免输入易产生敏感内容的提示语，感谢您的配合。',
      ),
    imageBody: (made) => ({
      created: made.created,
      data: [{ url: made.url }],
      ...(made.borderline ? { content_filter: [{ role: 'user', level: 2 }] } : {}),
    }),
  },
};
