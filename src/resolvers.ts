import type { Resolvers } from './generated/resolvers.js';
import { chatResolvers, estimateChatRequests } from './domains/chat/index.js';
import { enterpriseResolvers, estimateGraphRequests } from './domains/enterprise/index.js';
import { gatewayResolvers } from './domains/gateway/resolvers.js';
import { estimateOmdbBeforeRun, titlesResolvers } from './domains/titles/index.js';
import type { UpstreamEstimator } from './runtime/upstreamBudget.js';

/** Every domain's resolvers; `buildSchema` (src/server/schema.ts) merges them onto the SDL of `schema/`. */
export const resolvers: Resolvers[] = [gatewayResolvers, enterpriseResolvers, chatResolvers, titlesResolvers];

/** Every domain's estimate of the upstream requests an operation can cause (the upstream-request budget). */
export const upstreamEstimators: UpstreamEstimator[] = [estimateGraphRequests, estimateOmdbBeforeRun, estimateChatRequests];
