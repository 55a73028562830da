import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from '../http.js';
import type { Emulator, EmulatorContext, SandboxRequest } from '../types.js';
import { generate } from './generator.js';
import { KimiFiles } from './files.js';
import { handleMedia, serveFile } from './media.js';
import type { ChatProvider } from './provider.js';
import { RateWindow } from './rateWindow.js';
import { servedModel, type SandboxModel } from './models.js';
import { PromptCache } from './promptCache.js';
import {
  checkModel,
  countPromptTokens,
  isProblem,
  parseChatRequest,
  type ChatRequest,
  type Problem,
} from './chatRequest.js';
import { completionBody, streamEvents, totalUsage } from './response.js';
import { writeJsonAfterGeneration, writeSse } from './wire.js';

/** Day the sandbox models were "created", for `GET /models`. */
const MODELS_CREATED = 1_735_689_600;

/** One emulator from the shared core and a provider's differences. */
export function createChatEmulator(p: ChatProvider): Emulator {
  const rate = new RateWindow();
  const cache = new PromptCache(p.cacheBlock);
  const files = p.files ? new KimiFiles(p.models) : undefined;
  let open = 0;

  async function handle(req: SandboxRequest, res: ServerResponse, ctx: EmulatorContext): Promise<void> {
    const requestId = newRequestId(ctx.now());
    const fail = (problem: Problem, headers: Record<string, string> = {}) => {
      // An upload refused before its body was read: the body is read and dropped.
      req.stream?.resume();
      const reply = p.reject(problem, requestId);
      sendJson(res, reply.status, reply.body, { ...reply.headers, ...headers });
    };
    const route = `${req.method} ${req.path}`;
    if (p.media && serveFile(route, res)) return;
    const media = p.media !== undefined && (route === 'POST /embeddings' || route === 'POST /images/generations');
    const filesApi = files !== undefined && KimiFiles.serves(req.method, req.path);
    if (route !== 'POST /chat/completions' && route !== 'GET /models' && !media && !filesApi)
      return fail({ kind: 'path', method: req.method, path: req.path });
    const key = bearerKey(req.headers.authorization);
    if (key !== 'sandbox') return fail({ kind: 'auth', key });
    if (filesApi) return files!.handle(req, res, ctx);
    if (media && handleMedia(p.media!, route, req, res, ctx, fail, requestId)) return;
    if (route === 'GET /models') {
      return sendJson(res, 200, {
        object: 'list',
        data: p.models.map((m) => ({
          id: m.id,
          object: 'model',
          ...(p.shape.modelsCreated === false ? {} : { created: MODELS_CREATED }),
          owned_by: p.name,
          ...m.listing,
        })),
      });
    }

    let rateHeaders: Record<string, string> = {};
    const limit = ctx.settings.chatRpm[p.name];
    if (limit) {
      const verdict = rate.take(ctx.now(), limit);
      if (p.rateLimitHeaders) {
        rateHeaders = {
          'x-ratelimit-limit': String(limit),
          'x-ratelimit-remaining': String(verdict.remaining),
          'x-ratelimit-reset': String(verdict.resetSec),
        };
      }
      if (!verdict.ok) return fail({ kind: 'rate', limit, retryAfterSec: verdict.resetSec }, rateHeaders);
    }

    const concurrency = ctx.settings.chatConcurrency[p.name];
    if (concurrency && open >= concurrency) return fail({ kind: 'concurrency', limit: concurrency }, rateHeaders);

    const parsed = parseChatRequest(req.body, p.limits);
    if (isProblem(parsed)) return fail(parsed);
    const problem = p.validate?.(parsed) ?? checkModel(parsed, p.models);
    if (problem) return fail(problem);

    const model = servedModel(p.models, parsed.model)!;
    const thinking = thinks(model, parsed);
    const rule = thinkingRules(p, model, parsed, thinking) ?? formatRules(p, parsed);
    if (rule) return fail(rule);
    const efforts = model.efforts ?? p.efforts;
    if (parsed.effort !== undefined && efforts && !(parsed.effort in efforts)) {
      return fail({
        kind: 'invalid',
        param: 'reasoning_effort',
        detail: `reasoning_effort must be one of ${Object.keys(efforts).join(', ')}, got ${JSON.stringify(parsed.effort)}`,
      });
    }
    const effort = parsed.effort !== undefined ? efforts?.[parsed.effort] : undefined;
    if (p.ignoresMaxCompletionTokens) parsed.maxCompletionTokens = undefined;
    // An effort of "none" (GLM's none and minimal, Ark's minimal) answers without thinking.
    const choices = generate(parsed, {
      reasoning: thinking && effort !== 'none',
      effort,
      triggers: p.triggers,
      maxTokensExcludesReasoning: p.name === 'ark',
      long: ctx.settings.chatAnswerLength === 'long',
    });
    if (!parsed.stream && choices.some((c) => c.cause === 'error')) return fail({ kind: 'inference' });

    const meta = { id: p.newId(ctx.now()), created: Math.floor(ctx.now() / 1000), model: parsed.model };
    const promptTokens = countPromptTokens(parsed.messages);
    const cached = cache.take(model.id, parsed.messages);
    const paced = { delayMs: ctx.settings.chatTokenDelayMs, signal: req.signal, cutAfterChunks: ctx.cutAfterChunks };
    for (const [name, value] of Object.entries(rateHeaders)) res.setHeader(name, value);
    // DeepSeek's limit counts a request from when it is sent until its answer is complete.
    open += 1;
    res.once('close', () => (open -= 1));
    if (parsed.stream) return writeSse(res, streamEvents(p, parsed, meta, choices, promptTokens, cached), paced);
    const body = completionBody(p, meta, choices, promptTokens, cached);
    return writeJsonAfterGeneration(res, body, totalUsage(choices, promptTokens).completion, {
      ...paced,
      keepAliveLines: p.shape.keepAliveLines === true,
    });
  }

  return {
    name: p.name,
    handle,
    streamsBody: (method, path) => files !== undefined && method === 'POST' && path === '/files',
    faultResponse(status, ctx) {
      const reply = p.faultReply(status, newRequestId(ctx.now()));
      return { body: reply.body, headers: reply.headers };
    },
    reset: () => {
      rate.clear();
      cache.clear();
      files?.reset();
    },
  };
}

/** Whether the model reasons for this request: its default, turned by `thinking` where the model allows. */
function thinks(model: SandboxModel, req: ChatRequest): boolean {
  if (model.reasoning === 'always') return true;
  if (model.reasoning === 'on') return req.thinking !== 'disabled';
  if (model.reasoning === 'off') return req.thinking === 'enabled' || req.thinking === 'auto';
  return false;
}

/**
 * DeepSeek's and Kimi's rules while thinking (docs/upstreams.md §3.6): a forced tool choice is refused, and so is an
 * earlier assistant turn with tool calls that comes back without its `reasoning_content`. Kimi K2.6 also fixes its
 * sampling: temperature 1 while thinking, 0.6 without, top_p 0.95.
 */
function thinkingRules(p: ChatProvider, model: SandboxModel, req: ChatRequest, thinking: boolean): Problem | undefined {
  if (model.fixedSampling) {
    const temperature = thinking ? 1 : 0.6;
    if (req.temperature !== undefined && req.temperature !== temperature)
      return { kind: 'fixed-sampling', param: 'temperature', allowed: temperature };
    if (req.topP !== undefined && req.topP !== 0.95) return { kind: 'fixed-sampling', param: 'top_p', allowed: 0.95 };
  }
  if (model.reasoning === 'always' && req.thinking === 'disabled' && p.refusesThinkingOff)
    return { kind: 'invalid', param: 'thinking.type', detail: `thinking cannot be disabled for model ${model.id}` };
  if (!thinking || !p.strictThinking) return undefined;
  if (req.toolChoice === 'required' || typeof req.toolChoice === 'object')
    return { kind: 'forced-tool-choice', choice: req.toolChoice === 'required' ? 'required' : 'specified' };
  const index = req.messages.findIndex(
    (m) => m.role === 'assistant' && m.toolCalls > 0 && m.reasoningContent === undefined,
  );
  return index === -1 ? undefined : { kind: 'reasoning-missing', index };
}

/** `response_format`: a schema only where the provider takes one (Ark); DeepSeek's JSON mode wants the word "json". */
function formatRules(p: ChatProvider, req: ChatRequest): Problem | undefined {
  const format = req.responseFormat;
  if (format?.type === 'json_schema' && !p.jsonSchema)
    return {
      kind: 'invalid',
      param: 'response_format.type',
      detail: 'response_format.type must be text or json_object, got "json_schema"',
    };
  // "The system or user message must contain the word json" (api-docs.deepseek.com/guides/json_mode).
  if (
    format?.type === 'json_object' &&
    p.jsonNeedsWord &&
    !req.messages.some((m) => (m.role === 'system' || m.role === 'user') && /json/i.test(m.text))
  )
    return { kind: 'json-word' };
  return undefined;
}

function bearerKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(.*)$/i.exec(header.trim());
  return m ? m[1].trim() : header;
}

/** Request ids as Ark prints them (`0217…`: a timestamp and random hex); the other providers only echo it. */
function newRequestId(nowMs: number): string {
  return `0217${nowMs}${randomBytes(12).toString('hex')}`;
}
