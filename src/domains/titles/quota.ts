/**
 * The OMDb daily quota (OMDB_DAILY_QUOTA), in one place: the titles domain's pipeline rule ({@link useTitlesQuota}),
 * the decision it makes before execution on every transport and the refusal each OMDb field reports. The OMDb client
 * still takes one quota unit before each request it sends (upstreams/omdb/client.ts): the hard cap that keeps the
 * day's total within the quota whatever runs concurrently.
 *
 * The decision: an operation that could need more OMDb requests than remain today (the estimate, estimate.ts) is
 * refused at its OMDb fields before any is sent, so its other domains still answer. Concurrent operations are not
 * reserved against each other. With Redis, a refusal is checked again against the shared cache, since the walk sees
 * only this replica's copy.
 *
 * The allowance the loader keeps to (allowance.ts) is the budget's estimate, which this rule hands to the operation.
 */
import type { GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { OperationKey, operationValue, setOperationValue, type GatewayContext } from '../../context/request.js';
import { operationShape, rememberedEstimate, type OperationShape } from '../../planning/upstreamEstimate.js';
import type { OmdbClient } from '../../upstreams/omdb/client.js';
import type { DomainRule } from '../rule.js';
import { allowOmdbRequests } from './allowance.js';
import { estimateOmdbRequests, estimateWithSharedCache } from './estimate.js';

/**
 * The titles domain's rule: the daily quota decided before execution. Runs after the upstream-request budget, whose
 * estimate it reuses and gives the operation as its allowance: the loader sends no more. Costs a quota read only for
 * operations that need OMDb at all.
 */
export function useTitlesQuota(options: { schema: GraphQLSchema }): DomainRule {
  const { schema } = options;
  return {
    name: 'titlesQuota',
    admit(op) {
      if (op.type !== 'query') return undefined;
      const needed = rememberedEstimate(op.context, op.operation, 'omdb');
      // What the budget admitted is all the loader may send.
      if (needed !== undefined) allowOmdbRequests(op.context, needed);
      if (needed === 0) return undefined;
      const decided = decideOmdbQuota(
        op.context,
        operationShape(schema, op.document, op.operation, op.variables),
        needed,
      );
      return decided?.then(() => undefined);
    },
  };
}

interface Decision {
  refused: number;
  remaining: number;
}

const DECISION = new OperationKey<Decision>('the OMDb quota decision of this operation');

/**
 * Decides, before execution, whether the operation may spend OMDb quota ({@link useTitlesQuota} calls it on every
 * transport): `needed` is the budget's estimate when it made one. A refusal is kept in the
 * context and reported by each OMDb field ({@link refuseIfOverQuota}), so the operation's other domains still answer.
 * Returns a promise only when the operation needs OMDb requests at all.
 */
export function decideOmdbQuota(
  ctx: GatewayContext,
  shape: OperationShape,
  needed: number | undefined,
): Promise<void> | undefined {
  const client = ctx.services.clients.omdb;
  const info = shape as unknown as GraphQLResolveInfo;
  const estimate = needed ?? estimateOmdbRequests(info, client);
  // Answered from the cache alone: nothing to check (and, with Redis, no round trip).
  if (estimate === 0) return undefined;
  // Enough remains by what this replica holds (in process, the counter itself): decided without a promise.
  const remaining = client.quota.remainingHere(estimate);
  if (remaining !== undefined && estimate <= remaining) {
    setOperationValue(ctx, DECISION, { refused: 0, remaining });
    return undefined;
  }
  return decide(ctx, info, client, estimate).then((decision) => setOperationValue(ctx, DECISION, decision));
}

/** Throws UPSTREAM_QUOTA_EXHAUSTED in an OMDb field of an operation refused before execution. */
export function refuseIfOverQuota(ctx: GatewayContext): void {
  const decision = operationValue(ctx, DECISION);
  if (decision?.refused)
    throw ctx.services.clients.omdb.quotaExhausted(decision.remaining, decision.refused, 'this operation');
}

async function decide(
  ctx: GatewayContext,
  info: GraphQLResolveInfo,
  client: OmdbClient,
  estimate: number,
): Promise<Decision> {
  let needed = estimate;
  // Enough for the estimate is all the decision needs: with Redis, a slice this replica holds answers it locally.
  const remaining = await client.quota.remaining(needed);
  // That walk saw only this replica's cache: before refusing, count what other replicas cached too.
  if (needed > remaining && client.cache?.shared) needed = await estimateWithSharedCache(info, client);
  const refused = needed > remaining ? needed : 0;
  if (refused)
    ctx.log.warn({ upstream: 'omdb', needed, remaining }, 'operation refused: it could cross the OMDb daily quota');
  return { refused, remaining };
}
