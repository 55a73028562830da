import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { TalliedCounter, TalliedHistogram } from './tallied.js';

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Prometheus metrics of one gateway instance (its own registry, so several gateways can live in one test process).
 * Those observed on every operation or upstream request are tallied (tallied.ts): plain counts, handed to prom-client
 * when scraped.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly httpRequests = new TalliedCounter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests served, by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new TalliedHistogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['route'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly operations = new TalliedCounter({
    name: 'gateway_graphql_operations_total',
    help: 'GraphQL operations by type, name and outcome',
    labelNames: ['type', 'name', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly operationDuration = new TalliedHistogram({
    name: 'gateway_graphql_operation_duration_seconds',
    help: 'GraphQL operation latency by type and name',
    labelNames: ['type', 'name'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly subscriptionsStarted = new Counter({
    name: 'gateway_graphql_subscriptions_started_total',
    help: 'Subscriptions started over graphql-ws and over HTTP callbacks',
    registers: [this.registry],
  });
  readonly streamSlowClientCloses = new Counter({
    name: 'gateway_stream_slow_client_closes_total',
    help: 'Streaming clients closed as too slow, by transport (ws, sse, multipart) and reason: buffer_full (more than STREAM_MAX_BUFFERED_BYTES unsent) or stalled (nothing read for STREAM_STALL_TIMEOUT_MS)',
    labelNames: ['transport', 'reason'] as const,
    registers: [this.registry],
  });
  readonly streamPauses = new Counter({
    name: 'gateway_stream_pauses_total',
    help: "Times a stream stopped reading its upstream because its client's unsent bytes passed a quarter of STREAM_MAX_BUFFERED_BYTES, by transport",
    labelNames: ['transport'] as const,
    registers: [this.registry],
  });
  readonly streamBufferedBytesPeak = new Gauge({
    name: 'gateway_stream_buffered_bytes_peak',
    help: 'Most unsent bytes one streaming connection held at once since start, by transport',
    labelNames: ['transport'] as const,
    registers: [this.registry],
  });
  readonly operationCost = new TalliedHistogram({
    name: 'gateway_operation_cost',
    help: 'Cost of each operation (demand control: objects, and 10 per upstream request), estimated before it runs and actual when it ends.',
    labelNames: ['measure'] as const,
    buckets: [0, 1, 10, 30, 100, 300, 1000, 3000, 10000, 30000],
    registers: [this.registry],
  });
  readonly operationUpstreamRequests = new TalliedHistogram({
    name: 'gateway_operation_upstream_requests',
    help: 'Upstream requests of each operation, estimated by the planners before it runs and actually sent.',
    labelNames: ['measure'] as const,
    buckets: [0, 1, 2, 3, 5, 10, 20, 50, 100],
    registers: [this.registry],
  });
  readonly costRefusals = new Counter({
    name: 'gateway_cost_refusals_total',
    help: 'Operations refused by demand control, by the limit that refused them (MAX_OPERATION_COST, CLIENT_COST_PER_MINUTE, CLIENT_COST_PER_DAY).',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });
  readonly fairShareRefusals = new Counter({
    name: 'gateway_fair_share_refusals_total',
    help: 'Connections and operations refused with RATE_LIMITED by a cap, by the cap they were over (MAX_CONNECTIONS, CLIENT_MAX_CONNECTIONS, CLIENT_MAX_SUBSCRIPTIONS, CLIENT_MAX_CHAT_STREAMS, MAX_SUBSCRIPTIONS, GATEWAY_WS_MAX_OPERATIONS)',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });
  private readonly bufferedPeaks = new Map<string, number>();
  readonly upstreamRequests = new TalliedCounter({
    name: 'gateway_upstream_requests_total',
    help: 'Requests sent to upstreams, by upstream and status (0 = no response)',
    labelNames: ['upstream', 'status'] as const,
    registers: [this.registry],
  });
  readonly upstreamDuration = new TalliedHistogram({
    name: 'gateway_upstream_request_duration_seconds',
    help: 'Upstream request latency until the response headers',
    labelNames: ['upstream'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly upstreamRetries = new Counter({
    name: 'gateway_upstream_retries_total',
    help: 'Upstream requests retried, by upstream and reason',
    labelNames: ['upstream', 'reason'] as const,
    registers: [this.registry],
  });

  readonly upstreamBreakerState = new Gauge({
    name: 'gateway_upstream_circuit_state',
    help: 'Circuit breaker per upstream: 0 closed, 1 half-open, 2 open',
    labelNames: ['upstream'] as const,
    registers: [this.registry],
  });
  readonly upstreamCache = new TalliedCounter({
    name: 'gateway_upstream_cache_lookups_total',
    help: 'Shared upstream cache lookups: hit, coalesced (joined an identical request in flight) or miss',
    labelNames: ['upstream', 'result'] as const,
    registers: [this.registry],
  });
  /** Each upstream's latest quota count ({@link quotaRemaining}), handed to the gauge when it is read. */
  private readonly quotaCounts = new Map<string, number>();
  readonly upstreamQuotaRemaining: Gauge<'upstream'> = new Gauge({
    name: 'gateway_upstream_quota_remaining',
    help: 'Upstream requests the gateway may still send this UTC day (OMDb daily quota)',
    labelNames: ['upstream'] as const,
    registers: [this.registry],
    collect: () => {
      for (const [upstream, remaining] of this.quotaCounts) this.upstreamQuotaRemaining.set({ upstream }, remaining);
    },
  });

  /**
   * An upstream's quota count as it changes (every OMDb request): kept as a number, set on the gauge at scrape;
   * prom-client's labelled `set` per request was ≈ 0.4 % of a title lookup's samples.
   */
  quotaRemaining(upstream: string, remaining: number): void {
    this.quotaCounts.set(upstream, remaining);
  }

  readonly redisUp = new Gauge({
    name: 'gateway_redis_up',
    help: 'Whether the shared-state Redis (REDIS_URL) is connected: 1 yes, 0 no (per-replica fallback in force)',
    registers: [this.registry],
  });
  readonly redisCommandDuration = new Histogram({
    name: 'gateway_redis_command_duration_seconds',
    help: 'Shared-state Redis command latency by use (quota.reserve, ratelimit.acquire, cache.get, …)',
    labelNames: ['command'] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [this.registry],
  });
  readonly redisCommandErrors = new Counter({
    name: 'gateway_redis_command_errors_total',
    help: 'Shared-state Redis commands that failed, by use and reason (timeout, unavailable, error, circuit_open: refused unsent while Redis hangs)',
    labelNames: ['command', 'reason'] as const,
    registers: [this.registry],
  });
  readonly redisProbes = new Counter({
    name: 'gateway_redis_probes_total',
    help: 'PINGs sent to a Redis that hangs (circuit open) to find out when it answers again',
    registers: [this.registry],
  });
  readonly sharedStateFallbacks = new Counter({
    name: 'gateway_shared_state_fallbacks_total',
    help: 'Decisions taken by the per-replica fallback because Redis failed, by use (quota, ratelimit, cache, token, lease, channel, counters)',
    labelNames: ['use'] as const,
    registers: [this.registry],
  });

  private readonly names = new Set<string>();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Operation names come from clients: cap distinct label values so a client cannot explode the series count. */
  operationLabel(name: string | null | undefined): string {
    if (!name) return 'anonymous';
    if (this.names.has(name)) return name;
    if (this.names.size >= 200 || !/^[_A-Za-z][_0-9A-Za-z]{0,63}$/.test(name)) return 'other';
    this.names.add(name);
    return name;
  }

  /** Raises the peak of unsent bytes held by one connection of `transport`, when `bytes` is above it. */
  noteStreamBuffered(transport: string, bytes: number): void {
    if (bytes <= (this.bufferedPeaks.get(transport) ?? 0)) return;
    this.bufferedPeaks.set(transport, bytes);
    this.streamBufferedBytesPeak.set({ transport }, bytes);
  }
}
