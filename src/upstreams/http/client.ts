import type { Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { Readable } from 'node:stream';
import { ErrorCode, GatewayError, upstreamError } from '../../errors/codes.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import { DEFAULT_MAX_RESPONSE_BYTES, decodedBody, readBoundedText } from './body.js';
import { CircuitBreaker, DEFAULT_BREAKER, guarded, type BreakerOptions } from './breaker.js';
import type { ResponseBufferBudget } from './bufferBudget.js';
import { counted } from './counted.js';
import { TOTAL_TIMEOUT, type UpstreamDispatchOptions } from './dispatch.js';
import { metered } from './metered.js';
import { rawHeaders } from './lazyHeaders.js';
import { Cancellation, type CancelSource } from './cancellation.js';
import { Deadline, Deadlines } from './deadlines.js';
import {
  BodyBrokenOff,
  receive,
  receiveTextTo,
  type Received,
  type ReceivedText,
  type ReadLimits,
} from './received.js';
import type { Settle } from './settle.js';
import { retried, type RetryRequest } from './retried.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
import type { UpstreamTally } from './tally.js';
import { traced } from './traced.js';
import { Agent, undiciErrors } from './undici.js';

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
  /**
   * What the caller's waits and requests follow instead of `signal`, when it has one that makes no AbortSignal
   * unless read (the operation's controller, context/operationController.ts).
   */
  readonly aborts?: CancelSource;
  readonly requestId?: string;
  /** Counts the requests sent for the caller's operation (its cost). */
  readonly upstreamRequests?: UpstreamTally;
}

export interface UpstreamRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  /**
   * `url` already split as {@link splitUrl} would (both or neither), by a client that joins a base it split once and
   * a path: no split per request, and `url` is only what the debug log and a span show.
   */
  origin?: string;
  path?: string;
  headers?: Record<string, string>;
  /** The body: a text, or a function opening it as a stream (a file read from disk), called once per attempt. */
  body?: string | (() => Readable);
  /** The caller's signal: aborting it aborts the upstream request at once, waits included. */
  signal?: CancelSource;
  /**
   * The request's own cancellation when only this request follows it (an in-flight flight's, see inFlight.ts):
   * `send` then aborts it on its total timeout instead of making one that follows `signal`.
   */
  cancel?: Cancellation;
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
 * The shared HTTP layer of every upstream client, as undici interceptors composed on one bounded connection pool
 * (outermost first): the circuit breaker (breaker.ts), the trace span (traced.ts), retries with `Retry-After`
 * (retried.ts), the operation's tally (counted.ts), metrics with the debug log (metered.ts) and the answer's headers
 * read from undici's raw list, parsed only when read as a whole (lazyHeaders.ts); the pool holds the
 * connect, headers and body timeouts (a buffered call that its total timeout ends sooner needs neither). This class
 * adds what spans a whole call: the total timeout and the caller's signal, the bounded read of a buffered body
 * (body.ts: limit, process budget, decoding) and errors for answers that never came. It knows nothing of GraphQL;
 * clients map statuses and envelopes to errors themselves.
 */
export class UpstreamHttp {
  readonly upstream: string;
  private readonly dispatcher: Dispatcher.ComposedDispatcher;
  private readonly policy: RetryPolicy;
  readonly breaker: CircuitBreaker;
  readonly maxResponseBytes: number;
  /** Longest silence between two body chunks while the body is read (a paused body does not time out). */
  readonly bodyTimeoutMs: number;
  /** The bounds of every buffered read, made once. */
  private readonly limits: ReadLimits;
  /** The total timeouts of the buffered calls in progress. */
  readonly deadlines: Deadlines;
  /**
   * Whether a buffered call's total timeout always ends it before the pool's headers or body timeout could (it starts
   * first and is no longer): its requests then ask undici for neither. Each was a `FastTimer` per request, kept in
   * undici's list until its next half-second sweep, so promoted to the old generation, and a second one when the two
   * lengths differ (bench/PROFILE.md, seventeenth pass).
   */
  private readonly totalFirst: boolean;

  constructor(private readonly options: UpstreamHttpOptions) {
    this.upstream = options.upstream;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? 60_000;
    const headersTimeoutMs = options.headersTimeoutMs ?? 30_000;
    this.limits = { upstream: this.upstream, limit: this.maxResponseBytes, budget: options.bufferBudget };
    this.deadlines = new Deadlines(options.totalTimeoutMs ?? 30_000);
    this.totalFirst = this.deadlines.ms <= headersTimeoutMs && this.deadlines.ms <= this.bodyTimeoutMs;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    const { upstream, metrics, log, redact } = options;
    const states = { closed: 0, 'half-open': 1, open: 2 } as const;
    this.breaker = new CircuitBreaker({ ...DEFAULT_BREAKER, ...options.breaker }, (state, requestId) => {
      metrics.upstreamBreakerState.set({ upstream }, states[state]);
      log.warn({ requestId, upstream, state }, `circuit ${state} for ${upstream}`);
    });
    metrics.upstreamBreakerState.set({ upstream }, 0);
    // undici's compose wraps in order: the first interceptor is the innermost (each attempt), the last the outermost.
    this.dispatcher = new Agent({
      connections: options.connections ?? 64,
      connectTimeout: options.connectTimeoutMs ?? 5_000,
      headersTimeout: headersTimeoutMs,
      bodyTimeout: this.bodyTimeoutMs,
      keepAliveTimeout: 10_000,
    }).compose(
      rawHeaders(),
      metered({ upstream, metrics, log, redact }),
      counted(upstream),
      retried({ upstream, metrics, log }),
      traced(upstream),
      guarded(upstream, this.breaker),
    );
  }

  /** Sends the request (retrying as the policy allows) and reads the whole body, all within the total timeout. */
  send(req: UpstreamRequest): Promise<BufferedResponse> {
    return new Promise((resolve, reject) => this.sendTo(req, { resolve, reject }));
  }

  /**
   * {@link send} without a promise of its own: the answer, or the error `send` would reject with, goes to `to`
   * (a caller that maps it on, as Graph's client does into a shared flight). One cancellation per call, the caller's
   * own when it serves this request alone, and a place in the upstream's list of deadlines (deadlines.ts), not a
   * timer per call.
   */
  sendTo(req: UpstreamRequest, to: Settle<BufferedResponse>): void {
    const cancel = req.cancel ?? Cancellation.following(req.signal);
    const call = new BufferedCall(this, cancel, this.dispatchOptions(req, cancel, this.totalFirst), to);
    this.deadlines.add(call);
    receiveTextTo(this.dispatcher, call.options, this.limits, call);
  }

  /** The error a buffered call rejects with, `error` being what ended it. */
  bufferedFailure(error: unknown, cancel: Cancellation, attempts: number): unknown {
    if (cancel.reason === TOTAL_TIMEOUT) {
      return upstreamError(
        ErrorCode.UpstreamTimeout,
        `The ${this.upstream} service did not answer within ${this.deadlines.ms} ms.`,
        { upstream: this.upstream },
      );
    }
    if (!(error instanceof BodyBrokenOff) || cancel.aborted) return this.failure(error, cancel, attempts);
    // The body broke off after the headers: a reset, a Content-Length the body never reached.
    const cause = error.cause;
    return upstreamError(
      ErrorCode.UpstreamError,
      `The ${this.upstream} service broke off its answer (${(cause as Error)?.message || describeError(cause)}).`,
      { upstream: this.upstream },
    );
  }

  /** Sends the request and hands back the body stream (decoded) as soon as the headers arrived. */
  async open(req: UpstreamRequest): Promise<StreamedResponse> {
    // Released by the answer's end (received.ts), whenever the caller has read the stream.
    const cancel = req.cancel ?? Cancellation.following(req.signal);
    const options = this.dispatchOptions(req, cancel, false);
    let result: Received;
    try {
      result = await receive(this.dispatcher, options);
    } catch (error) {
      throw this.failure(error, cancel, options.retry.attempts);
    }
    return {
      status: result.statusCode,
      headers: result.headers,
      attempts: options.retry.attempts,
      body: decodedBody(result.body, result.headers['content-encoding'], this.upstream, result.statusCode),
    };
  }

  /** The whole body of an opened response (an error answer to a stream request), within {@link maxResponseBytes}. */
  text(res: StreamedResponse): Promise<string> {
    return this.read(res.body, res, false);
  }

  private read(body: Readable, response: Pick<UpstreamResponse, 'status' | 'headers'>, decode = true): Promise<string> {
    const headers = decode ? response.headers : { ...response.headers, 'content-encoding': undefined };
    return readBoundedText(body, headers, {
      upstream: this.upstream,
      status: response.status,
      limit: this.maxResponseBytes,
      budget: this.options.bufferBudget,
    });
  }

  /** The options of one request through the interceptors, with its retry state (`retry.attempts`: those it took). */
  private dispatchOptions(
    req: UpstreamRequest,
    cancel: Cancellation,
    totalFirst: boolean,
  ): UpstreamDispatchOptions & { retry: RetryRequest } {
    const { isFinal } = req;
    const retry: RetryRequest = {
      policy: req.retry ? { ...this.policy, ...req.retry } : this.policy,
      openBody: typeof req.body === 'function' ? req.body : undefined,
      noRetryStatuses: req.noRetryStatuses,
      // The error body, decoded and bounded as any other; one that cannot be read is judged as empty.
      isFinal:
        isFinal &&
        ((status, headers, chunks) =>
          this.read(Readable.from(chunks), { status, headers })
            .catch(() => '')
            .then((text) => isFinal(status, text))),
      holdLimit: this.maxResponseBytes,
      attempts: 0,
    };
    // The agent directly, with the URL split once: undici's `request(url)` parses a WHATWG URL per call. Every field
    // in one literal, so that every request's options have one shape.
    const { origin, path } = req.origin !== undefined && req.path !== undefined ? req : splitUrl(req.url);
    return {
      origin: origin!,
      path: path!,
      method: req.method,
      headers: req.headers,
      body: typeof req.body === 'string' ? req.body : undefined,
      cancel,
      url: req.url,
      attempt: 1,
      requestId: req.requestId,
      tally: req.tally,
      retry,
      traceAttributes: req.traceAttributes,
      // 0 is undici's "none": the call's own total timeout ends it first ({@link totalFirst}).
      headersTimeout: totalFirst && req.headersTimeoutMs === undefined ? 0 : req.headersTimeoutMs,
      bodyTimeout: totalFirst ? 0 : undefined,
    };
  }

  /** The error a caller gets for a request that ended without an answer (or whose body could not be read). */
  private failure(error: unknown, cancel: Cancellation, attempts: number): unknown {
    if (cancel.aborted) return cancel.reason ?? error;
    if (error instanceof GatewayError) return error;
    return this.networkError(error, attempts);
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
 * One buffered call between its dispatch and its answer: its entry in the deadlines (the total timeout aborts its
 * cancellation) and where the read answer arrives, to be handed on as a {@link BufferedResponse} or an error. One
 * object for what was an async frame, a timer and its closure per call.
 */
class BufferedCall extends Deadline implements Settle<ReceivedText> {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly cancel: Cancellation,
    readonly options: UpstreamDispatchOptions & { retry: RetryRequest },
    private readonly to: Settle<BufferedResponse>,
  ) {
    super();
  }

  expired(): void {
    this.cancel.abort(TOTAL_TIMEOUT);
  }

  resolve(answer: ReceivedText): void {
    this.http.deadlines.remove(this);
    this.cancel.release();
    this.to.resolve({
      status: answer.statusCode,
      headers: answer.headers,
      attempts: this.options.retry.attempts,
      text: answer.text,
    });
  }

  reject(error: unknown): void {
    this.http.deadlines.remove(this);
    const failure = this.http.bufferedFailure(error, this.cancel, this.options.retry.attempts);
    this.cancel.release();
    this.to.reject(failure);
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

/**
 * The split of a fixed start of URLs that a client joins paths or query parameters to (`UpstreamRequest.origin` and
 * `path`): made once, or undefined when it does not split back into itself (WHATWG parsing rewrote it), and its
 * requests then split their whole URL each.
 */
export function splitBase(base: string): { origin: string; path: string } | undefined {
  const at = splitUrl(base);
  return at.origin + at.path === base ? at : undefined;
}

function describeError(error: unknown): string {
  return (error as { code?: string })?.code ?? (error as Error)?.message ?? 'network error';
}
