import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import {
  BREAK,
  getNullableType,
  GraphQLError,
  GraphQLSchema,
  isListType,
  Kind,
  visit,
  type ASTNode,
  type DirectiveNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import { ErrorCode } from '../errors/codes.js';

/**
 * `@defer` and `@stream` (the incremental delivery RFC as Apollo Router and Apollo Client's `Defer20220824Handler`
 * speak it). graphql 16 has neither, so the schema gains their definitions here and documents that use them run on
 * `@graphql-tools/executor`, which implements them on graphql 16; every other document keeps compiled execution
 * (execution.ts), which, like graphql-js, ignores the two directives and so answers a client that cannot take parts
 * with the whole result.
 */
export const INCREMENTAL_DIRECTIVES = [GraphQLDeferDirective, GraphQLStreamDirective] as const;

/** The schema with `@defer` and `@stream` defined (its types, fields and resolvers are the same objects). */
export function withIncrementalDirectives(schema: GraphQLSchema): GraphQLSchema {
  const config = schema.toConfig();
  const own = new Set(config.directives.map((d) => d.name));
  return new GraphQLSchema({
    ...config,
    directives: [...config.directives, ...INCREMENTAL_DIRECTIVES.filter((d) => !own.has(d.name))],
  });
}

const INCREMENTAL_NAMES = new Set(INCREMENTAL_DIRECTIVES.map((d) => d.name));
const usesByDocument = new WeakMap<DocumentNode, boolean>();

/** Whether the document carries `@defer` or `@stream` anywhere (kept per cached document). */
export function usesIncrementalDelivery(document: DocumentNode): boolean {
  let uses = usesByDocument.get(document);
  if (uses === undefined) {
    uses = false;
    visit(document, {
      Directive(node) {
        if (!INCREMENTAL_NAMES.has(node.name.value)) return undefined;
        uses = true;
        return BREAK;
      },
    });
    usesByDocument.set(document, uses);
  }
  return uses;
}

/**
 * Whether an operation's text may carry `@defer` or `@stream`: the cheap test HTTP makes before choosing a response
 * format (a word in a comment or a string passes too; the parsed document then decides how it runs).
 */
export function mentionsIncrementalDirective(query: unknown): boolean {
  return typeof query === 'string' && (query.includes('@defer') || query.includes('@stream'));
}

/** One item of an incremental payload: a deferred fragment's `data`, or a streamed list's `items`, at `path`. */
export interface IncrementalEntry {
  data?: Record<string, unknown> | null;
  items?: readonly unknown[] | null;
  path: ReadonlyArray<string | number>;
  label?: string;
  errors?: readonly GraphQLError[];
  extensions?: Record<string, unknown>;
}

/** What an incremental operation yields: the initial result (`data`, `hasNext: true`), then `{incremental, hasNext}`. */
export interface IncrementalPayload extends ExecutionResult {
  hasNext?: boolean;
  incremental?: readonly IncrementalEntry[];
}

/** `@graphql-tools/executor`, loaded with the first document that defers or streams (most gateways never see one). */
let incrementalExecutor: Promise<typeof import('@graphql-tools/executor')> | undefined;

/**
 * Executes a query with `@defer`/`@stream`: one result when nothing was deferred after all (`if: false`), else the
 * initial result followed by the subsequent payloads, the last with `hasNext: false`. When `signal` fires (the client
 * left, shutdown's grace ran out) the parts stop: the operation's upstream requests are aborted with it, and the
 * stream ends as its protocol ends normally.
 */
export async function executeIncremental(
  args: ExecutionArgs,
  signal: AbortSignal,
): Promise<ExecutionResult | AsyncGenerator<IncrementalPayload, void, void>> {
  const {
    execute: executeIncrementally,
    flattenIncrementalResults,
    isIncrementalResults,
  } = await (incrementalExecutor ??= import('@graphql-tools/executor'));
  const result = await executeIncrementally({ ...args, variableValues: args.variableValues ?? undefined });
  if (!isIncrementalResults(result)) return result as ExecutionResult;
  return endedBy(flattenIncrementalResults(result) as AsyncGenerator<IncrementalPayload, void, void>, signal);
}

/**
 * `parts` until the last, or until `signal` fires: then at once (a part waiting on an upstream that ignores the abort
 * is not awaited) with a last `{hasNext: false}`, so every transport still ends the way its protocol ends.
 */
async function* endedBy(
  parts: AsyncGenerator<IncrementalPayload, void, void>,
  signal: AbortSignal,
): AsyncGenerator<IncrementalPayload, void, void> {
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  try {
    for (;;) {
      const pending = parts.next();
      // Left behind on abort: its outcome no longer matters.
      pending.catch(() => undefined);
      const next = await Promise.race([pending, aborted]);
      if (next === 'aborted') {
        yield { hasNext: false };
        return;
      }
      if (next.done) return;
      yield next.value;
      if (next.value.hasNext === false) return;
    }
  } finally {
    void parts.return(undefined);
  }
}

/** Whether an operation is delivered in parts: a query or mutation using `@defer`/`@stream` (subscriptions stream already). */
export function deliversIncrementally(operation: { operation: string }, document: DocumentNode): boolean {
  return operation.operation !== 'subscription' && usesIncrementalDelivery(document);
}

/**
 * `@defer` and `@stream` used as the incremental delivery RFC allows (graphql-js 17's validation rules for them, which
 * graphql 16 lacks): not on the root of a mutation or subscription, `@stream` on list fields only, each `label` a
 * string written in the document and used once, `initialCount` not negative. Each refusal is a validation error
 * (`BAD_USER_INPUT`) before anything runs, where the executor would fail with an internal error.
 */
export const incrementalDeliveryRule: ValidationRule = (context) => {
  const labels = new Set<string>();
  const schema = context.getSchema();
  return {
    Directive(node, _key, _parent, _path, ancestors) {
      const name = node.name.value;
      if (!INCREMENTAL_NAMES.has(name)) return;
      const report = (message: string) => context.reportError(new GraphQLError(message, { nodes: node }));
      const parentType = context.getParentType();
      const root =
        parentType &&
        (parentType === schema.getMutationType()
          ? 'mutation'
          : parentType === schema.getSubscriptionType()
            ? 'subscription'
            : undefined);
      if (root)
        report(
          `@${name} cannot be used on the root fields of a ${root}: the ${root} runs whole; defer or stream inside its result instead.`,
        );
      const label = node.arguments?.find((a) => a.name.value === 'label')?.value;
      if (label && label.kind !== Kind.STRING)
        report(
          `@${name}(label:) must be a string written in the document, not a variable: a client tells its parts apart by it.`,
        );
      else if (label) {
        if (labels.has(label.value))
          report(
            `@${name}(label: ${JSON.stringify(label.value)}) is used twice: give each deferred or streamed part a label of its own.`,
          );
        labels.add(label.value);
      }
      if (name !== 'stream') return;
      const owner = ancestors[ancestors.length - 1] as ASTNode | undefined;
      const field = context.getFieldDef();
      if (owner && 'kind' in owner && owner.kind === Kind.FIELD && field && !isListType(getNullableType(field.type))) {
        report(
          `@stream is for list fields: ${parentType?.name}.${field.name} is ${String(field.type)}; use @defer on its fragment instead.`,
        );
      }
      const count = node.arguments?.find((a) => a.name.value === 'initialCount')?.value;
      if (count?.kind === Kind.NULL || (count?.kind === Kind.INT && Number(count.value) < 0))
        report(initialCountMessage(count.kind === Kind.NULL ? null : Number(count.value)));
    },
  };
};

const initialCountMessage = (value: unknown) =>
  `@stream(initialCount: ${JSON.stringify(value)}) must be 0 or more: the number of items sent before the rest stream.`;

/** The `@stream` directives of each document whose `initialCount` is a variable (most documents have none). */
const variableCounts = new WeakMap<OperationDefinitionNode, { directive: DirectiveNode; variable: string }[]>();

/**
 * A `@stream(initialCount: $n)` whose variable is null or negative (the literal cases are {@link incrementalDeliveryRule}'s),
 * as `BAD_USER_INPUT` before execution; undefined when every count is valid. Fragments are walked with the operation.
 */
export function incrementalArgumentsError(
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): GraphQLError | undefined {
  if (!usesIncrementalDelivery(document)) return undefined;
  let counts = variableCounts.get(operation);
  if (!counts) {
    const found: { directive: DirectiveNode; variable: string }[] = [];
    const collect = (node: ASTNode) =>
      visit(node, {
        Directive(directive) {
          const count =
            directive.name.value === 'stream'
              ? directive.arguments?.find((a) => a.name.value === 'initialCount')?.value
              : undefined;
          if (count?.kind === Kind.VARIABLE) found.push({ directive, variable: count.name.value });
        },
      });
    collect(operation);
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) collect(d);
    variableCounts.set(operation, (counts = found));
  }
  for (const { directive, variable } of counts) {
    const definition = operation.variableDefinitions?.find((v) => v.variable.name.value === variable);
    const given =
      variables && variable in variables
        ? variables[variable]
        : definition?.defaultValue?.kind === Kind.INT
          ? Number(definition.defaultValue.value)
          : definition?.defaultValue?.kind === Kind.NULL
            ? null
            : undefined;
    if (given === null || (typeof given === 'number' && given < 0)) {
      return new GraphQLError(initialCountMessage(given), {
        nodes: directive,
        extensions: { code: ErrorCode.BadUserInput, argument: variable, http: { status: 400 } },
      });
    }
  }
  return undefined;
}
