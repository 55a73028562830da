import { sleep } from '../http/retry.js';

/** Options of one {@link RateLimiter}. */
export interface RateLimiterOptions {
  /** Requests allowed in any 60-second window. */
  perMinute: number;
  /** Longest a request waits for a free slot before it is refused. @default 2000 */
  maxWaitMs?: number;
  /** @default Date.now */
  now?: () => number;
}

export type RateVerdict = { ok: true } | { ok: false; retryAfterMs: number };

const WINDOW_MS = 60_000;

/**
 * A client-side sliding-window limiter: the gateway sends no more than `perMinute` requests to a provider in any
 * 60 s, the way providers count. A request that would exceed it waits in line when its slot frees within
 * `maxWaitMs`, else is refused at once with the time its slot would free, so callers learn when to retry instead
 * of piling up.
 */
export class RateLimiter {
  /** Start times granted or reserved, ascending; a reservation in the future is a request waiting in line. */
  private slots: number[] = [];
  private readonly maxWaitMs: number;
  private readonly now: () => number;

  constructor(private readonly options: RateLimiterOptions) {
    this.maxWaitMs = options.maxWaitMs ?? 2_000;
    this.now = options.now ?? Date.now;
  }

  /** Takes a slot, waiting for it when allowed; the signal withdraws a waiting request. */
  async acquire(signal?: AbortSignal): Promise<RateVerdict> {
    const now = this.now();
    while (this.slots.length && this.slots[0] <= now - WINDOW_MS) this.slots.shift();
    const limit = this.options.perMinute;
    const at = this.slots.length < limit ? now : this.slots[this.slots.length - limit] + WINDOW_MS;
    const wait = at - now;
    if (wait > this.maxWaitMs) return { ok: false, retryAfterMs: wait };
    this.slots.push(at);
    if (wait > 0) {
      try {
        await sleep(wait, signal);
      } catch (error) {
        const i = this.slots.lastIndexOf(at);
        if (i !== -1) this.slots.splice(i, 1);
        throw error;
      }
    }
    return { ok: true };
  }
}
