import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { LIMIT_VARIABLES, type OperationLimits } from '../config/limits.js';
import { ErrorCode } from '../errors/codes.js';

/** Marks a validation error as a limit so `formatError` gives it QUERY_TOO_COMPLEX even after Apollo re-codes it. */
export function limitError(
  limit: keyof typeof LIMIT_VARIABLES,
  max: number,
  found: number | undefined,
  what: string,
): GraphQLError {
  const value = found === undefined ? '' : `, found ${found}`;
  return new GraphQLError(
    `${what} limit of ${max} exceeded${value}: simplify the operation or raise ${LIMIT_VARIABLES[limit]}.`,
    {
      extensions: {
        code: ErrorCode.QueryTooComplex,
        limit: LIMIT_VARIABLES[limit],
        max,
        ...(found === undefined ? {} : { found }),
      },
    },
  );
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
    maxAliasesRule({
      n: limits.maxAliases,
      ...armor('maxAliases', limits.maxAliases, 'Alias'),
    }) as unknown as ValidationRule,
    maxDirectivesRule({
      n: limits.maxDirectives,
      ...armor('maxDirectives', limits.maxDirectives, 'Directive'),
    }) as unknown as ValidationRule,
    maxFieldsRule(limits.maxFields),
  ];
}

/** graphql-js stops lexing past `maxTokens` with this message; it becomes a limit error. */
export function tokenLimitError(error: GraphQLError, limits: OperationLimits): GraphQLError | undefined {
  if (!/Document contains more than \d+ tokens/.test(error.message)) return undefined;
  return limitError('maxTokens', limits.maxTokens, undefined, 'Token');
}
