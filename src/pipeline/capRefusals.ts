import type { Logger } from 'pino';
import { ErrorCode, GatewayError } from '../errors/codes.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { OncePerCause } from '../observability/oncePerCause.js';

/** The caps a refusal can name: how many of something one connection, one client or the gateway may hold at once. */
export type CapName =
  | 'GATEWAY_WS_MAX_OPERATIONS'
  | 'CLIENT_MAX_CONNECTIONS'
  | 'CLIENT_MAX_SUBSCRIPTIONS'
  | 'CLIENT_MAX_CHAT_STREAMS'
  | 'MAX_CONNECTIONS'
  | 'MAX_SUBSCRIPTIONS';

/**
 * What lifts each cap, as the refusal says it: the setting to raise and, for the caps a federation router meets
 * because it carries many clients, the key it presents (docs/federation.md, "Router settings").
 */
const FIXES: Record<CapName, string> = {
  GATEWAY_WS_MAX_OPERATIONS:
    'Open another connection or raise GATEWAY_WS_MAX_OPERATIONS; a federation router presents a key of TRUSTED_ROUTER_KEYS (its connection is not bound by this cap).',
  CLIENT_MAX_CONNECTIONS:
    'Close some or raise CLIENT_MAX_CONNECTIONS; a federation router presents a key of TRUSTED_ROUTER_KEYS (its connections count against no client).',
  CLIENT_MAX_SUBSCRIPTIONS:
    'Close some or raise CLIENT_MAX_SUBSCRIPTIONS; a federation router presents a key of TRUSTED_ROUTER_KEYS and names each end client in ROUTER_CLIENT_HEADER (each then has a share of its own).',
  CLIENT_MAX_CHAT_STREAMS:
    'Wait for one to finish or raise CLIENT_MAX_CHAT_STREAMS; a federation router presents a key of TRUSTED_ROUTER_KEYS and names each end client in ROUTER_CLIENT_HEADER (each then has a share of its own).',
  MAX_CONNECTIONS: 'Retry later, raise MAX_CONNECTIONS or add replicas.',
  MAX_SUBSCRIPTIONS: 'Retry later, raise MAX_SUBSCRIPTIONS or add replicas.',
};

/** One cap that refused: its variable, its value, what it counts and whose share it bounds. */
export interface Cap {
  limit: CapName;
  max: number;
  /** What it counts, plural: `open subscriptions`. */
  what: string;
  /** Whose share: `one client`, `one connection`, `the gateway`. */
  holder: string;
}

/**
 * Refusals by the gateway's caps, each alike wherever it is decided (fair share, the graphql-ws connection): code
 * RATE_LIMITED, `extensions.limit` naming the cap's variable, `max` its value and `fix` what lifts it; counted in
 * `gateway_fair_share_refusals_total{limit}`, and said in the log once per cap a minute with the repeats left out, so
 * whoever runs the gateway sees which cap a router or client meets without a line per refused operation.
 */
export class CapRefusals {
  private readonly logged = new OncePerCause({ windowMs: 60_000, maxPerWindow: 16 });

  constructor(
    private readonly options: {
      metrics?: GatewayMetrics;
      log?: Pick<Logger, 'warn'>;
    } = {},
  ) {}

  refuse(cap: Cap, now = Date.now()): GatewayError {
    const { limit, max, what, holder } = cap;
    this.options.metrics?.fairShareRefusals.inc({ limit });
    const fix = FIXES[limit];
    const error = new GatewayError(
      ErrorCode.RateLimited,
      `Too many ${what}: ${limit} allows ${max} for ${holder}. ${fix}`,
      { limit, max, fix },
    );
    const suppressed = this.options.log && this.logged.take(limit, now);
    if (suppressed !== undefined)
      this.options.log!.warn(
        { limit, max, ...(suppressed ? { suppressed } : {}) },
        `refused with RATE_LIMITED: ${error.message}`,
      );
    return error;
  }
}
