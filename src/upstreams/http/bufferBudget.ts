/**
 * Bytes of upstream response bodies held in memory at once, across every upstream and request of the gateway
 * (UPSTREAM_MAX_BUFFERED_BYTES). UPSTREAM_MAX_RESPONSE_BYTES bounds one body; this bounds their sum, so the memory
 * buffered bodies can take is one figure, not the per-body cap times the requests in flight. A body's bytes are taken
 * chunk by chunk as they arrive and given back once it is parsed or failed.
 */
export class ResponseBufferBudget {
  private held = 0;

  /** @param limit bytes held at once. @default 67108864 (64 MiB) */
  constructor(readonly limit: number) {}

  /** Bytes held now. */
  get inUse(): number {
    return this.held;
  }

  /** Takes `bytes` when they fit; false (and nothing taken) when they would cross the limit. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }
}

export const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024 * 1024;
