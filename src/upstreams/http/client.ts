import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { Readable } from 'node:stream';
import { ErrorCode, GatewayError, upstreamError } from '../../errors/codes.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import { startUpstreamSpan } from '../../observability/tracing.js';
import { DEFAULT_MAX_RESPONSE_BYTES, decodedBody, readBoundedText } from './body.js';
import { CircuitBreaker, DEFAULT_BREAKER, type BreakerOptions } from './breaker.js';
import type { ResponseBufferBudget } from './bufferBudget.js';
import type { UpstreamTally } from './tally.js';
import { counted } from './counted.js';
import type { UpstreamDispatchOptions } from './dispatch.js';
import { metered } from './metered.js';
import { UpstreamCode } from '../codes.js';
import { sleep } from '../../streams/sleep.js';
import { DEFAULT_RETRY_POLICY, isRetryable, parseRetryAfter, retryDelay, type RetryPolicy } from './retry.js';

/** Options of one {@link UpstreamHttp} instance, one per upstream. */
export interface UpstreamHttpOptions {
  /** `graph`, `omdb`, or a chat provider id: the `extensions.upstream` of its errors and the metrics label. */
  upstream: string;
  metrics: GatewayMetrics;
  log: Logger;
  redact: (text: string) => string;
  /** Open connections per origin. @default 64 */
  connections?: number;
  /** Time to connect. @default 5000 */
  connectTimeoutMs?: number;
  /** Time from sending until the response headers. @default 30000 */
  headersTimeoutMs?: number;
  /** Time between two body chunks (a stalled stream). @default 60000 */
  bodyTimeoutMs?: number;
  /** Whole buffered request, retries and their waits included. @default 30000 */
  totalTimeoutMs?: number;
  /**
   * Largest buffered body, after decompression (UPSTREAM_MAX_RESPONSE_BYTES); also the largest single event of a
   * stream, for readers that buffer one. @default 16777216
   */
  maxResponseBytes?: number;
  /** Bytes of buffered bodies the whole gateway may hold at once (UPSTREAM_MAX_BUFFERED_BYTES), shared by its clients. @default none */
  bufferBudget?: ResponseBufferBudget;
  retry?: Partial<RetryPolicy>;
  breaker?: Partial<BreakerOptions>;
}

/**
 * Who an upstream call is for: the caller's signal and the id its log lines carry. The per-request GraphQL context
 * is one as it stands, so callers pass it without building anything.
 */
export interface UpstreamCaller {
  readonly signal: AbortSignal;
  readonly requestId?: string;
  /** Counts the requests sent for the caller's operation (its cost). */
  readonly upstreamRequests?: UpstreamTally;
}

export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** The body: a text, or a function opening it as a stream (a file read from disk), called once per attempt. */
  body?: string | (() => Readable);
  /** The caller's signal: aborting it aborts the upstream request at once, waits included. */
  signal?: AbortSignal;
  /**
   * The controller of `signal` when only this request listens to it (an in-flight flight's, see inFlight.ts): `send`
   * then aborts it on its total timeout instead of chaining a controller and a listener of its own to it.
   */
  controller?: AbortController;
  /** The client request this call serves: every log line of the call carries it. */
  requestId?: string;
  /**
   * The operation's count of requests sent: each attempt is one (its cost, `extensions.cost.upstreamRequests`).
   * Required, undefined where no operation caused the request (a model list, the gateway's own token), so that no
   * call site leaves its operation's count out by forgetting it.
   */
  tally: UpstreamTally | undefined;
  /** Overrides the instance's policy for this request (e.g. no retries once a stream may have begun). */
  retry?: Partial<RetryPolicy>;
  /** Return the body unread, for streams; retries then happen only on statuses, before any body byte is read. */
  stream?: boolean;
  /** Time to the response headers for this request, when it differs from the instance's (a stream's idle limit). */
  headersTimeoutMs?: number;
  /** Statuses answered to the caller instead of retried even when the policy lists them. */
  noRetryStatuses?: readonly number[];
  /**
   * For a retryable status, reads the (small) error body and says whether retrying is pointless: a 429 that means
   * "no balance" or "daily quota used up" rather than "slow down". Then that answer goes back to the caller at once.
   */
  isFinal?: (status: number, body: string) => boolean;
  /** Describes the request on its trace span (e.g. `graph.batch.size`); never a key, token or full URL. */
  traceAttributes?: Record<string, string | number>;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** How many attempts it took. */
  attempts: number;
}

export interface BufferedResponse extends UpstreamResponse {
  text: string;
}

export interface StreamedResponse extends UpstreamResponse {
  body: Readable;
}

/**
 * The shared HTTP layer of every upstream client: a bounded undici connection pool, timeouts, retries with
 * `Retry-After`, cancellation by the caller's signal, metrics, and URLs redacted wherever they are logged.
 * It knows nothing of GraphQL; clients map statuses and envelopes to errors themselves.
 */
export class UpstreamHttp {
  readonly upstream: string;
  private readonly dispatcher: Dispatcher.ComposedDispatcher;
  private readonly policy: RetryPolicy;
  readonly breaker: CircuitBreaker;
  readonly maxResponseBytes: number;
  /** Longest silence between two body chunks while the body is read (a paused body does not time out). */
  readonly bodyTimeoutMs: number;

  constructor(private readonly options: UpstreamHttpOptions) {
    this.upstream = options.upstream;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? 60_000;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    const states = { closed: 0, 'half-open': 1, open: 2 } as const;
    this.breaker = new CircuitBreaker({ ...DEFAULT_BREAKER, ...options.breaker }, (state, requestId) => {
      options.metrics.upstreamBreakerState.set({ upstream: this.upstream }, states[state]);
      options.log.warn({ requestId, upstream: this.upstream, state }, `circuit ${state} for ${this.upstream}`);
    });
    options.metrics.upstreamBreakerState.set({ upstream: this.upstream }, 0);
    const { metrics, log, redact } = options;
    // Each attempt passes these, innermost last: the pool (with its connect, headers and body timeouts) at the bottom.
    this.dispatcher = new Agent({
      connections: options.connections ?? 64,
      connectTimeout: options.connectTimeoutMs ?? 5_000,
      headersTimeout: options.headersTimeoutMs ?? 30_000,
      bodyTimeout: this.bodyTimeoutMs,
      keepAliveTimeout: 10_000,
    }).compose(metered({ upstream: this.upstream, metrics, log, redact }), counted(this.upstream));
  }

  /** Sends the request (retrying as the policy allows) and reads the whole body, all within the total timeout. */
  async send(req: UpstreamRequest): Promise<BufferedResponse> {
    // One controller and one timer per call (AbortSignal.timeout/any cost several times more on Node 20's hot path);
    // none of its own when the caller's controller serves this request alone.
    const totalMs = this.options.totalTimeoutMs ?? 30_000;
    const owned = req.controller;
    const controller = owned ?? new AbortController();
    const timer = setTimeout(() => controller.abort(TOTAL_TIMEOUT), totalMs);
    const onCallerAbort = () => controller.abort(req.signal!.reason);
    if (!owned) {
      if (req.signal?.aborted) onCallerAbort();
      else req.signal?.addEventListener('abort', onCallerAbort, { once: true });
    }
    try {
      const { response, body } = await this.guarded({ ...req, signal: controller.signal, stream: false }, () => controller.signal.aborted && controller.signal.reason !== TOTAL_TIMEOUT);
      return { ...response, text: await this.read(body as unknown as Readable, response) };
    } catch (error) {
      if (controller.signal.reason === TOTAL_TIMEOUT) {
        throw upstreamError(ErrorCode.UpstreamTimeout, `The ${this.upstream} service did not answer within ${totalMs} ms.`, { upstream: this.upstream });
      }
      if (req.signal?.aborted || error instanceof GatewayError) throw error;
      // The body broke off after the headers: a reset, a Content-Length the body never reached.
      throw upstreamError(ErrorCode.UpstreamError, `The ${this.upstream} service broke off its answer (${(error as Error)?.message || describeError(error)}).`, { upstream: this.upstream });
    } finally {
      clearTimeout(timer);
      if (!owned) req.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** Sends the request and hands back the body stream (decoded) as soon as the headers arrived. */
  async open(req: UpstreamRequest): Promise<StreamedResponse> {
    const { response, body } = await this.guarded({ ...req, stream: true }, () => !!req.signal?.aborted);
    return { ...response, body: decodedBody(body as unknown as Readable, response.headers['content-encoding'], this.upstream, response.status) };
  }

  /** The whole body of an opened response (an error answer to a stream request), within {@link maxResponseBytes}. */
  text(res: StreamedResponse): Promise<string> {
    return this.read(res.body, res, false);
  }

  private read(body: Readable, response: UpstreamResponse, decode = true): Promise<string> {
    const headers = decode ? response.headers : { ...response.headers, 'content-encoding': undefined };
    return readBoundedText(body, headers, { upstream: this.upstream, status: response.status, limit: this.maxResponseBytes, budget: this.options.bufferBudget });
  }

  /** The circuit breaker around one request with its retries: the final outcome counts, not each attempt. */
  private async guarded(req: UpstreamRequest, callerLeft: () => boolean): Promise<{ response: UpstreamResponse; body: Dispatcher.ResponseData['body'] }> {
    const admitted = this.breaker.admit();
    if (!admitted.ok) {
      const seconds = Math.ceil(admitted.retryInMs / 1000);
      throw upstreamError(
        ErrorCode.UpstreamError,
        `The ${this.upstream} service is failing: the gateway paused calls to it (circuit open); retry in ${seconds} s.`,
        { upstream: this.upstream, retryAfter: seconds, upstreamCode: UpstreamCode.CircuitOpen },
      );
    }
    const span = startUpstreamSpan(this.upstream, req.method, req.url, req.traceAttributes);
    if (span) req = { ...req, headers: { ...req.headers, ...span.headers } };
    try {
      const result = await this.attempt(req);
      if (result.response.status >= 500) this.breaker.failure(req.requestId);
      else this.breaker.success(req.requestId);
      span?.end(result.response, req.stream ? result.body : undefined);
      return result;
    } catch (error) {
      span?.fail(error);
      // A caller who left says nothing about the upstream's health; a timeout does.
      if (callerLeft()) this.breaker.release();
      else this.breaker.failure(req.requestId);
      throw error;
    }
  }

  private async attempt(req: UpstreamRequest): Promise<{ response: UpstreamResponse; body: Dispatcher.ResponseData['body'] }> {
    const policy = req.retry ? { ...this.policy, ...req.retry } : this.policy;
    const { metrics, log } = this.options;
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      let status: number | 'network';
      let result: Dispatcher.ResponseData | undefined;
      let failure: unknown;
      const body = typeof req.body === 'function' ? req.body() : req.body;
      try {
        // The agent directly, with the URL split once: undici's `request(url)` parses a WHATWG URL per call.
        const { origin, path } = splitUrl(req.url);
        const options: Omit<UpstreamDispatchOptions, 'signal'> & Dispatcher.RequestOptions = {
          origin,
          path,
          method: req.method,
          headers: req.headers,
          body,
          signal: req.signal,
          url: req.url,
          attempt,
          requestId: req.requestId,
          tally: req.tally,
          ...(req.headersTimeoutMs ? { headersTimeout: req.headersTimeoutMs } : {}),
        };
        result = await this.dispatcher.request(options);
        status = result.statusCode;
      } catch (error) {
        if (req.signal?.aborted) throw req.signal.reason ?? error;
        failure = error;
        status = 'network';
      } finally {
        // A streamed body the upstream answered before reading to its end (or never read) closes its file here.
        if (typeof body === 'object' && !body.readableEnded) body.destroy();
      }
      const retryAfter = result ? parseRetryAfter(result.headers['retry-after']) : undefined;
      const canRetry = isRetryable(policy, req.method, status) && !(typeof status === 'number' && req.noRetryStatuses?.includes(status));
      const delay = canRetry ? retryDelay(policy, attempt, waited, retryAfter) : undefined;
      if (delay === undefined) {
        if (result) return { response: { status: result.statusCode, headers: result.headers, attempts: attempt }, body: result.body };
        throw this.networkError(failure, attempt);
      }
      if (result && req.isFinal) {
        const text = await this.read(result.body as unknown as Readable, { status: result.statusCode, headers: result.headers, attempts: attempt }).catch(() => '');
        if (req.isFinal(result.statusCode, text)) {
          // The replayed text is decoded already.
          const headers = { ...result.headers, 'content-encoding': undefined };
          return { response: { status: result.statusCode, headers, attempts: attempt }, body: replayBody(text) };
        }
      } else {
        // Drain the refused body so the connection goes back to the pool.
        await result?.body.dump().catch(() => undefined);
      }
      metrics.upstreamRetries.inc({ upstream: this.upstream, reason: String(status) });
      log.info({ requestId: req.requestId, upstream: this.upstream, status, attempt, delayMs: delay, retryAfter }, 'retrying upstream request');
      await sleep(delay, req.signal);
      waited += delay;
    }
  }

  private networkError(error: unknown, attempts: number) {
    const timeout =
      error instanceof undiciErrors.HeadersTimeoutError ||
      error instanceof undiciErrors.BodyTimeoutError ||
      error instanceof undiciErrors.ConnectTimeoutError;
    const what = timeout ? 'did not answer in time' : `could not be reached (${describeError(error)})`;
    return upstreamError(
      timeout ? ErrorCode.UpstreamTimeout : ErrorCode.UpstreamError,
      `The ${this.upstream} service ${what} after ${attempts} attempt${attempts === 1 ? '' : 's'}.`,
      { upstream: this.upstream },
    );
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

/**
 * `https://host:port` and `/path?query` of an absolute URL the clients built from their configured base URL. What
 * is not a plain `scheme://authority/…` goes through WHATWG URL parsing.
 */
export function splitUrl(url: string): { origin: string; path: string } {
  const scheme = url.indexOf('://');
  const slash = scheme === -1 ? -1 : url.indexOf('/', scheme + 3);
  const authority = slash === -1 ? '' : url.slice(scheme + 3, slash);
  if (scheme === -1 || authority === '' || /[@?#\\]/.test(authority)) {
    const parsed = new URL(url);
    return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
  }
  const hash = url.indexOf('#', slash);
  return { origin: url.slice(0, slash), path: hash === -1 ? url.slice(slash) : url.slice(slash, hash) };
}

/** The abort reason of a request past its total timeout: one object, made once (an Error per request costs its stack). */
const TOTAL_TIMEOUT = new DOMException('The upstream request took longer than its total timeout.', 'TimeoutError');

function describeError(error: unknown): string {
  return (error as { code?: string })?.code ?? (error as Error)?.message ?? 'network error';
}

/** An already-read body handed on in the shape undici gives: readable, with `text()` and `dump()`. */
function replayBody(text: string): Dispatcher.ResponseData['body'] {
  const stream = Readable.from([Buffer.from(text)]) as Readable & { text(): Promise<string>; dump(): Promise<void> };
  stream.text = async () => text;
  stream.dump = async () => void stream.destroy();
  return stream as unknown as Dispatcher.ResponseData['body'];
}
