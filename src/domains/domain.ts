import type { GraphQLSchema } from 'graphql';
import type { GatewayDomain } from '../config/env.js';
import type { CoreServices, DomainServices } from '../context/services.js';
import type { Resolvers } from '../generated/resolvers.js';
import type { CostHints } from '../planning/cost.js';
import type { UpstreamEstimator } from '../planning/upstreamEstimate.js';
import type { GraphiqlExample } from './graphiqlExample.js';
import type { DomainRule } from './rule.js';

export type { DomainOperation, DomainRule } from './rule.js';

/**
 * What a test may set in the domains' long-lived state. Each domain declares its own entry beside the code that reads
 * it (`declare module '…/domains/domain.js'`), as with `DomainServices`.
 */
export interface DomainServicesOptions {}

/**
 * Everything a domain contributes to the gateway, as one object (as a Hive Gateway plugin contributes its hooks): the
 * schema, the pipeline and the wiring read these and name no domain. Its SDL is `schema/<name>*.graphql`
 * (src/schema/domains.ts).
 */
export interface Domain {
  /** Its GATEWAY_DOMAINS name; none for what every gateway serves (the shared scalars). */
  readonly name?: GatewayDomain;
  readonly resolvers: Resolvers;
  /** Its estimate of the upstream requests an operation can cause, before execution (the upstream-request budget). */
  readonly estimate?: UpstreamEstimator;
  /** What its planner knows of its fields' cost: the SDL's `@cost` and `@listSize` for a router, and the gateway's estimate. */
  readonly costHints?: CostHints;
  /**
   * The `@cacheTag` formats of its entity types and root fields (`ServiceHealth`: `service-health-{$key.id}`), in the
   * SDL when routers are told of changes (ROUTER_INVALIDATION_URLS): the tags it invalidates must match them.
   */
  readonly cacheTags?: CacheTagFormats;
  /** Its GraphiQL tabs, opened on a first visit. */
  readonly examples?: readonly GraphiqlExample[];
  /** Its long-lived state, built once at start-up from the gateway's services (a poller, a ledger): nothing runs until used. */
  services?(services: CoreServices, options: DomainServicesOptions): Partial<DomainServices>;
  /** Its pipeline rules, built once the schema is known. */
  rules?(options: { schema: GraphQLSchema }): DomainRule[];
  /**
   * When its cached answers go stale (the response cache drops them): subscribes `drop` to what changes its data
   * outside the gateway's own mutations; gives the unsubscribe. Read only when the domain is served.
   */
  staleAnswers?(services: CoreServices, drop: () => void): Promise<() => void>;
  /**
   * Whether a trusted router (TRUSTED_ROUTER_KEYS) may share its cached answers of this domain between the clients
   * it serves (`Cache-Control: public` on its POST): `always` when they never depend on the caller; `application`
   * when they do only through the caller's own `Authorization` (delegated access), so they are shared when the gateway
   * answered with its own application permissions.
   * @default unset: a router keeps them per caller (`private`)
   */
  readonly routerSharing?: RouterSharing;
}

/** A type's (`ServiceHealth`) or a root field's (`Query.admin`) `@cacheTag` format, e.g. `service-health-{$key.id}`. */
export type CacheTagFormats = Readonly<Record<string, string>>;

/** How far a trusted router may share a domain's answers ({@link Domain.routerSharing}). */
export type RouterSharing = 'always' | 'application';
