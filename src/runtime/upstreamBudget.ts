import { GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { ErrorCode } from '../errors.js';
import { VariablesMemo } from '../planning/memo.js';
import { perRequest, shared, type GatewayContext, type GatewayServices } from './context.js';

/** What an estimator sees of an operation before it runs (the parts of `GraphQLResolveInfo` planners read). */
export interface OperationShape {
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  fragments: Record<string, FragmentDefinitionNode>;
  variableValues: Record<string, unknown>;
}

/**
 * A domain's estimate of the upstream requests an operation can cause, by upstream id. One marked `stable` depends
 * only on the operation, its variables and the gateway's configuration (not on caches or time), so its answer is
 * kept per operation and variables: a cached document is walked once, not once per request.
 */
export type UpstreamEstimator = ((op: OperationShape, services: GatewayServices) => Record<string, number>) & { stable?: boolean };

/** Marks `estimate` as depending only on the operation, its variables and the configuration (see {@link UpstreamEstimator}). */
export function stableEstimator(estimate: (op: OperationShape, services: GatewayServices) => Record<string, number>): UpstreamEstimator {
  return Object.assign(estimate, { stable: true });
}

export function operationShape(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): OperationShape {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  return { schema, operation, fragments, variableValues: variables ?? {} };
}

/** Every domain's estimate for the operation, summed per upstream. An estimator that cannot make sense of the
 * operation (bad arguments) contributes nothing: the resolvers' own validation refuses it. */
export function estimateUpstreamRequests(
  shape: OperationShape,
  services: GatewayServices,
  estimators: readonly UpstreamEstimator[],
): Record<string, number> {
  const totals = { ...stableTotals(shape, services, estimators) };
  for (const estimate of estimators) if (!estimate.stable) add(totals, run(estimate, shape, services));
  return totals;
}

const STABLE = { key: 'stable upstream estimates by operation and variables' };

/** The stable estimators' sum for the operation and its variables, computed once per (operation, variables). */
function stableTotals(shape: OperationShape, services: GatewayServices, estimators: readonly UpstreamEstimator[]): Readonly<Record<string, number>> {
  // Keyed by the estimator list too: a gateway serves one list, but tests and tools may pass others.
  const byList = shared(services, STABLE, () => new WeakMap<readonly UpstreamEstimator[], VariablesMemo<OperationDefinitionNode, Record<string, number>>>());
  let memo = byList.get(estimators);
  if (!memo) byList.set(estimators, (memo = new VariablesMemo(64)));
  // Variables the operation does not declare cannot change its estimate.
  const variables = shape.operation.variableDefinitions?.length ? shape.variableValues : undefined;
  return memo.get(shape.operation, variables, () => {
    const totals: Record<string, number> = {};
    for (const estimate of estimators) if (estimate.stable) add(totals, run(estimate, shape, services));
    return totals;
  });
}

function run(estimate: UpstreamEstimator, shape: OperationShape, services: GatewayServices): Record<string, number> {
  try {
    return estimate(shape, services);
  } catch {
    return {};
  }
}

function add(totals: Record<string, number>, part: Record<string, number>): void {
  for (const upstream in part) totals[upstream] = (totals[upstream] ?? 0) + part[upstream];
}

/**
 * The upstream-request budget (GATEWAY_MAX_UPSTREAM_REQUESTS): refuses, before execution, an operation whose planned
 * upstream requests to any one upstream exceed the limit, naming the upstream, the estimate and the limit.
 */
export function budgetRefusal(totals: Record<string, number>, max: number): GraphQLError | undefined {
  let upstream: string | undefined;
  let found = 0;
  for (const id in totals) {
    if (upstream === undefined || totals[id] > found) {
      upstream = id;
      found = totals[id];
    }
  }
  if (upstream === undefined || found <= max) return undefined;
  return new GraphQLError(
    `Upstream request budget of ${max} per upstream exceeded: this operation can cause ${found} requests to ${upstream}. Split it, select less, or raise GATEWAY_MAX_UPSTREAM_REQUESTS.`,
    { extensions: { code: ErrorCode.QueryTooComplex, limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS', max, found, upstream } },
  );
}

const ESTIMATES = { key: 'upstream estimates by operation' };

/** Keeps the operation's estimate in its request context, so a guard at resolve time need not walk it again. */
export function rememberEstimates(ctx: GatewayContext, operation: OperationDefinitionNode, totals: Record<string, number>): void {
  perRequest(ctx, ESTIMATES, () => new Map<OperationDefinitionNode, Record<string, number>>()).set(operation, totals);
}

/** The estimate made before execution for `upstream`, if one was made for this operation. */
export function rememberedEstimate(ctx: GatewayContext, operation: OperationDefinitionNode, upstream: string): number | undefined {
  const totals = (ctx.loaders.get(ESTIMATES) as Map<OperationDefinitionNode, Record<string, number>> | undefined)?.get(operation);
  return totals ? (totals[upstream] ?? 0) : undefined;
}
