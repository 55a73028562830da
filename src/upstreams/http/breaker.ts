import type { Dispatcher } from 'undici';
import { ErrorCode, upstreamError } from '../../errors/codes.js';
import { UpstreamCode } from '../codes.js';
import {
  cancelledBy,
  ForwardingHandler,
  TOTAL_TIMEOUT,
  type UpstreamDispatchOptions,
  type ResponseHeaders,
} from './dispatch.js';

/**
 * A circuit breaker per upstream: after `threshold` consecutive failed requests (no answer, timeouts, 5xx once
 * retries are spent) it opens and the gateway answers at once instead of queueing callers behind a dead service.
 * After `cooldownMs` one probe is let through (half-open); its success closes the circuit, its failure reopens it.
 */
export interface BreakerOptions {
  /** Consecutive failures that open the circuit; 0 disables the breaker. @default 5 */
  threshold: number;
  /** How long the circuit stays open before a probe. @default 5000 */
  cooldownMs: number;
}

export const DEFAULT_BREAKER: BreakerOptions = { threshold: 5, cooldownMs: 5_000 };

export type BreakerState = 'closed' | 'open' | 'half-open';

/** The answer of {@link CircuitBreaker.admit} that lets a request through: one object, not one per request. */
const ADMITTED = Object.freeze({ ok: true } as const);

export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private current: BreakerState = 'closed';

  constructor(
    private readonly options: BreakerOptions,
    /** Told each change, with the id of the request whose outcome caused it. */
    private readonly onChange: (state: BreakerState, requestId: string | undefined) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): BreakerState {
    return this.current;
  }

  /** Whether a request may go out now; when not, the milliseconds until the next probe. */
  admit(): { ok: true } | { ok: false; retryInMs: number } {
    if (this.options.threshold === 0 || this.current === 'closed') return ADMITTED;
    const elapsed = this.now() - this.openedAt;
    if (this.current === 'open' && elapsed >= this.options.cooldownMs) this.set('half-open');
    if (this.current === 'half-open' && !this.probing) {
      this.probing = true;
      return ADMITTED;
    }
    return { ok: false, retryInMs: Math.max(0, this.options.cooldownMs - elapsed) };
  }

  success(requestId?: string): void {
    this.failures = 0;
    this.probing = false;
    if (this.current !== 'closed') this.set('closed', requestId);
  }

  failure(requestId?: string): void {
    this.probing = false;
    this.failures++;
    if (this.options.threshold > 0 && (this.current === 'half-open' || this.failures >= this.options.threshold)) {
      this.openedAt = this.now();
      this.set('open', requestId);
    }
  }

  /** A request that ended without telling anything about the upstream's health (cancelled by the caller). */
  release(): void {
    this.probing = false;
  }

  private set(state: BreakerState, requestId?: string): void {
    this.current = state;
    this.onChange(state, requestId);
  }
}

/**
 * The breaker around one request with all its attempts (it sits outside the retry interceptor): the final outcome
 * counts, not each attempt. An open circuit refuses at once with `upstreamCode` {@link UpstreamCode.CircuitOpen}.
 * A 5xx or no answer is a failure; a caller who left says nothing about the upstream's health, a timeout does.
 */
export function guarded(upstream: string, breaker: CircuitBreaker): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) => {
    const admitted = breaker.admit();
    if (!admitted.ok) {
      const seconds = Math.ceil(admitted.retryInMs / 1000);
      throw upstreamError(
        ErrorCode.UpstreamError,
        `The ${upstream} service is failing: the gateway paused calls to it (circuit open); retry in ${seconds} s.`,
        {
          upstream,
          retryAfter: seconds,
          upstreamCode: UpstreamCode.CircuitOpen,
        },
      );
    }
    return dispatch(opts, new Guarded(handler, breaker, opts as UpstreamDispatchOptions));
  };
}

class Guarded extends ForwardingHandler {
  private told = false;

  constructor(
    next: Dispatcher.DispatchHandler,
    private readonly breaker: CircuitBreaker,
    private readonly opts: UpstreamDispatchOptions,
  ) {
    super(next);
  }

  override onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: ResponseHeaders,
    message?: string,
  ): void {
    this.tell(status >= 500 ? 'failure' : 'success');
    super.onResponseStart(controller, status, headers, message);
  }

  override onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    const cancelled = cancelledBy(this.opts);
    this.tell(cancelled && cancelled.reason !== TOTAL_TIMEOUT ? 'release' : 'failure');
    super.onResponseError(controller, error);
  }

  private tell(outcome: 'success' | 'failure' | 'release'): void {
    if (this.told) return;
    this.told = true;
    if (outcome === 'release') this.breaker.release();
    else this.breaker[outcome](this.opts.requestId);
  }
}
