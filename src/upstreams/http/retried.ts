import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { GatewayMetrics } from '../../observability/metrics.js';
import type { UpstreamDispatchOptions } from './dispatch.js';
import { isRetryable, parseRetryAfter, retryDelay, type RetryPolicy } from './retry.js';

export interface RetriedOptions {
  upstream: string;
  metrics: GatewayMetrics;
  log: Logger;
}

/** What the retry interceptor reads from each request besides undici's options. */
export interface RetryRequest {
  policy: RetryPolicy;
  /** Opens the request body again for each attempt (a file read from disk). */
  openBody?: () => Readable;
  noRetryStatuses?: readonly number[];
  isFinal?: (status: number, headers: Headers, body: Buffer[]) => Promise<boolean>;
  /** Most bytes of an error body held for `isFinal` (UPSTREAM_MAX_RESPONSE_BYTES); a longer one is cut and retried. */
  holdLimit: number;
  /** Told the attempts made so far (the facade reports `attempts`, OMDb charges its quota for them). */
  attempts: number;
}

type Headers = Record<string, string | string[] | undefined>;
type Handler = Dispatcher.DispatchHandler;
type Controller = Dispatcher.DispatchController;

/**
 * The gateway's own retry interceptor, not undici's `interceptors.retry`: that one (7.30.2, `RetryHandler`) turns a
 * last retryable status into a `RequestRetryError` instead of handing the answer (Graph's 429 envelope, OMDb's body)
 * to the client's error mapping; it has no total budget for the waits (a `Retry-After` beyond the operation's
 * deadline is slept through), cannot ask the caller whether a 429 body means "quota spent" (`isFinal`), and cannot
 * reopen a streamed request body per attempt. The decision itself is retry.ts's `retryDelay`, which Graph's `$batch`
 * items use too.
 */
export function retried(options: RetriedOptions): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    new Retrying(dispatch, opts as UpstreamDispatchOptions & { retry: RetryRequest }, handler, options).send();
    return true;
  };
}

/**
 * One request through its attempts: each attempt's answer is handed on only once no retry follows it. It is also the
 * one controller the caller's handler sees across attempts (one object per request, not two): pausing reaches the
 * attempt in flight, aborting also ends a wait.
 */
class Retrying implements Handler, Controller {
  private attempt = 0;
  private waited = 0;
  private current: Controller | undefined;
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  /** Why the caller aborted the request, once it did. */
  private abortedBy: Error | undefined;
  /** This attempt's answer goes to the caller. */
  private forwarding = false;
  /** This attempt's answer is held back: dropped before a retry, or kept for `isFinal` (its chunks). */
  private held:
    | { status: number; headers: Headers; message?: string; delay: number; chunks?: Buffer[]; size: number }
    | undefined;
  private body: Readable | undefined;

  constructor(
    private readonly dispatch: Dispatcher.Dispatch,
    private readonly opts: UpstreamDispatchOptions & { retry: RetryRequest },
    private readonly next: Handler,
    private readonly options: RetriedOptions,
  ) {}

  send(): void {
    this.attempt++;
    this.opts.retry.attempts = this.attempt;
    this.forwarding = false;
    this.held = undefined;
    this.body = this.opts.retry.openBody?.();
    // The options are this request's own (client.ts builds them per call): each attempt updates them in place.
    this.opts.attempt = this.attempt;
    if (this.body) this.opts.body = this.body;
    try {
      this.dispatch(this.opts, this);
    } catch (error) {
      this.onResponseError(this.current!, error as Error);
    }
  }

  onRequestStart(controller: Controller, context: unknown): void {
    this.current = controller;
    if (this.abortedBy) controller.abort(this.abortedBy);
    if (this.started) return;
    this.started = true;
    this.next.onRequestStart?.(this, context);
  }

  onRequestUpgrade(_controller: Controller, status: number, headers: Headers, socket: never): void {
    this.next.onRequestUpgrade?.(this, status, headers, socket);
  }

  onResponseStart(_controller: Controller, status: number, headers: Headers, message?: string): void {
    const { retry, method } = this.opts;
    const delay =
      isRetryable(retry.policy, method, status) && !retry.noRetryStatuses?.includes(status)
        ? retryDelay(retry.policy, this.attempt, this.waited, parseRetryAfter(headers['retry-after']))
        : undefined;
    if (delay === undefined) {
      this.forwarding = true;
      this.next.onResponseStart?.(this, status, headers, message);
    } else this.held = { status, headers, message, delay, chunks: retry.isFinal ? [] : undefined, size: 0 };
  }

  onResponseData(_controller: Controller, chunk: Buffer): void {
    if (this.forwarding) return this.next.onResponseData?.(this, chunk);
    const held = this.held;
    if (!held?.chunks) return;
    held.size += chunk.length;
    if (held.size <= this.opts.retry.holdLimit) return void held.chunks.push(chunk);
    // An endless "error" body is not read on: the attempt ends here and the retry goes ahead.
    held.chunks = undefined;
    this.current?.abort(new Error(`a ${held.status} body past ${this.opts.retry.holdLimit} bytes`));
  }

  onResponseEnd(_controller: Controller, trailers: Headers): void {
    this.closeBody();
    if (this.forwarding) return this.next.onResponseEnd?.(this, trailers);
    const held = this.held!;
    if (!held.chunks) return this.later(held.status, held.delay, held.headers);
    // The error body is small (a 429's envelope): the caller reads it to tell "slow down" from "quota spent".
    this.opts.retry.isFinal!(held.status, held.headers, held.chunks).then(
      (final) => {
        if (this.abortedBy) return this.next.onResponseError?.(this, this.abortedBy);
        if (!final) return this.later(held.status, held.delay, held.headers);
        this.forwarding = true;
        this.next.onResponseStart?.(this, held.status, held.headers, held.message);
        for (const chunk of held.chunks!) this.next.onResponseData?.(this, chunk);
        this.next.onResponseEnd?.(this, trailers);
      },
      () => this.later(held.status, held.delay, held.headers),
    );
  }

  onResponseError(_controller: Controller, error: Error): void {
    this.closeBody();
    if (this.abortedBy || this.forwarding) return this.next.onResponseError?.(this, this.abortedBy ?? error);
    // A refused answer whose body broke off while it was dropped: the retry goes ahead.
    if (this.held) return this.later(this.held.status, this.held.delay, this.held.headers);
    const { retry, method } = this.opts;
    const delay = isRetryable(retry.policy, method, 'network')
      ? retryDelay(retry.policy, this.attempt, this.waited, undefined)
      : undefined;
    if (delay === undefined) return this.next.onResponseError?.(this, error);
    this.later('network', delay);
  }

  /** Sends the next attempt after `delay` ms; aborting the controller meanwhile ends the wait at once. */
  private later(status: number | 'network', delay: number, headers?: Headers): void {
    const { upstream, metrics, log } = this.options;
    this.waited += delay;
    this.current = undefined;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.send();
    }, delay);
    // Told once the wait is set: an abort from anything it calls (a log stream) ends the wait, not the past attempt.
    metrics.upstreamRetries.inc({ upstream, reason: String(status) });
    const retryAfter = headers && parseRetryAfter(headers['retry-after']);
    log.info(
      { requestId: this.opts.requestId, upstream, status, attempt: this.attempt, delayMs: delay, retryAfter },
      'retrying upstream request',
    );
  }

  /** A streamed request body the upstream answered before reading to its end (or never read) closes its file here. */
  private closeBody(): void {
    if (this.body && !this.body.readableEnded) this.body.destroy();
  }

  // The controller the caller's handler sees.

  get aborted(): boolean {
    return this.abortedBy !== undefined;
  }

  get paused(): boolean {
    return this.current?.paused ?? false;
  }

  get reason(): Error | null {
    return this.abortedBy ?? null;
  }

  abort(reason: Error): void {
    if (this.abortedBy) return;
    this.abortedBy = reason;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.next.onResponseError?.(this, reason);
    } else this.current?.abort(reason);
  }

  pause(): void {
    this.current?.pause();
  }

  resume(): void {
    this.current?.resume();
  }
}
