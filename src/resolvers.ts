import type { Resolvers } from './generated/resolvers.js';
import { chatResolvers } from './domains/chat/index.js';
import { enterpriseResolvers } from './domains/enterprise/index.js';
import { gatewayResolvers } from './domains/gateway/resolvers.js';
import { titlesResolvers } from './domains/titles/index.js';

/** Every domain's resolvers; `makeExecutableSchema` merges them onto the SDL of `schema/`. */
export const resolvers: Resolvers[] = [gatewayResolvers, enterpriseResolvers, chatResolvers, titlesResolvers];
