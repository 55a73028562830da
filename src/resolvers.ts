import type { Resolvers } from './generated/resolvers.js';
import { gatewayResolvers } from './domains/gateway/resolvers.js';

/** Every domain's resolvers; `makeExecutableSchema` merges them onto the SDL of `schema/`. */
export const resolvers: Resolvers[] = [gatewayResolvers];
