import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/env.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { SharedState } from '../state/index.js';
import type { GatewayCredentials } from '../upstreams/credentials.js';
import type { UpstreamClients } from '../upstreams/clients.js';

/** Long-lived parts shared by every request of one gateway instance. */
export interface GatewayServices {
  config: GatewayConfig;
  metrics: GatewayMetrics;
  log: Logger;
  redact: (text: string) => string;
  /** Each upstream as resolved at start-up: live base URL, or the in-process sandbox's. */
  upstreams: ResolvedUpstream[];
  /** What replicas share (quota, rate limits, cache, tokens): in this process, or in Redis with REDIS_URL. */
  state: SharedState;
  /** Every upstream client, built once at start-up (src/upstreams/clients.ts). */
  clients: UpstreamClients;
  /** Long-lived per-domain state that is not a client (live feeds, the usage ledger, memos), made on first use by {@link shared}. */
  shared: Map<object, unknown>;
  /** The gateway's own upstream credentials as the upstreams last judged them (refusals, backoff, `/readyz`). */
  credentials: GatewayCredentials;
  /** Run on shutdown, after in-flight operations finished (close pools, flush). */
  onClose: Array<() => Promise<void> | void>;
}

/** What building the upstream clients needs: the services without the clients. */
export type UpstreamClientServices = Omit<GatewayServices, 'clients'>;

/**
 * The gateway-wide instance of something keyed by `key` (an upstream client, the OMDb cache), created on first use.
 * `create` may register cleanup in `services.onClose`.
 */
export function shared<T>(services: GatewayServices, key: object, create: (services: GatewayServices) => T): T {
  return memoized(services.shared, key, () => create(services));
}

export interface ResolvedUpstream {
  id: string;
  mode: 'live' | 'sandbox';
  baseUrl: string;
}

/** What the caller presented; never shared between requests. */
export interface CallerCredentials {
  /** The caller's `Authorization` header as sent (delegated Graph access forwards it). */
  authorization?: string;
  /** The gateway API key the caller presented (already checked): operations it starts itself (graph tools) run as it. */
  apiKey?: string;
  /** Who the caller is for fair shares: its API key when GATEWAY_API_KEYS is set, else its remote address. */
  client?: string;
}

/**
 * Per-request state: it is created for one HTTP request or one WebSocket operation and dies with it, so loaders and
 * caller credentials can never leak between two callers.
 */
export interface GatewayContext {
  requestId: string;
  /** Fires when the client goes away (HTTP connection closed, subscription completed, socket closed). */
  signal: AbortSignal;
  credentials: CallerCredentials;
  log: Logger;
  services: GatewayServices;
  /** Per-request loaders, created on first use by {@link perRequest}. */
  loaders: Map<object, unknown>;
}

/** The per-request instance of something keyed by `key` (a DataLoader, a planner cache), created on first use. */
export function perRequest<T>(ctx: GatewayContext, key: object, create: (ctx: GatewayContext) => T): T {
  return memoized(ctx.loaders, key, () => create(ctx));
}

/** The value `map` holds for `key`, made by `create` the first time it is asked for. */
function memoized<T>(map: Map<object, unknown>, key: object, create: () => T): T {
  let value = map.get(key) as T | undefined;
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller-supplied `x-request-id` when it is safe to log, else makes a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && REQUEST_ID.test(value) ? value : crypto.randomUUID();
}

export function createContext(
  services: GatewayServices,
  init: { requestId: string; signal: AbortSignal; authorization?: string; apiKey?: string; client?: string },
): GatewayContext {
  return new RequestContext(services, init.requestId, init.signal, { authorization: init.authorization, apiKey: init.apiKey, client: init.client });
}

/**
 * The per-request context as a class, so that what is made on first use stays on first use: Apollo Server copies the
 * context of every operation with `Object.assign` (its `cloneObject`), which calls an own getter but leaves the
 * prototype's alone. An object literal with `get log()` made a pino child for every request that way.
 */
class RequestContext implements GatewayContext {
  loaders = new Map<object, unknown>();
  /** Set by the first read of {@link log}. */
  private logger: Logger | undefined = undefined;

  constructor(
    readonly services: GatewayServices,
    readonly requestId: string,
    readonly signal: AbortSignal,
    readonly credentials: CallerCredentials,
  ) {}

  // Made on first use: most operations log nothing at the default level, and a pino child per request shows up in
  // the gateway's CPU per operation.
  get log(): Logger {
    return (this.logger ??= this.services.log.child({ requestId: this.requestId }));
  }
}
