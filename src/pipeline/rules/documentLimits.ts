import { GraphQLError, type ValidationRule } from 'graphql';
import { ErrorCode } from '../../errors/codes.js';
import type { OperationLimits } from '../../config/limits.js';
import { limitError, limitRules } from '../limitValidation.js';
import type { PipelineRule } from '../operation.js';

/**
 * The document's size before it is parsed (a huge document costs a length check, nothing more), and the depth,
 * alias, directive, cost and field limits as validation rules (run where the document is validated: the pipeline's
 * document cache, or Apollo's for HTTP).
 */
export function useDocumentLimits({
  limits,
}: {
  limits: OperationLimits;
}): PipelineRule & { validationRules: ValidationRule[] } {
  return {
    name: 'documentLimits',
    validationRules: limitRules(limits),
    prepare(payload, documents) {
      const query = payload.query;
      // A text cached as valid passed this check when it was first prepared (every path prepares before it parses),
      // and the limits do not change: its length is compared again, its nesting is not scanned on every request.
      if (typeof query === 'string' && query.length <= limits.maxDocumentBytes && documents?.valid(query))
        return payload;
      return checkDocumentSize(query, limits) ?? payload;
    },
  };
}

/**
 * Braces, brackets and parentheses a document may nest. graphql-js parses recursively: a literal nested some thousand
 * levels (possible once GATEWAY_MAX_TOKENS is raised) overflows the stack. Selections stop at GATEWAY_MAX_DEPTH and
 * JSON arguments at 32 levels, far below this.
 */
export const MAX_DOCUMENT_NESTING = 256;

/**
 * QUERY_TOO_COMPLEX when the document text is longer than GATEWAY_MAX_DOCUMENT_BYTES or nests deeper than
 * {@link MAX_DOCUMENT_NESTING}: both checked before parsing, so a huge or deeply nested document costs one linear scan.
 */
export function checkDocumentSize(query: unknown, limits: OperationLimits): GraphQLError | undefined {
  if (typeof query !== 'string') return undefined;
  let error: GraphQLError | undefined;
  if (query.length > limits.maxDocumentBytes)
    error = limitError('maxDocumentBytes', limits.maxDocumentBytes, query.length, 'Document size');
  else if (documentNesting(query, MAX_DOCUMENT_NESTING) > MAX_DOCUMENT_NESTING) {
    error = new GraphQLError(
      `Document nests more than ${MAX_DOCUMENT_NESTING} levels of braces, brackets or parentheses: flatten the operation (JSON arguments may nest at most 32 levels).`,
      { extensions: { code: ErrorCode.QueryTooComplex, limit: 'document nesting', max: MAX_DOCUMENT_NESTING } },
    );
  }
  if (error) error.extensions.http = { status: 400 };
  return error;
}

/** The deepest nesting of `{`, `[` and `(` outside strings, block strings and comments; stops counting past `stopAt`. */
export function documentNesting(text: string, stopAt: number): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x23 /* # */) {
      while (i < text.length && text.charCodeAt(i) !== 0x0a && text.charCodeAt(i) !== 0x0d) i++;
    } else if (c === 0x22 /* " */) {
      if (text.startsWith('"""', i)) {
        i += 3;
        while (i < text.length && !text.startsWith('"""', i)) i += text.startsWith('\\"""', i) ? 4 : 1;
        i += 2;
      } else {
        i++;
        while (i < text.length && text.charCodeAt(i) !== 0x22 && text.charCodeAt(i) !== 0x0a)
          i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      }
    } else if (c === 0x7b || c === 0x5b || c === 0x28) {
      if (++depth > deepest && (deepest = depth) > stopAt) return deepest;
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      depth--;
    }
  }
  return deepest;
}
