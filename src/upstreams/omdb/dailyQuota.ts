/**
 * Upstream requests sent per UTC day, against `OMDB_DAILY_QUOTA` (OMDb's free keys allow 1,000 a day). The client
 * takes one unit before each request and never sends without one, so the gateway cannot cross the quota.
 */
export class DailyQuota {
  private day = '';
  private used = 0;

  constructor(
    readonly limit: number,
    private readonly onChange: (remaining: number) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    onChange(limit);
  }

  private roll(): void {
    const day = new Date(this.now()).toISOString().slice(0, 10);
    if (day !== this.day) {
      this.day = day;
      this.used = 0;
    }
  }

  remaining(): number {
    this.roll();
    return Math.max(0, this.limit - this.used);
  }

  /** Takes `n` units when that many remain; false (and nothing taken) otherwise. */
  take(n = 1): boolean {
    if (this.remaining() < n) return false;
    this.used += n;
    this.onChange(this.remaining());
    return true;
  }

  /** Counts requests that were sent beyond the units taken (retries), so the count stays true. */
  add(n: number): void {
    this.roll();
    this.used += n;
    this.onChange(this.remaining());
  }

  /** OMDb said its limit is reached: send nothing more until the next UTC day. */
  exhaust(): void {
    this.roll();
    this.used = Math.max(this.used, this.limit);
    this.onChange(0);
  }

  /** Seconds until the quota starts afresh (00:00 UTC). */
  secondsUntilReset(): number {
    const now = this.now();
    const midnight = new Date(now);
    midnight.setUTCHours(24, 0, 0, 0);
    return Math.ceil((midnight.getTime() - now) / 1000);
  }
}
