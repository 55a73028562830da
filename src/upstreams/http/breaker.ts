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
    if (this.options.threshold === 0 || this.current === 'closed') return { ok: true };
    const elapsed = this.now() - this.openedAt;
    if (this.current === 'open' && elapsed >= this.options.cooldownMs) this.set('half-open');
    if (this.current === 'half-open' && !this.probing) {
      this.probing = true;
      return { ok: true };
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
