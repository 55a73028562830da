import type { ChatClient } from './client.js';
import { providerError, unreadableAnswer } from './errors.js';
import type { EmbeddingModelSpec, ImageModelSpec } from './provider.js';
import type { UpstreamCaller } from '../http/client.js';

/**
 * Embeddings and image generation on the providers that serve them (GLM and Ark): the same pool, key, limiter and
 * error mapping as their chat calls, other paths and bodies (`POST …/embeddings`, `POST …/images/generations`).
 */

export interface Embedding {
  /** Position in the caller's input, across batches. */
  index: number;
  embedding: number[];
}

export interface EmbeddingResult {
  data: Embedding[];
  usage: { promptTokens: number; totalTokens: number };
  /** Upstream calls it took (batches of the model's `maxInputs`). */
  requests: number;
}

export interface GeneratedImage {
  url: string | null;
  b64Json: string | null;
  /** `WIDTHxHEIGHT` as made, where the provider says (Ark). */
  size: string | null;
}

export interface ImageResult {
  created: number;
  images: GeneratedImage[];
  /** GLM's moderation verdicts: `role` (user, assistant, history) and `level` (0 most severe .. 3). */
  contentFilter: Array<{ role: string; level: number }>;
  /** Ark: tokens billed for the images. */
  usage: { generatedImages: number; outputTokens: number; totalTokens: number } | null;
  requests: number;
}

type Json = Record<string, any>;

async function postJson(client: ChatClient, path: string, body: Json, caller: UpstreamCaller): Promise<Json> {
  const { signal, requestId, upstreamRequests: tally } = caller;
  await client.admit(signal);
  const { spec } = client;
  let res;
  try {
    res = await client.http.send({
      method: 'POST',
      url: `${client.config.baseUrl}${path}`,
      headers: client.headers(false),
      body: JSON.stringify(body),
      signal,
      requestId,
      tally,
      isFinal: client.quotaSpent,
    });
  } catch (error) {
    throw client.failure(error, signal, 'the request failed');
  }
  if (res.status >= 300) throw providerError(spec, res.status, res.headers, res.text, client.credentials);
  try {
    const json = JSON.parse(res.text) as unknown;
    if (typeof json !== 'object' || json === null || !Array.isArray((json as Json).data))
      throw new Error('the body has no data list');
    return json as Json;
  } catch (error) {
    throw unreadableAnswer(spec, res.status, (error as Error).message);
  }
}

/** Embeds `texts` in order, in as many calls of `model.maxInputs` texts as needed, one after the other. */
export async function embed(
  client: ChatClient,
  model: EmbeddingModelSpec,
  texts: readonly string[],
  dimensions: number | undefined,
  caller: UpstreamCaller,
): Promise<EmbeddingResult> {
  const out: EmbeddingResult = { data: [], usage: { promptTokens: 0, totalTokens: 0 }, requests: 0 };
  const sendDimensions = dimensions !== undefined && (model.acceptsDimensions ?? true);
  for (let start = 0; start < texts.length; start += model.maxInputs) {
    const batch = texts.slice(start, start + model.maxInputs);
    const body: Json = {
      model: model.upstreamModel ?? model.id,
      input: batch,
      ...(sendDimensions ? { dimensions } : {}),
    };
    const json = await postJson(client, '/embeddings', body, caller);
    out.requests += 1;
    for (const [i, item] of (json.data as Json[]).entries()) {
      const index = typeof item?.index === 'number' ? item.index : i;
      if (!Array.isArray(item?.embedding))
        throw unreadableAnswer(client.spec, 200, `embedding ${index} is not a list of numbers`);
      out.data.push({ index: start + index, embedding: item.embedding as number[] });
    }
    const prompt = Number(json.usage?.prompt_tokens ?? 0);
    out.usage.promptTokens += prompt;
    out.usage.totalTokens += Number(json.usage?.total_tokens ?? prompt);
  }
  out.data.sort((a, b) => a.index - b.index);
  return out;
}

/** `n` images, one call each: neither GLM nor Ark (outside its group mode) makes more than one per call. */
export async function generateImages(
  client: ChatClient,
  model: ImageModelSpec,
  request: { prompt: string; size?: string; n: number; format: 'url' | 'b64_json'; user?: string },
  caller: UpstreamCaller,
): Promise<ImageResult> {
  const out: ImageResult = { created: 0, images: [], contentFilter: [], usage: null, requests: 0 };
  const body: Json = { model: model.upstreamModel ?? model.id, prompt: request.prompt };
  if (request.size) body.size = request.size;
  // Only Ark knows `response_format`; GLM answers URLs and refuses fields outside its schema.
  if (request.format === 'b64_json') body.response_format = 'b64_json';
  for (let i = 0; i < request.n; i++) {
    const json = await postJson(client, '/images/generations', body, caller);
    out.requests += 1;
    out.created = typeof json.created === 'number' ? json.created : Math.floor(Date.now() / 1000);
    for (const item of json.data as Json[]) {
      out.images.push({
        url: typeof item?.url === 'string' ? item.url : null,
        b64Json: typeof item?.b64_json === 'string' ? item.b64_json : null,
        size: typeof item?.size === 'string' ? item.size : null,
      });
    }
    for (const f of Array.isArray(json.content_filter) ? (json.content_filter as Json[]) : [])
      out.contentFilter.push({ role: String(f.role ?? ''), level: Number(f.level ?? 0) });
    if (json.usage) {
      const u = (out.usage ??= { generatedImages: 0, outputTokens: 0, totalTokens: 0 });
      u.generatedImages += Number(json.usage.generated_images ?? 0);
      u.outputTokens += Number(json.usage.output_tokens ?? 0);
      u.totalTokens += Number(json.usage.total_tokens ?? 0);
    }
  }
  return out;
}
