import type { GatewayMetrics } from '../observability/metrics.js';

/** A use of shared state, as the fallback metric labels it. */
export type SharedStateUse =
  | 'quota'
  | 'ratelimit'
  | 'cache'
  | 'token'
  | 'lease'
  | 'channel'
  | 'counters'
  | 'responseCache'
  | 'documents'
  | 'budget'
  | 'holdings';

/**
 * What a replica does on its own while Redis fails: limits shrink to this replica's share (`GATEWAY_REPLICAS`
 * replicas each taking `limit / replicas`, rounded down, so together they stay within the limit), and every such
 * decision is counted.
 */
export class FallbackPolicy {
  constructor(
    /** GATEWAY_REPLICAS. @default 1 */
    readonly replicas: number,
    private readonly metrics: GatewayMetrics,
  ) {}

  /** This replica's share of `limit`. */
  share(limit: number): number {
    return Math.floor(limit / this.replicas);
  }

  used(use: SharedStateUse): void {
    this.metrics.sharedStateFallbacks.inc({ use });
  }
}
