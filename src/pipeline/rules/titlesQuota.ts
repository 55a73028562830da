import type { GraphQLSchema } from 'graphql';
import { allowOmdbRequests, decideOmdbQuota } from '../../domains/titles/index.js';
import { operationShape, rememberedEstimate } from '../../planning/upstreamEstimate.js';
import type { PipelineRule } from '../operation.js';

/**
 * The OMDb daily quota (OMDB_DAILY_QUOTA), decided before execution on every transport: a query that could need
 * more OMDb requests than remain today is refused at its OMDb fields before any is sent. Reuses the budget's
 * estimate when the budget rule ran first, and gives it to the operation as its allowance (domains/titles/allowance.ts):
 * the loader sends no more. Costs a quota read only for operations that need OMDb at all.
 */
export function titlesQuota(schema: GraphQLSchema): PipelineRule {
  return {
    name: 'titlesQuota',
    admit(op) {
      if (op.type !== 'query') return undefined;
      const needed = rememberedEstimate(op.context, op.operation, 'omdb');
      // What the budget admitted is all the loader may send.
      if (needed !== undefined) allowOmdbRequests(op.context, needed);
      if (needed === 0) return undefined;
      const decided = decideOmdbQuota(op.context, operationShape(schema, op.document, op.operation, op.variables), needed);
      return decided?.then(() => undefined);
    },
  };
}
