import { GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { perRequest, type GatewayContext, type GatewayServices } from './context.js';

/** What an estimator sees of an operation before it runs (the parts of `GraphQLResolveInfo` planners read). */
export interface OperationShape {
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  fragments: Record<string, FragmentDefinitionNode>;
  variableValues: Record<string, unknown>;
}

/** A domain's estimate of the upstream requests an operation can cause, by upstream id. */
export type UpstreamEstimator = (op: OperationShape, services: GatewayServices) => Record<string, number>;

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
  const totals: Record<string, number> = {};
  for (const estimate of estimators) {
    let part: Record<string, number>;
    try {
      part = estimate(shape, services);
    } catch {
      continue;
    }
    for (const [upstream, n] of Object.entries(part)) totals[upstream] = (totals[upstream] ?? 0) + n;
  }
  return totals;
}

/**
 * The upstream-request budget (GATEWAY_MAX_UPSTREAM_REQUESTS): refuses, before execution, an operation whose planned
 * upstream requests to any one upstream exceed the limit, naming the upstream, the estimate and the limit.
 */
export function budgetRefusal(totals: Record<string, number>, max: number): GraphQLError | undefined {
  const [upstream, found] = Object.entries(totals).sort((a, b) => b[1] - a[1])[0] ?? [];
  if (upstream === undefined || found <= max) return undefined;
  return new GraphQLError(
    `Upstream request budget of ${max} per upstream exceeded: this operation can cause ${found} requests to ${upstream}. Split it, select less, or raise GATEWAY_MAX_UPSTREAM_REQUESTS.`,
    { extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS', max, found, upstream } },
  );
}

const ESTIMATES = { key: 'upstream estimates by operation' };

/** Keeps the operation's estimate in its request context, so a guard at resolve time need not walk it again. */
export function rememberEstimates(ctx: GatewayContext, operation: OperationDefinitionNode, totals: Record<string, number>): void {
  perRequest(ctx, ESTIMATES, () => new WeakMap<OperationDefinitionNode, Record<string, number>>()).set(operation, totals);
}

/** The estimate made before execution for `upstream`, if one was made for this operation. */
export function rememberedEstimate(ctx: GatewayContext, operation: OperationDefinitionNode, upstream: string): number | undefined {
  const totals = (ctx.loaders.get(ESTIMATES) as WeakMap<OperationDefinitionNode, Record<string, number>> | undefined)?.get(operation);
  return totals ? (totals[upstream] ?? 0) : undefined;
}
