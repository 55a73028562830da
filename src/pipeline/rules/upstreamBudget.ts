import type { GraphQLSchema } from 'graphql';
import {
  budgetRefusal,
  entitiesWithinBudget,
  operationShape,
  rememberEntitiesWithinBudget,
  rememberEstimates,
  type UpstreamEstimates,
} from '../../planning/upstreamEstimate.js';
import type { PipelineRule } from '../operation.js';
import { GATEWAY_TAG, type CachePolicies } from './cachePolicy.js';

/**
 * The upstream-request budget (GATEWAY_MAX_UPSTREAM_REQUESTS): before execution, every domain estimates the
 * requests the operation can cause, and an operation over the budget for any upstream is refused. The estimate stays
 * in the operation's context for the guards that need it later (the titles quota).
 */
export function useUpstreamBudget(options: {
  schema: GraphQLSchema;
  estimates: UpstreamEstimates;
  max: number;
  /** The pipeline's cache policies (the response cache's), whose domains say which estimators an operation needs. */
  policies?: CachePolicies;
}): PipelineRule {
  const { schema, estimates, max, policies } = options;
  return {
    name: 'upstreamBudget',
    admit(op) {
      const shape = operationShape(schema, op.document, op.operation, op.variables);
      // The domains it selects, once per document; a field of no domain (`_entities`) may reach any of them.
      const domains = policies?.of(op.document, op.operation).domains;
      const totals = estimates.of(shape, domains?.includes(GATEWAY_TAG) ? undefined : domains);
      rememberEstimates(op.context, op.operation, totals);
      const refusal = budgetRefusal(totals, max);
      // A router's `_entities` call answers the entries the budget allows and refuses only the rest.
      const within = refusal && entitiesWithinBudget(shape, estimates, refusal, max);
      if (within) {
        rememberEstimates(op.context, op.operation, within.totals);
        rememberEntitiesWithinBudget(op.context, op.operation, within);
        return undefined;
      }
      // The client's operation, not a server fault: HTTP answers 400.
      if (refusal) refusal.extensions.http = { status: 400 };
      return refusal;
    },
  };
}
