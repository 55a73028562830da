import type { GraphQLSchema } from 'graphql';
import type { GatewayServices } from '../runtime/context.js';
import { budgetRefusal, estimateUpstreamRequests, operationShape, rememberEstimates, type UpstreamEstimator } from '../runtime/upstreamBudget.js';
import type { PipelineRule } from './operation.js';

/**
 * The upstream-request budget (GATEWAY_MAX_UPSTREAM_REQUESTS): before execution, every domain estimates the
 * requests the operation can cause, and an operation over the budget for any upstream is refused. The estimate stays
 * in the operation's context for the guards that need it later (the titles quota).
 */
export function upstreamBudget(schema: GraphQLSchema, services: GatewayServices, estimators: readonly UpstreamEstimator[]): PipelineRule {
  const max = services.config.limits.maxUpstreamRequests;
  return {
    name: 'upstreamBudget',
    admit(op) {
      const totals = estimateUpstreamRequests(operationShape(schema, op.document, op.operation, op.variables), services, estimators);
      rememberEstimates(op.context, op.operation, totals);
      const refusal = budgetRefusal(totals, max);
      // The client's operation, not a server fault: HTTP answers 400.
      if (refusal) refusal.extensions.http = { status: 400 };
      return refusal;
    },
  };
}
