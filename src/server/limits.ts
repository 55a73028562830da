import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { GraphQLError, Kind, type ASTVisitor, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';
import { ErrorCode } from '../errors.js';

/** Operation limits checked before execution; each refusal is QUERY_TOO_COMPLEX naming the limit and the value. */
export interface OperationLimits {
  /** Characters of the document. @default 50000 */
  maxDocumentBytes: number;
  /** Lexer tokens (graphql-armor's default). @default 1000 */
  maxTokens: number;
  /** Field nesting. graphql-armor's 6 is too shallow for Admin→…→Issue→posts→description. @default 12 */
  maxDepth: number;
  /**
   * Aliases per operation. Above graphql-armor's 15 because 20 aliased lookups is a normal dashboard; alias bombs are
   * stopped by the field and upstream-request limits too. @default 30
   */
  maxAliases: number;
  /** Fields once fragments are expanded. @default 1000 */
  maxFields: number;
  /** Directives (graphql-armor's default). @default 50 */
  maxDirectives: number;
  /** graphql-armor's cost (objects 2, scalars 1, ×1.5 per level). @default 5000 */
  maxCost: number;
  /** Upstream requests one operation may cause per upstream, by the planners' estimate. @default 50 */
  maxUpstreamRequests: number;
}

export const DEFAULT_LIMITS: OperationLimits = {
  maxDocumentBytes: 50_000,
  maxTokens: 1000,
  maxDepth: 12,
  maxAliases: 30,
  maxFields: 1000,
  maxDirectives: 50,
  maxCost: 5000,
  maxUpstreamRequests: 50,
};

/** Environment variable of each limit (GATEWAY_MAX_DEPTH, …). */
export const LIMIT_VARIABLES: Record<keyof OperationLimits | 'maxOperations', string> = {
  maxOperations: 'GATEWAY_WS_MAX_OPERATIONS',
  maxDocumentBytes: 'GATEWAY_MAX_DOCUMENT_BYTES',
  maxTokens: 'GATEWAY_MAX_TOKENS',
  maxDepth: 'GATEWAY_MAX_DEPTH',
  maxAliases: 'GATEWAY_MAX_ALIASES',
  maxFields: 'GATEWAY_MAX_FIELDS',
  maxDirectives: 'GATEWAY_MAX_DIRECTIVES',
  maxCost: 'GATEWAY_MAX_COST',
  maxUpstreamRequests: 'GATEWAY_MAX_UPSTREAM_REQUESTS',
};

/** Marks a validation error as a limit so `formatError` gives it QUERY_TOO_COMPLEX even after Apollo re-codes it. */
export function limitError(limit: keyof typeof LIMIT_VARIABLES, max: number, found: number | undefined, what: string): GraphQLError {
  const value = found === undefined ? '' : `, found ${found}`;
  return new GraphQLError(`${what} limit of ${max} exceeded${value}: simplify the operation or raise ${LIMIT_VARIABLES[limit]}.`, {
    extensions: { code: 'QUERY_TOO_COMPLEX', limit: LIMIT_VARIABLES[limit], max, ...(found === undefined ? {} : { found }) },
  });
}

function armor(limit: keyof OperationLimits, max: number, what: string) {
  return {
    propagateOnRejection: false,
    exposeLimits: true,
    onReject: [
      (ctx: ValidationContext | null, error: GraphQLError) => {
        const found = /found (\d+)/.exec(error.message)?.[1];
        ctx?.reportError(limitError(limit, max, found === undefined ? undefined : Number(found), what));
      },
    ],
  };
}

/** Counts every field once fragments are expanded (a fragment spread twice counts twice), stopping past the limit. */
function maxFieldsRule(max: number): ValidationRule {
  return (context): ASTVisitor => ({
    OperationDefinition(operation) {
      let count = 0;
      const visit = (set: SelectionSetNode, seen: Set<string>) => {
        for (const sel of set.selections) {
          if (count > max) return;
          if (sel.kind === Kind.FIELD) {
            count++;
            if (sel.selectionSet) visit(sel.selectionSet, seen);
          } else if (sel.kind === Kind.INLINE_FRAGMENT) visit(sel.selectionSet, seen);
          else if (!seen.has(sel.name.value)) {
            const fragment = context.getFragment(sel.name.value);
            if (fragment) visit(fragment.selectionSet, new Set(seen).add(sel.name.value));
          }
        }
      };
      visit(operation.selectionSet, new Set());
      if (count > max) context.reportError(limitError('maxFields', max, undefined, 'Field count'));
    },
  });
}

/** The validation rules enforcing `limits`, for Apollo (`validationRules`) and the WebSocket path alike. */
export function limitRules(limits: OperationLimits): ValidationRule[] {
  return [
    maxDepthRule({ n: limits.maxDepth, ...armor('maxDepth', limits.maxDepth, 'Depth') }) as unknown as ValidationRule,
    maxAliasesRule({ n: limits.maxAliases, ...armor('maxAliases', limits.maxAliases, 'Alias') }) as unknown as ValidationRule,
    maxDirectivesRule({ n: limits.maxDirectives, ...armor('maxDirectives', limits.maxDirectives, 'Directive') }) as unknown as ValidationRule,
    costLimitRule({ maxCost: limits.maxCost, ...armor('maxCost', limits.maxCost, 'Cost') }) as unknown as ValidationRule,
    maxFieldsRule(limits.maxFields),
  ];
}

/**
 * Braces, brackets and parentheses a document may nest. graphql-js parses recursively: a literal nested some thousand
 * levels (possible once GATEWAY_MAX_TOKENS is raised) overflows the stack. Selections stop at GATEWAY_MAX_DEPTH and
 * JSON arguments at 32 levels, far below this.
 */
export const MAX_DOCUMENT_NESTING = 256;

/**
 * Size and nesting are checked before parsing, so a huge or deeply nested document costs one linear scan. Nesting is
 * counted outside strings and comments.
 */
export function checkDocumentSize(query: unknown, limits: OperationLimits): GraphQLError | undefined {
  if (typeof query !== 'string') return undefined;
  if (query.length > limits.maxDocumentBytes) return limitError('maxDocumentBytes', limits.maxDocumentBytes, query.length, 'Document size');
  if (documentNesting(query, MAX_DOCUMENT_NESTING) > MAX_DOCUMENT_NESTING) {
    return new GraphQLError(
      `Document nests more than ${MAX_DOCUMENT_NESTING} levels of braces, brackets or parentheses: flatten the operation (JSON arguments may nest at most 32 levels).`,
      { extensions: { code: ErrorCode.QueryTooComplex, limit: 'document nesting', max: MAX_DOCUMENT_NESTING } },
    );
  }
  return undefined;
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
        while (i < text.length && text.charCodeAt(i) !== 0x22 && text.charCodeAt(i) !== 0x0a) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      }
    } else if (c === 0x7b || c === 0x5b || c === 0x28) {
      if (++depth > deepest && (deepest = depth) > stopAt) return deepest;
    } else if (c === 0x7d || c === 0x5d || c === 0x29) {
      depth--;
    }
  }
  return deepest;
}

/** graphql-js stops lexing past `maxTokens` with this message; it becomes a limit error. */
export function tokenLimitError(error: GraphQLError, limits: OperationLimits): GraphQLError | undefined {
  if (!/Document contains more than \d+ tokens/.test(error.message)) return undefined;
  return limitError('maxTokens', limits.maxTokens, undefined, 'Token');
}
