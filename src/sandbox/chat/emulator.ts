import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from '../http.js';
import type { Emulator, EmulatorContext, SandboxRequest } from '../types.js';
import { generate } from './generator.js';
import { handleMedia, serveFile } from './media.js';
import type { ChatProvider } from './provider.js';
import { RateWindow } from './rateWindow.js';
import { checkModel, countPromptTokens, isProblem, parseChatRequest, type Problem } from './request.js';
import { completionBody, streamEvents, totalUsage } from './response.js';
import { writeJsonAfterGeneration, writeSse } from './wire.js';

/** Day the sandbox models were "created", for `GET /models`. */
const MODELS_CREATED = 1_735_689_600;

/** One emulator from the shared core and a provider's differences. */
export function createChatEmulator(p: ChatProvider): Emulator {
  const rate = new RateWindow();

  async function handle(req: SandboxRequest, res: ServerResponse, ctx: EmulatorContext): Promise<void> {
    const requestId = newRequestId(ctx.now());
    const fail = (problem: Problem, headers: Record<string, string> = {}) => {
      const reply = p.reject(problem, requestId);
      sendJson(res, reply.status, reply.body, { ...reply.headers, ...headers });
    };
    const route = `${req.method} ${req.path}`;
    if (p.media && serveFile(route, res)) return;
    const media = p.media !== undefined && (route === 'POST /embeddings' || route === 'POST /images/generations');
    if (route !== 'POST /chat/completions' && route !== 'GET /models' && !media) return fail({ kind: 'path', method: req.method, path: req.path });
    const key = bearerKey(req.headers.authorization);
    if (key !== 'sandbox') return fail({ kind: 'auth', key });
    if (media && handleMedia(p.media!, route, req, res, ctx, fail, requestId)) return;
    if (route === 'GET /models') {
      return sendJson(res, 200, { object: 'list', data: p.models.map((m) => ({ id: m.id, object: 'model', created: MODELS_CREATED, owned_by: p.name })) });
    }

    let rateHeaders: Record<string, string> = {};
    const limit = ctx.settings.chatRpm[p.name];
    if (limit) {
      const verdict = rate.take(ctx.now(), limit);
      if (p.rateLimitHeaders) {
        rateHeaders = { 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(verdict.remaining), 'x-ratelimit-reset': String(verdict.resetSec) };
      }
      if (!verdict.ok) return fail({ kind: 'rate', limit, retryAfterSec: verdict.resetSec }, rateHeaders);
    }

    const parsed = parseChatRequest(req.body, p.limits);
    if (isProblem(parsed)) return fail(parsed);
    const problem = p.validate?.(parsed) ?? checkModel(parsed, p.models);
    if (problem) return fail(problem);

    const model = p.models.find((m) => m.id === parsed.model)!;
    const thinking = (parsed.raw.thinking as { type?: unknown } | undefined)?.type === 'enabled';
    const choices = generate(parsed, { reasoning: model.reasoning === 'always' || (model.reasoning === 'on-request' && thinking), triggers: p.triggers });
    if (!parsed.stream && choices.some((c) => c.cause === 'error')) return fail({ kind: 'inference' });

    const meta = { id: p.newId(ctx.now()), created: Math.floor(ctx.now() / 1000), model: parsed.model };
    const promptTokens = countPromptTokens(parsed.messages);
    const paced = { delayMs: ctx.settings.chatTokenDelayMs, signal: req.signal, cutAfterChunks: ctx.cutAfterChunks };
    for (const [name, value] of Object.entries(rateHeaders)) res.setHeader(name, value);
    if (parsed.stream) return writeSse(res, streamEvents(p, parsed, meta, choices, promptTokens), paced);
    const body = completionBody(p, meta, choices, promptTokens);
    return writeJsonAfterGeneration(res, body, totalUsage(choices, promptTokens).completion, { ...paced, keepAliveLines: p.shape.keepAliveLines === true });
  }

  return {
    name: p.name,
    handle,
    faultResponse(status, ctx) {
      const reply = p.faultReply(status, newRequestId(ctx.now()));
      return { body: reply.body, headers: reply.headers };
    },
    reset: () => rate.clear(),
  };
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
