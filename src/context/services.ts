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
 * start-up from the {@link CoreServices} (each domain's `services`, domains/domain.ts). Each domain declares its own entry beside the code that
 * defines it (`declare module '…/context/services.js'`), so this module imports no domain.
 */
export interface DomainServices {}

/** What the gateway has before its domains' state: what that state is built from (app/gatewayCore.ts). */
export interface CoreServices extends UpstreamDependencies {
  /** Each upstream of every domain as resolved at start-up: live base URL, or the in-process sandbox's. */
  upstreams: ResolvedUpstream[];
  /** Every upstream client (upstreams/clients.ts). */
  clients: UpstreamClients;
  /** The one error formatter of every entry: transports, /mcp, chat graph tools (errors/format.ts). */
  formatErrors: ErrorFormatter;
}

/**
 * The long-lived parts of one gateway instance, built once at start-up in dependency order (app/gatewayCore.ts) and
 * shared by every request: the {@link CoreServices}, each domain's state and the trusted operations.
 */
export interface GatewayServices extends CoreServices {
  /** The trusted operations, for the /mcp tools and chat graph tools alike (trusted/toolset.ts). */
  trusted: TrustedToolset;
  /** Each domain's long-lived state. */
  domains: DomainServices;
}
