import type { GraphQLError, ValidationRule } from 'graphql';
import { limitError, limitRules, type OperationLimits } from '../server/limits.js';
import type { PipelineRule } from './operation.js';

/**
 * The document's size before it is parsed (a huge document costs a length check, nothing more), and the depth,
 * alias, directive, cost and field limits as validation rules (run where the document is validated: the pipeline's
 * document cache, or Apollo's for HTTP).
 */
export function documentLimits(limits: OperationLimits): PipelineRule & { validationRules: ValidationRule[] } {
  return {
    name: 'documentLimits',
    validationRules: limitRules(limits),
    prepare(payload) {
      return checkDocumentSize(payload.query, limits) ?? payload;
    },
  };
}

/** QUERY_TOO_COMPLEX when the document text is longer than GATEWAY_MAX_DOCUMENT_BYTES. */
export function checkDocumentSize(query: unknown, limits: OperationLimits): GraphQLError | undefined {
  if (typeof query === 'string' && query.length > limits.maxDocumentBytes) {
    const error = limitError('maxDocumentBytes', limits.maxDocumentBytes, query.length, 'Document size');
    error.extensions.http = { status: 400 };
    return error;
  }
  return undefined;
}
