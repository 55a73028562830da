import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from '../http.js';
import { mulberry32 } from '../prng.js';
import type { EmulatorContext, SandboxRequest } from '../types.js';
import type { ErrorReply, Problem } from './chatRequest.js';

/**
 * Embeddings (`POST …/embeddings`) and image generation (`POST …/images/generations`) for the providers that serve
 * them, GLM and Ark, in their wire formats:
 * - embeddings: `{model, input: string | string[], dimensions?}` → `{object: "list", data: [{index, object:
 *   "embedding", embedding}], model, usage: {prompt_tokens, total_tokens}}`; vectors are deterministic per model and
 *   text, unit length. More texts than the model's per-call limit is the provider's parameter error.
 * - images: `{model, prompt, size?, response_format?}` → one image; GLM answers `{created, data: [{url}],
 *   content_filter: [{role, level}]}` (URLs only), Ark `{model, created, data: [{url | b64_json, size}], usage:
 *   {generated_images, output_tokens, total_tokens}}`. A `[[sensitive]]` prompt is refused as the provider does;
 *   `[[borderline]]` gets its image and, on GLM, a `content_filter` note of level 2.
 *   URLs point at `GET …/sandbox-files/<id>.png`, served without credentials like the vendors' signed URLs.
 */

export interface SandboxEmbeddingModel {
  id: string;
  /** Texts one call accepts. */
  maxInputs: number;
  dimensions: readonly number[];
  defaultDimensions: number;
  /** embedding-2: `dimensions` is not a parameter at all. */
  fixedDimensions?: boolean;
}

export interface SandboxImageModel {
  id: string;
  sizes: RegExp;
  defaultSize: string;
}

/** What one provider's media endpoints differ in. */
export interface MediaProvider {
  embeddingModels: readonly SandboxEmbeddingModel[];
  imageModels: readonly SandboxImageModel[];
  /** Answers `b64_json` when asked (Ark); GLM has no `response_format`. */
  base64: boolean;
  /** The provider's refusal of unsafe prompt text. */
  sensitive(requestId: string): ErrorReply;
  /** The provider's image body around the made image. */
  imageBody(made: MadeImage): unknown;
}

export interface MadeImage {
  created: number;
  model: string;
  url?: string;
  b64?: string;
  size: string;
  tokens: number;
  /** The prompt had `[[borderline]]`: allowed, with a moderation note where the provider gives one (GLM). */
  borderline: boolean;
}

/** A 1×1 PNG: what every sandbox image is. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const tokens = (text: string) => text.match(/[A-Za-z0-9_']+|[^\sA-Za-z0-9_']/g)?.length ?? 0;

function vector(model: string, text: string, size: number): number[] {
  const seed = createHash('sha256').update(`${model}\0${text}`).digest().readUInt32LE(0);
  const next = mulberry32(seed);
  const v = Array.from({ length: size }, () => next() * 2 - 1);
  const norm = Math.hypot(...v.slice(0, 4096)) || 1;
  return v.map((x) => Math.round((x / norm) * 1e6) / 1e6);
}

type Fail = (problem: Problem) => void;

/** Serves the media routes; returns false when `route` is none of them. */
export function handleMedia(
  p: MediaProvider,
  route: string,
  req: SandboxRequest,
  res: ServerResponse,
  ctx: EmulatorContext,
  fail: Fail,
  requestId: string,
): boolean {
  if (route === 'POST /embeddings') {
    embeddings(p, req, res, fail);
    return true;
  }
  if (route === 'POST /images/generations') {
    images(p, req, res, ctx, fail, requestId);
    return true;
  }
  return false;
}

/** `GET …/sandbox-files/<id>.png`: the image behind a URL the sandbox handed out. */
export function serveFile(route: string, res: ServerResponse): boolean {
  if (!/^GET \/sandbox-files\/[A-Za-z0-9-]+\.png$/.test(route)) return false;
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length });
  res.end(PNG);
  return true;
}

function body(req: SandboxRequest, fail: Fail): Record<string, unknown> | undefined {
  try {
    const json = JSON.parse(req.body.toString('utf8')) as unknown;
    if (typeof json === 'object' && json !== null && !Array.isArray(json)) return json as Record<string, unknown>;
  } catch {
    // answered below
  }
  fail({ kind: 'format', detail: 'body must be a JSON object' });
  return undefined;
}

function embeddings(p: MediaProvider, req: SandboxRequest, res: ServerResponse, fail: Fail): void {
  const raw = body(req, fail);
  if (!raw) return;
  if (typeof raw.model !== 'string' || !raw.model) return fail({ kind: 'missing', param: 'model' });
  const model = p.embeddingModels.find((m) => m.id === raw.model);
  if (!model) return fail({ kind: 'model', model: raw.model });
  const input = typeof raw.input === 'string' ? [raw.input] : raw.input;
  if (!Array.isArray(input) || input.length === 0 || input.some((t) => typeof t !== 'string' || t === '')) {
    return fail({
      kind: 'invalid',
      param: 'input',
      detail: 'input must be a non-empty string or a non-empty array of non-empty strings',
    });
  }
  if (input.length > model.maxInputs)
    return fail({
      kind: 'invalid',
      param: 'input',
      detail: `input takes at most ${model.maxInputs} texts, got ${input.length}`,
    });
  let size = model.defaultDimensions;
  if (raw.dimensions !== undefined) {
    if (model.fixedDimensions)
      return fail({ kind: 'invalid', param: 'dimensions', detail: `${model.id} does not take dimensions` });
    if (!model.dimensions.includes(raw.dimensions as number))
      return fail({
        kind: 'range',
        param: 'dimensions',
        detail: `dimensions must be one of ${model.dimensions.join(', ')}`,
      });
    size = raw.dimensions as number;
  }
  const texts = input as string[];
  const prompt = texts.reduce((n, t) => n + tokens(t), 0);
  sendJson(res, 200, {
    object: 'list',
    data: texts.map((t, index) => ({ index, object: 'embedding', embedding: vector(model.id, t, size) })),
    model: model.id,
    usage: { prompt_tokens: prompt, completion_tokens: 0, total_tokens: prompt },
  });
}

function images(
  p: MediaProvider,
  req: SandboxRequest,
  res: ServerResponse,
  ctx: EmulatorContext,
  fail: Fail,
  requestId: string,
): void {
  const raw = body(req, fail);
  if (!raw) return;
  if (typeof raw.model !== 'string' || !raw.model) return fail({ kind: 'missing', param: 'model' });
  const model = p.imageModels.find((m) => m.id === raw.model);
  if (!model) return fail({ kind: 'model', model: raw.model });
  if (typeof raw.prompt !== 'string' || !raw.prompt.trim()) return fail({ kind: 'missing', param: 'prompt' });
  const size = raw.size === undefined ? model.defaultSize : raw.size;
  if (typeof size !== 'string' || !model.sizes.test(size))
    return fail({ kind: 'invalid', param: 'size', detail: `size ${JSON.stringify(size)} is not supported` });
  const format = raw.response_format ?? 'url';
  if (raw.response_format !== undefined && !p.base64)
    return fail({ kind: 'invalid', param: 'response_format', detail: 'response_format is not supported' });
  if (format !== 'url' && format !== 'b64_json')
    return fail({ kind: 'invalid', param: 'response_format', detail: 'response_format must be url or b64_json' });
  if (raw.prompt.includes('[[sensitive]]')) {
    const reply = p.sensitive(requestId);
    return sendJson(res, reply.status, reply.body, reply.headers);
  }
  const id = createHash('sha256')
    .update(`${model.id}\0${raw.prompt}\0${size}\0${ctx.now()}`)
    .digest('hex')
    .slice(0, 24);
  const made = {
    created: Math.floor(ctx.now() / 1000),
    model: model.id,
    size: /^\d+x\d+$/.test(size) ? size : '2048x2048',
    tokens: 16_384,
    borderline: raw.prompt.includes('[[borderline]]'),
    ...(format === 'b64_json' ? { b64: PNG.toString('base64') } : { url: `${ctx.baseUrl}/sandbox-files/${id}.png` }),
  };
  sendJson(res, 200, p.imageBody(made));
}
