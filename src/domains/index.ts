import type { GatewayDomain } from '../config/env.js';
import type { CoreServices, DomainServices } from '../context/services.js';
import type { CostHints } from '../planning/cost.js';
import { chat } from './chat/index.js';
import type { CacheTagFormats, Domain, DomainServicesOptions } from './domain.js';
import { enterprise } from './enterprise/index.js';
import { gateway } from './gateway/index.js';
import type { GraphiqlExample } from './graphiqlExample.js';
import { scalars } from './scalars/index.js';
import { titles } from './titles/index.js';

export type { Domain, DomainRule, DomainServicesOptions } from './domain.js';

/**
 * Every domain, one object each (domain.ts): the schema (src/schema/build.ts), the pipeline and the wiring
 * (src/app/gatewayCore.ts) read them and name none. In this order GraphiQL opens its tabs (the gateway's own first).
 */
export const DOMAINS: readonly Domain[] = [scalars, gateway, enterprise, titles, chat];

/** The domains `config.domains` (GATEWAY_DOMAINS) serves, the shared scalars with them. */
export function servedDomains(served: readonly GatewayDomain[]): Domain[] {
  return DOMAINS.filter((d) => d.name === undefined || served.includes(d.name));
}

/**
 * What every domain's planner knows of its fields' cost (which send upstream requests, how long lists are): the
 * SDL's `@cost` and `@listSize` for a router (src/schema/costDirectives.ts), and the gateway's own estimate.
 */
export const costHints: CostHints = Object.assign({}, ...DOMAINS.map((d) => d.costHints ?? {}));

/** Every domain's `@cacheTag` formats, in the SDL when routers are told of changes (src/schema/cacheTags.ts). */
export const cacheTagFormats: CacheTagFormats = Object.assign({}, ...DOMAINS.map((d) => d.cacheTags ?? {}));

/** The tabs GraphiQL opens with on a first visit: useful operations of every domain. */
export const graphiqlExamples: readonly GraphiqlExample[] = DOMAINS.flatMap((d) => d.examples ?? []);

/** Each domain's long-lived state, built once at start-up (its poller and ledger start work only when used). */
export function createDomainServices(services: CoreServices, options: DomainServicesOptions = {}): DomainServices {
  return Object.assign({}, ...DOMAINS.map((d) => d.services?.(services, options) ?? {})) as DomainServices;
}
