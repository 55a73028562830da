/** OMDb's per-key daily request limit, counted per UTC day of the sandbox clock. */
export class DailyQuota {
  private day = '';
  private readonly counts = new Map<string, number>();

  /** Counts one request of `key`; false once `key` has made more than `limit` requests this UTC day. */
  take(key: string, nowMs: number, limit: number): boolean {
    const day = new Date(nowMs).toISOString().slice(0, 10);
    if (day !== this.day) {
      this.day = day;
      this.counts.clear();
    }
    const used = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, used);
    return used <= limit;
  }

  clear(): void {
    this.day = '';
    this.counts.clear();
  }
}
