import type { GraphConfig } from '../../config/env.js';
import { ErrorCode, upstreamError, type GatewayError } from '../../errors/codes.js';
import type { UpstreamDependencies } from '../dependencies.js';
import { splitBase, UpstreamHttp, type BufferedResponse, type UpstreamRequest } from '../http/client.js';
import { signalOf, type Cancellation, type CancelSource } from '../http/cancellation.js';
import { InFlight } from '../http/inFlight.js';
import { SettleWith, type Settle } from '../http/settle.js';
import type { UpstreamTally } from '../http/tally.js';
import { sleep } from '../../streams/sleep.js';
import { DEFAULT_RETRY_POLICY, isRetryable, retryDelay, type RetryPolicy } from '../http/retry.js';
import type { SharedState } from '../../state/index.js';
import { credentialsRejected, type GatewayCredentials } from '../credentials.js';
import { ApplicationToken } from './auth.js';
import { graphError, malformedResponse, UPSTREAM } from './errors.js';
import type { ResponseBufferBudget } from '../http/bufferBudget.js';

/** Graph accepts at most this many requests in one JSON batch (docs/upstreams.md 1.8). */
export const MAX_BATCH_SIZE = 20;

/** What one upstream call needs from its caller. */
export interface GraphCall {
  /** The `Authorization` header to send, from {@link GraphClient.authorization}. */
  authorization: string;
  /** The caller's cancellation: its AbortSignal, or its operation's controller (made into a signal only if needed). */
  signal?: CancelSource;
  /** The request's own cancellation (a shared flight's), followed instead of `signal`: the HTTP layer aborts it itself. */
  cancel?: Cancellation;
  /** Echoed by Graph as `client-request-id`, so one id traces a request through both logs. */
  requestId?: string;
  /** Overrides the shared retry policy, e.g. `{ maxAttempts: 1 }` for a caller that schedules its own retries. */
  retry?: Partial<RetryPolicy>;
  /** The caller's operation's count of requests sent (a shared GET counts for the caller that started it). */
  tally?: UpstreamTally;
}

/** One answer: the parsed body of a 2xx, or the contract error for anything else (404 included). */
export type GraphResult =
  | { ok: true; status: number; body: unknown }
  | { ok: false; status: number; error: GatewayError };

type Headers = Record<string, string | string[] | undefined>;

interface BatchItemResponse {
  id: string;
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

function resultOf(status: number, text: unknown, headers: Headers, method: string): GraphResult {
  let body: unknown = text;
  if (typeof text === 'string') {
    if (text === '') body = undefined;
    else {
      try {
        body = JSON.parse(text);
      } catch {
        return { ok: false, status, error: malformedResponse(status, headers) };
      }
    }
  }
  if (status >= 200 && status < 300) return { ok: true, status, body };
  return { ok: false, status, error: graphError(status, body, headers, WRITE_METHODS.has(method)) };
}

/**
 * Microsoft Graph v1.0 over the shared HTTP layer: paths relative to the version root, JSON batching in chunks of
 * {@link MAX_BATCH_SIZE} with per-item retries, the caller's or the gateway's token. It knows nothing of GraphQL.
 */
export class GraphClient {
  /** `https://graph.microsoft.com/v1.0` (or the sandbox's). */
  readonly root: string;
  /** {@link root} split once (`https://graph.microsoft.com` and `/v1.0`, `splitBase`): requests join a path to it. */
  private readonly rootAt: { origin: string; path: string } | undefined;
  private readonly appToken: ApplicationToken | undefined;
  private readonly inFlight = new InFlight<GraphResult>();
  /** The gateway's own current and previous `Authorization` values: a 401 to one of them is not the caller's fault. */
  private ownAuthorizations: Array<string | undefined> = [];

  constructor(
    private readonly http: UpstreamHttp,
    private readonly config: GraphConfig,
    state: SharedState,
    credentials: GatewayCredentials,
  ) {
    this.root = `${config.baseUrl}/${config.apiVersion}`;
    this.rootAt = splitBase(this.root);
    // One token per tenant and client, shared by the replicas; never keyed by the secret itself.
    this.appToken = config.clientSecret
      ? new ApplicationToken(
          http,
          config,
          credentials,
          state.sharedValue<string>(`graph-token:${config.tenantId}:${config.clientId}`),
        )
      : undefined;
  }

  /**
   * The `Authorization` header for one caller. Application mode (a client secret) always uses the gateway's token;
   * delegated mode forwards the caller's header; in sandbox mode a caller without one gets the sandbox app token.
   */
  authorization(callerAuthorization: string | undefined, requestId?: string): string | Promise<string> {
    const application = this.config.mode === 'live' && this.appToken;
    // The caller's own header is at hand: no promise for it (one fewer per upstream request).
    if (!application && callerAuthorization) return callerAuthorization;
    // The token already held and already known as the gateway's own: no async call, token read or promise per
    // operation (four promises of a Graph lookup's forty).
    const held = this.appToken?.current();
    if (held !== undefined && held === this.ownAuthorizations[0]) return held;
    return this.ownAuthorization(requestId);
  }

  private async ownAuthorization(requestId: string | undefined): Promise<string> {
    if (this.appToken) {
      const own = await this.appToken.authorization(requestId);
      if (own !== this.ownAuthorizations[0]) this.ownAuthorizations = [own, this.ownAuthorizations[0]];
      return own;
    }
    throw upstreamError(
      ErrorCode.Unauthenticated,
      'Microsoft Graph needs a token: send `Authorization: Bearer <token>` (delegated permissions), or configure GRAPH_TENANT_ID, GRAPH_CLIENT_ID and GRAPH_CLIENT_SECRET (application permissions).',
      { upstream: UPSTREAM },
    );
  }

  /** The path and query below {@link root} of an upstream link, or undefined when it points anywhere else. */
  relative(link: string): string | undefined {
    if (link.startsWith('/')) return link.startsWith('//') ? undefined : link;
    return link.startsWith(`${this.root}/`) ? link.slice(this.root.length) : undefined;
  }

  /**
   * A plain GET. Identical GETs in flight with the same `Authorization` are sent once (as OMDb lookups are): concurrent
   * operations asking for the same entity share one upstream request and its answer. A caller with its own retry
   * policy sends its own.
   */
  get(path: string, call: GraphCall): Promise<GraphResult> {
    if (call.retry) return this.send('GET', path, undefined, call);
    return this.inFlight.run(
      this.flightKey(call.authorization, path),
      // The flight's request: its cancellation, not the first caller's signal (each caller's wait follows its own);
      // its answer goes to the flight as it comes, without a promise of its own.
      (cancel, flight) =>
        this.http.sendTo(
          this.request('GET', path, undefined, call, cancel),
          new GraphAnswer(this, 'GET', call.authorization, flight),
        ),
      call.signal,
    );
  }

  /**
   * The key of a GET in flight: its path and whose token sends it. The gateway's own token (application mode, the
   * sandbox's) is the one principal whoever asks, so its GETs are keyed by `\n` and the path: not a copy of a
   * 400-byte token per request, compared against every key in flight (a caller's token, never empty, still is).
   */
  private flightKey(authorization: string, path: string): string {
    return authorization === this.ownAuthorizations[0] ? `\n${path}` : `${authorization}\n${path}`;
  }

  /** Sends a write; `ifMatch` becomes `If-Match`. PATCH asks for the stored entity back. */
  async write(
    method: 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body: unknown,
    call: GraphCall & { ifMatch?: string },
  ): Promise<GraphResult> {
    const headers: Record<string, string> = {};
    if (call.ifMatch) headers['if-match'] = call.ifMatch;
    if (method === 'PATCH') headers.prefer = 'return=representation';
    try {
      return await this.send(method, path, body, call, headers);
    } finally {
      // No read begun before or during the write answers an operation that comes after it.
      this.inFlight.forget();
    }
  }

  /**
   * GETs every path, answers in the same order: one path as a plain GET, more as `$batch` requests of at most
   * {@link MAX_BATCH_SIZE}, sent concurrently. Items answered 429/503/504 are sent again, only they, in a follow-up
   * batch after the longest `Retry-After` they carried.
   */
  getMany(paths: readonly string[], call: GraphCall): Promise<GraphResult[]> {
    // The common case, one lookup, without the batching rounds' bookkeeping (a plain GET has no item retries here),
    // nor an async frame of its own.
    if (paths.length === 1) return this.get(paths[0], call).then(inList);
    return this.getEach(paths, call);
  }

  private async getEach(paths: readonly string[], call: GraphCall): Promise<GraphResult[]> {
    const results: GraphResult[] = new Array(paths.length);
    let pending = paths.map((_, i) => i);
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      const chunks: number[][] = [];
      for (let i = 0; i < pending.length; i += MAX_BATCH_SIZE) chunks.push(pending.slice(i, i + MAX_BATCH_SIZE));
      const answers = await Promise.all(
        chunks.map((chunk) =>
          chunk.length === 1
            ? this.get(paths[chunk[0]], call).then((r) => [r])
            : this.batch(
                chunk.map((i) => paths[i]),
                call,
              ),
        ),
      );
      const retry: number[] = [];
      let retryAfter: number | undefined;
      chunks.forEach((chunk, c) =>
        chunk.forEach((index, k) => {
          const r = answers[c][k];
          results[index] = r;
          // Plain GETs were already retried by the HTTP layer; only batch items come back for another round.
          if (chunk.length > 1 && !r.ok && isRetryable(DEFAULT_RETRY_POLICY, 'GET', r.status)) {
            retry.push(index);
            const after = r.error.extensions.retryAfter as number | undefined;
            if (after !== undefined) retryAfter = Math.max(retryAfter ?? 0, after);
          }
        }),
      );
      const delay = retry.length === 0 ? undefined : retryDelay(DEFAULT_RETRY_POLICY, attempt, waited, retryAfter);
      if (delay === undefined) return results;
      await sleep(delay, signalOf(call.signal));
      waited += delay;
      pending = retry;
    }
  }

  private async batch(paths: string[], call: GraphCall): Promise<GraphResult[]> {
    const requests = paths.map((url, i) => ({ id: String(i + 1), method: 'GET', url }));
    const res = await this.send('POST', '/$batch', { requests }, call, {}, { 'graph.batch.size': requests.length });
    if (!res.ok) return paths.map(() => res);
    const responses = (res.body as { responses?: BatchItemResponse[] } | undefined)?.responses;
    const byId = new Map((Array.isArray(responses) ? responses : []).map((r) => [String(r.id), r]));
    return requests.map(({ id }) => {
      const item = byId.get(id);
      if (!item) return { ok: false, status: 502, error: malformedResponse(res.status, {}) };
      return this.blame(resultOf(item.status, item.body, lowerCase(item.headers ?? {}), 'GET'), call.authorization);
    });
  }

  private send(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body: unknown,
    call: GraphCall,
    extra?: Record<string, string>,
    traceAttributes?: Record<string, number>,
  ): Promise<GraphResult> {
    return new Promise((resolve, reject) =>
      this.http.sendTo(
        this.request(method, path, body, call, call.cancel, extra, traceAttributes),
        new GraphAnswer(this, method, call.authorization, { resolve, reject }),
      ),
    );
  }

  /** The upstream request of one call; `cancel`, when given, is followed instead of the caller's signal. */
  private request(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body: unknown,
    call: GraphCall,
    cancel: Cancellation | undefined,
    extra?: Record<string, string>,
    traceAttributes?: Record<string, number>,
  ): UpstreamRequest {
    const headers: Record<string, string> = { authorization: call.authorization, accept: 'application/json' };
    if (extra) Object.assign(headers, extra);
    if (call.requestId) headers['client-request-id'] = call.requestId;
    if (body !== undefined) headers['content-type'] = 'application/json';
    // What `splitUrl(url)` would make of it: the root's origin, its path joined to this one (up to a fragment).
    const at = this.rootAt;
    const hash = path.indexOf('#');
    return {
      method,
      url: this.root + path,
      origin: at?.origin,
      path: at && at.path + (hash === -1 ? path : path.slice(0, hash)),
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: call.signal,
      cancel,
      requestId: call.requestId,
      tally: call.tally,
      retry: call.retry,
      traceAttributes,
    };
  }

  /** The result of an answer Graph gave to a call made with `authorization`. */
  answer(res: BufferedResponse, method: string, authorization: string): GraphResult {
    return this.blame(resultOf(res.status, res.text, res.headers, method), authorization);
  }

  /** Graph refusing the gateway's own token is the gateway's configuration (its app registration), not the caller's. */
  private blame(result: GraphResult, authorization: string): GraphResult {
    if (result.ok || result.status !== 401 || !this.ownAuthorizations.includes(authorization)) return result;
    const { upstreamCode, upstreamRequestId } = result.error.extensions as {
      upstreamCode?: string;
      upstreamRequestId?: string;
    };
    const error = credentialsRejected(
      'GRAPH_TENANT_ID, GRAPH_CLIENT_ID or GRAPH_CLIENT_SECRET (the app registration and its ServiceHealth.Read.All permission)',
      `Microsoft Graph refused the gateway's own token (401${upstreamCode ? ` ${upstreamCode}` : ''}).`,
      { upstream: UPSTREAM, status: 401, upstreamCode, requestId: upstreamRequestId },
    );
    return { ...result, error };
  }
}

/**
 * Where the HTTP layer hands one call's answer: Graph's result made of it (an error with a contract code is a result
 * too, `{ ok: false }`) goes on to `to`, a shared flight or a caller's promise.
 */
class GraphAnswer extends SettleWith<BufferedResponse, GraphResult> {
  constructor(
    private readonly client: GraphClient,
    private readonly method: string,
    private readonly authorization: string,
    to: Settle<GraphResult>,
  ) {
    super(to);
  }

  protected answerOf(res: BufferedResponse): GraphResult {
    return this.client.answer(res, this.method, this.authorization);
  }

  override reject(error: unknown): void {
    if ((error as { extensions?: unknown }).extensions)
      this.to.resolve({ ok: false, status: 0, error: error as GatewayError });
    else this.to.reject(error);
  }
}

function lowerCase(headers: Record<string, string>): Headers {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** The gateway-wide Graph client (one connection pool and one application token per gateway). */
export function createGraphClient(s: UpstreamDependencies, bufferBudget: ResponseBufferBudget): GraphClient {
  const http = new UpstreamHttp({
    upstream: UPSTREAM,
    metrics: s.metrics,
    log: s.log,
    redact: s.redact,
    totalTimeoutMs: s.config.upstreamTimeoutMs,
    maxResponseBytes: s.config.upstreamMaxResponseBytes,
    bufferBudget,
  });
  s.onClose.push(() => http.close());
  return new GraphClient(http, s.config.graph, s.state, s.credentials);
}

const inList = (result: GraphResult): GraphResult[] => [result];
