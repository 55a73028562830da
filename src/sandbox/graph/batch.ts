import { sleep } from '../http.js';
import type { EmulatorContext } from '../types.js';
import { badRequest, errorEnvelope, GraphError, GraphErrorCode, statusError } from './errors.js';
import type { GraphRequest } from './resources.js';
import { ODATA_JSON, type GraphResponse, type RequestIds } from './response.js';

export const MAX_BATCH_REQUESTS = 20;
const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];

interface BatchItem {
  id: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  dependsOn: string[];
}

interface ItemResponse {
  id: string;
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}

/** Validates the whole batch first: any bad item fails the batch with 400 (docs/upstreams.md 1.8). */
function parseBatch(body: unknown): BatchItem[] {
  const requests = (body as { requests?: unknown } | null)?.requests;
  if (!Array.isArray(requests)) throw badRequest('Invalid batch payload format: the body must be {"requests": [...]}.');
  if (requests.length === 0) throw badRequest('Invalid batch payload format: "requests" is empty.');
  if (requests.length > MAX_BATCH_REQUESTS) {
    throw badRequest(`The batch has ${requests.length} requests; a batch can hold at most ${MAX_BATCH_REQUESTS}.`);
  }
  const ids = new Map<string, string>();
  const items = requests.map((r: unknown, i): BatchItem => {
    const item = (typeof r === 'object' && r !== null ? r : {}) as Record<string, unknown>;
    const { id, method, url, headers = {}, body: itemBody, dependsOn = [] } = item;
    if (typeof id !== 'string' || !id)
      throw badRequest(`Batch request ${i} has no "id"; every request needs a unique string id.`);
    if (ids.has(id.toLowerCase()))
      throw badRequest(`Batch request id '${id}' is used more than once; ids must be unique (ignoring case).`);
    ids.set(id.toLowerCase(), id);
    if (typeof method !== 'string' || !METHODS.includes(method.toUpperCase())) {
      throw badRequest(
        `Batch request '${id}' has an invalid method ${JSON.stringify(method)}; use one of ${METHODS.join(', ')}.`,
      );
    }
    if (typeof url !== 'string' || !url) throw badRequest(`Batch request '${id}' has no "url".`);
    if (
      typeof headers !== 'object' ||
      headers === null ||
      Array.isArray(headers) ||
      Object.values(headers).some((v) => typeof v !== 'string')
    ) {
      throw badRequest(`Batch request '${id}' has invalid "headers"; use an object of string values.`);
    }
    const lowered = Object.fromEntries(
      Object.entries(headers as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
    );
    if (itemBody !== undefined && !lowered['content-type'])
      throw badRequest(`Batch request '${id}' has a body but no Content-Type header.`);
    if (!Array.isArray(dependsOn) || dependsOn.some((d) => typeof d !== 'string'))
      throw badRequest(`Batch request '${id}' has an invalid "dependsOn"; use an array of ids.`);
    return {
      id,
      method: method.toUpperCase(),
      url,
      headers: lowered,
      body: itemBody,
      dependsOn: dependsOn as string[],
    };
  });
  for (const item of items) {
    for (const dep of item.dependsOn) {
      if (!ids.has(dep.toLowerCase()) || dep.toLowerCase() === item.id.toLowerCase()) {
        throw badRequest(`Batch request '${item.id}' depends on '${dep}', which is not another request of this batch.`);
      }
    }
  }
  // Refuse cycles before anything runs, so a bad batch has no side effects.
  const byId = new Map(items.map((item) => [item.id.toLowerCase(), item]));
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (item: BatchItem): void => {
    const key = item.id.toLowerCase();
    if (state.get(key) === 'done') return;
    if (state.get(key) === 'visiting') throw badRequest(`Batch request '${item.id}' is part of a dependsOn cycle.`);
    state.set(key, 'visiting');
    for (const dep of item.dependsOn) visit(byId.get(dep.toLowerCase())!);
    state.set(key, 'done');
  };
  items.forEach(visit);
  return items;
}

function errorItem(id: string, err: GraphError, ids: RequestIds, now: number): ItemResponse {
  return {
    id,
    status: err.status,
    headers: { 'Content-Type': ODATA_JSON, ...err.headers },
    body: errorEnvelope(err.code, err.message, ids, now, err.innerCode),
  };
}

/**
 * Runs a JSON batch. Items run in dependency order; a failed dependency gives 424. Responses come back
 * in reverse request order so clients must match them by id, as the docs require.
 */
export async function runBatch(
  body: unknown,
  outer: GraphRequest,
  ctx: EmulatorContext,
  ids: RequestIds,
  serveItem: (req: GraphRequest) => GraphResponse,
  signal?: AbortSignal,
): Promise<GraphResponse> {
  const items = parseBatch(body);
  const byId = new Map(items.map((item) => [item.id.toLowerCase(), item]));
  const done = new Map<string, ItemResponse>();

  async function run(item: BatchItem): Promise<ItemResponse> {
    const key = item.id.toLowerCase();
    const finished = done.get(key);
    if (finished) return finished;
    let response: ItemResponse | undefined;
    for (const dep of item.dependsOn) {
      const result = await run(byId.get(dep.toLowerCase())!);
      if (result.status >= 400 && !response) {
        const err = new GraphError(
          424,
          GraphErrorCode.FailedDependency,
          `The request depends on '${dep}', which failed with status ${result.status}.`,
        );
        response = errorItem(item.id, err, ids, ctx.now());
      }
    }
    response ??= await serveOne(item);
    done.set(key, response);
    return response;
  }

  async function serveOne(item: BatchItem): Promise<ItemResponse> {
    const fault = ctx.takeFault(item.url);
    if (fault?.delayMs) await sleep(fault.delayMs, signal);
    if (fault?.status) {
      const err = statusError(fault.status);
      const r = errorItem(item.id, err, ids, ctx.now());
      if (fault.retryAfter !== undefined) r.headers['Retry-After'] = String(fault.retryAfter);
      return r;
    }
    const url = item.url.replace(/^\//, '');
    if (/^[a-z][a-z0-9+.-]*:/i.test(url) || /^(v1\.0|beta)\//i.test(url)) {
      return errorItem(
        item.id,
        badRequest(`Batch request url '${item.url}' must be relative to the version, e.g. /admin/serviceAnnouncement.`),
        ids,
        ctx.now(),
      );
    }
    const q = url.indexOf('?');
    let r: GraphResponse;
    try {
      r = serveItem({
        method: item.method,
        version: outer.version,
        path: `/${q === -1 ? url : url.slice(0, q)}`,
        rawQuery: q === -1 ? '' : url.slice(q + 1),
        headers: item.headers,
        body: typeof item.body === 'string' ? decodeBase64Json(item.body) : item.body,
      });
    } catch (err) {
      if (err instanceof GraphError) return errorItem(item.id, err, ids, ctx.now());
      throw err;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(r.headers)) headers[k === 'location' ? 'Location' : k] = v;
    if (r.body !== undefined) headers['Content-Type'] = ODATA_JSON;
    return { id: item.id, status: r.status, headers, ...(r.body !== undefined ? { body: r.body } : {}) };
  }

  for (const item of items) await run(item);
  const responses = items.map((item) => done.get(item.id.toLowerCase())!).reverse();
  return { status: 200, headers: {}, body: { responses } };
}

/** Item bodies may be base64 text; JSON is all this API accepts. */
function decodeBase64Json(text: string): unknown {
  try {
    return JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
  } catch {
    throw badRequest('A batch request body given as a string must be base64-encoded JSON.');
  }
}
