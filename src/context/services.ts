import type { ErrorFormatter } from '../errors/format.js';
import type { TrustedToolset } from '../trusted/toolset.js';
import type { UpstreamClients } from '../upstreams/clients.js';
import type { UpstreamDependencies } from '../upstreams/dependencies.js';

/** An upstream as resolved at start-up: its live base URL, or the in-process sandbox's. */
export interface ResolvedUpstream {
  id: string;
  mode: 'live' | 'sandbox';
  baseUrl: string;
  /** Its domain is served here (GATEWAY_DOMAINS): this instance calls it. */
  served: boolean;
}

/**
 * Long-lived state a domain keeps for the whole gateway (the live health feed, the chat usage ledger), built once at
 * start-up (`createDomainServices` in domains/index.ts). Each domain declares its own entry beside the code that
 * defines it (`declare module '…/context/services.js'`), so this module imports no domain.
 */
export interface DomainServices {}

/**
 * The long-lived parts of one gateway instance, built once at start-up (app/gateway.ts) and shared by every request:
 * what the upstream clients are built from, the clients themselves, the trusted operations and each domain's state.
 */
export interface GatewayServices extends UpstreamDependencies {
  /** Each upstream of every domain as resolved at start-up: live base URL, or the in-process sandbox's. */
  upstreams: ResolvedUpstream[];
  /** Every upstream client (upstreams/clients.ts). */
  clients: UpstreamClients;
  /** The trusted operations, for the /mcp tools and chat graph tools alike (trusted/toolset.ts). */
  trusted: TrustedToolset;
  /** Each domain's long-lived state. */
  domains: DomainServices;
  /** The one error formatter of every entry: transports, /mcp, chat graph tools (errors/format.ts). */
  formatErrors: ErrorFormatter;
}
