import type { GatewayDomain } from '../config/env.js';
import type { Resolvers } from '../generated/resolvers.js';
import { chatResolvers, estimateChatRequests } from './chat/index.js';
import { enterpriseResolvers, estimateGraphRequests } from './enterprise/index.js';
import { gatewayResolvers } from './gateway/resolvers.js';
import { estimateOmdbBeforeRun, titlesResolvers } from './titles/index.js';
import type { UpstreamEstimator } from '../planning/upstreamEstimate.js';

/**
 * Every domain's resolvers (no domain: the gateway's own, always served); `buildSchema` (src/schema/build.ts) merges
 * those of the served domains (GATEWAY_DOMAINS) onto the SDL of `schema/`.
 */
export const resolvers: Array<{ domain?: GatewayDomain; resolvers: Resolvers }> = [
  { resolvers: gatewayResolvers },
  { domain: 'enterprise', resolvers: enterpriseResolvers },
  { domain: 'chat', resolvers: chatResolvers },
  { domain: 'titles', resolvers: titlesResolvers },
];

/** Every domain's estimate of the upstream requests an operation can cause (the upstream-request budget). */
export const upstreamEstimators: UpstreamEstimator[] = [estimateGraphRequests, estimateOmdbBeforeRun, estimateChatRequests];
