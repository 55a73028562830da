import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { SANDBOX_MODELS } from './models.js';
import type { ChatProvider, ErrorReply } from './provider.js';
import { describe, type Problem } from './chatRequest.js';

const moonshotError = (
  status: number,
  type: string,
  message: string,
  headers?: Record<string, string>,
): ErrorReply => ({
  status,
  body: { error: { type, message } },
  headers,
});

/** (S) Moonshot AI (Kimi). */
export const moonshot: ChatProvider = {
  name: 'moonshot',
  models: SANDBOX_MODELS.moonshot,
  limits: { temperatureMax: 1, maxChoices: 5 },
  validate(req) {
    // Near-zero temperature leaves one possible answer, so Moonshot refuses to make several.
    if (req.n > 1 && req.temperature !== undefined && req.temperature < 0.01) {
      return { kind: 'invalid', param: 'n', detail: 'n must be 1 when temperature is close to 0' };
    }
    // "cannot specify both 'thinking' and 'reasoning_effort'" (HTTP 400) [third party: hermes-agent ce4e74b, 2026-06-06].
    if (req.raw.thinking !== undefined && req.effort !== undefined)
      return { kind: 'invalid', param: 'thinking', detail: "cannot specify both 'thinking' and 'reasoning_effort'" };
    return undefined;
  },
  reject(problem: Problem): ErrorReply {
    switch (problem.kind) {
      case 'path':
        return moonshotError(404, 'resource_not_found_error', `Not found: ${problem.method} ${problem.path}`);
      case 'auth':
        return moonshotError(401, 'invalid_authentication_error', 'Invalid Authentication');
      case 'rate':
        return moonshotError(
          429,
          'rate_limit_reached_error',
          `Your account org-sandbox<ak-sandbox> request reached max request: ${problem.limit}, please try again after ${problem.retryAfterSec} seconds`,
          { 'retry-after': String(problem.retryAfterSec) },
        );
      case 'model':
        return moonshotError(
          404,
          'resource_not_found_error',
          `Not found the model ${problem.model} or Permission denied`,
        );
      case 'reasoning-missing':
        return moonshotError(
          400,
          'invalid_request_error',
          `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${problem.index}`,
        );
      case 'forced-tool-choice':
        return moonshotError(
          400,
          'invalid_request_error',
          `tool_choice '${problem.choice}' is incompatible with thinking enabled`,
        );
      case 'fixed-sampling':
        return moonshotError(
          400,
          'invalid_request_error',
          `invalid ${problem.param}: only ${problem.allowed} is allowed for this model`,
        );
      case 'context':
        return moonshotError(
          400,
          'invalid_request_error',
          `Invalid request: Your request exceeded model token limit: ${problem.limit}`,
        );
      case 'inference':
        return moonshotError(500, 'unexpected_output', 'invalid state transition');
      default:
        return moonshotError(400, 'invalid_request_error', `Invalid request: ${describe(problem)}`);
    }
  },
  faultReply(status) {
    switch (status) {
      case 400:
        return moonshotError(400, 'invalid_request_error', 'Invalid request');
      case 401:
        return this.reject({ kind: 'auth', key: undefined }, '');
      case 403:
        return moonshotError(403, 'permission_denied_error', 'The API you are accessing is not open');
      case 404:
        return moonshotError(404, 'resource_not_found_error', 'Not found the model or Permission denied');
      case 429:
        return moonshotError(
          429,
          'rate_limit_reached_error',
          'Organization Rate limit exceeded, please try again after 1 seconds',
          { 'retry-after': '1' },
        );
      case 503:
        return moonshotError(
          503,
          'engine_overloaded_error',
          'The engine is currently overloaded, please try again later',
        );
      default:
        return moonshotError(status, 'server_error', STATUS_CODES[status] ?? 'Server error');
    }
  },
  finishReasons: { stop: 'stop', length: 'length', tool_calls: 'tool_calls', filtered: 'content_filter' },
  triggers: new Set(['filtered']),
  newId: () => `chatcmpl-${randomBytes(12).toString('hex')}`,
  usage: (u) => ({
    prompt_tokens: u.prompt,
    completion_tokens: u.completion,
    total_tokens: u.prompt + u.completion,
    cached_tokens: u.cached,
  }),
  strictThinking: true,
  // K2.7-Code, K3, K3.1 Pro: "thinking: {type: "disabled"} is answered with an error" (docs/upstreams.md §3.6).
  refusesThinkingOff: true,
  // Kimi's prefix cache matches in 256-token chunks [third party, measured on its coding endpoint].
  cacheBlock: 256,
  shape: {
    object: true,
    systemFingerprint: 'fpv0_ca1d2527',
    roleInEveryDelta: false,
    omitNullFinishReason: false,
    usagePlacement: () => ({ last: 'choice' }),
  },
  rateLimitHeaders: true,
  files: true,
};
