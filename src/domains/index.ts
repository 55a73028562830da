import type { GatewayDomain } from '../config/env.js';
import type { DomainServices, GatewayServices } from '../context/services.js';
import type { Resolvers } from '../generated/resolvers.js';
import type { CostHints } from '../planning/cost.js';
import type { UpstreamEstimator } from '../planning/upstreamEstimate.js';
import { chatCostHints } from './chat/cost.js';
import { enterpriseCostHints } from './enterprise/cost.js';
import { titlesCostHints } from './titles/cost.js';
import { chatExamples, chatResolvers, estimateChatRequests } from './chat/index.js';
import { ChatDocuments } from './chat/documents/service.js';
import { createChatLedger } from './chat/usage/ledger.js';
import { enterpriseExamples, enterpriseResolvers, estimateGraphRequests } from './enterprise/index.js';
import { createLiveHealth, type LiveHealthOptions } from './enterprise/live/feed.js';
import { gatewayExamples, gatewayResolvers } from './gateway/resolvers.js';
import type { GraphiqlExample } from './graphiqlExample.js';
import { scalarResolvers } from './scalars/index.js';
import { estimateOmdbBeforeRun, titlesExamples, titlesResolvers } from './titles/index.js';

/**
 * Every domain's resolvers (no domain: the shared scalars, always served); `buildSchema` (src/schema/build.ts) merges
 * those of the served domains (GATEWAY_DOMAINS) onto the SDL of `schema/`.
 */
export const resolvers: Array<{ domain?: GatewayDomain; resolvers: Resolvers }> = [
  { resolvers: scalarResolvers },
  { domain: 'gateway', resolvers: gatewayResolvers },
  { domain: 'enterprise', resolvers: enterpriseResolvers },
  { domain: 'chat', resolvers: chatResolvers },
  { domain: 'titles', resolvers: titlesResolvers },
];

/** Every domain's estimate of the upstream requests an operation can cause (the upstream-request budget). */
export const upstreamEstimators: UpstreamEstimator[] = [estimateGraphRequests, estimateOmdbBeforeRun, estimateChatRequests];

/**
 * What every domain's planner knows of its fields' cost (which send upstream requests, how long lists are): the
 * SDL's `@cost` and `@listSize` for a router (src/schema/costDirectives.ts), and the gateway's own estimate.
 */
export const costHints: CostHints = { ...enterpriseCostHints, ...titlesCostHints, ...chatCostHints };

/** The tabs GraphiQL opens with on a first visit, the gateway's own first: useful operations of every domain. */
export const graphiqlExamples: readonly GraphiqlExample[] = [...gatewayExamples, ...enterpriseExamples, ...titlesExamples, ...chatExamples];

/** What a test may set in the domains' long-lived state. */
export interface DomainServicesOptions {
  liveHealth?: LiveHealthOptions;
}

/** Each domain's long-lived state, built once at start-up (its poller and ledger start work only when used). */
export function createDomainServices(services: GatewayServices, options: DomainServicesOptions = {}): DomainServices {
  return { liveHealth: createLiveHealth(services, options.liveHealth), chatUsage: createChatLedger(services), chatDocuments: new ChatDocuments(services) };
}
