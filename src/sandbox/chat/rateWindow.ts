const WINDOW_MS = 60_000;

export interface RateVerdict {
  ok: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest request in the window leaves it (when a new one would be accepted again). */
  resetSec: number;
}

/** Sliding 60-second window of accepted requests, over the sandbox clock. */
export class RateWindow {
  private hits: number[] = [];

  /** Counts a request at `now` unless `limit` were already accepted in the 60 s before it. */
  take(now: number, limit: number): RateVerdict {
    while (this.hits.length > 0 && this.hits[0] <= now - WINDOW_MS) this.hits.shift();
    const ok = this.hits.length < limit;
    if (ok) this.hits.push(now);
    const resetSec = Math.max(1, Math.ceil((this.hits[0] + WINDOW_MS - now) / 1000));
    return { ok, limit, remaining: limit - this.hits.length, resetSec };
  }

  clear(): void {
    this.hits = [];
  }
}
