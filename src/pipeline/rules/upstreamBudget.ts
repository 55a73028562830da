import { Kind, type GraphQLSchema } from 'graphql';
import {
  budgetRefusal,
  operationShape,
  rememberEstimates,
  type OperationShape,
  type UpstreamEstimates,
} from '../../planning/upstreamEstimate.js';
import type { PipelineRule } from '../operation.js';
import { GATEWAY_TAG, type CachePolicies } from './cachePolicy.js';

/**
 * The upstream-request budget (GATEWAY_MAX_UPSTREAM_REQUESTS): before execution, every domain estimates the
 * requests the operation can cause, and an operation over the budget for any upstream is refused whole, before any
 * request. The estimate stays in the operation's context for the guards that need it later (the titles quota).
 *
 * A federation router's `_entities` call (a key of TRUSTED_ROUTER_KEYS) has the budget once per representation: the
 * router could send each in a call of its own, so a smaller budget would protect nothing and only cut its batch
 * (routers retry no part of an answer). MAX_ENTITY_REPRESENTATIONS, the OMDb daily quota and each end client's cost
 * budget bound it instead. Anyone else's `_entities` call is held to the budget like any operation.
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
      const representations = entityRepresentations(shape);
      const budget = op.client.router && representations > 0 ? max * representations : max;
      const refusal = budgetRefusal(
        totals,
        budget,
        representations > 0 && !op.client.router
          ? 'A federation router presents a key of TRUSTED_ROUTER_KEYS: its _entities calls have the budget once per representation.'
          : undefined,
      );
      // The client's operation, not a server fault: HTTP answers 400.
      if (refusal) refusal.extensions.http = { status: 400 };
      return refusal;
    },
  };
}

/**
 * How many representations an operation of `_entities` fields alone (what routers send) carries; 0 for any other
 * operation, whose budget is the operation's.
 */
function entityRepresentations(shape: OperationShape): number {
  let count = 0;
  const selections = shape.operation.selectionSet.selections;
  // Indexed: every operation walks its top fields here (no iterator results).
  for (let i = 0; i < selections.length; i++) {
    const field = selections[i];
    if (field.kind !== Kind.FIELD || field.name.value !== '_entities') return 0;
    const value = field.arguments?.find((a) => a.name.value === 'representations')?.value;
    const list = value?.kind === Kind.VARIABLE ? shape.variableValues[value.name.value] : undefined;
    if (Array.isArray(list)) count += list.length;
    else if (value?.kind === Kind.LIST) count += value.values.length;
  }
  return count;
}
