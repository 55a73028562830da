import { execute as executeIncrementally, flattenIncrementalResults, isIncrementalResults } from '@graphql-tools/executor';
import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import { BREAK, GraphQLSchema, visit, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLError } from 'graphql';

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
  return new GraphQLSchema({ ...config, directives: [...config.directives, ...INCREMENTAL_DIRECTIVES.filter((d) => !own.has(d.name))] });
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
  errors?: ReadonlyArray<GraphQLError>;
  extensions?: Record<string, unknown>;
}

/** What an incremental operation yields: the initial result (`data`, `hasNext: true`), then `{incremental, hasNext}`. */
export interface IncrementalPayload extends ExecutionResult {
  hasNext?: boolean;
  incremental?: readonly IncrementalEntry[];
}

/**
 * Executes a query with `@defer`/`@stream`: one result when nothing was deferred after all (`if: false`), else the
 * initial result followed by the subsequent payloads, the last with `hasNext: false`. When `signal` fires (the client
 * left, shutdown's grace ran out) the parts stop: the operation's upstream requests are aborted with it, and the
 * stream ends as its protocol ends normally.
 */
export async function executeIncremental(args: ExecutionArgs, signal: AbortSignal): Promise<ExecutionResult | AsyncGenerator<IncrementalPayload, void, void>> {
  const result = await executeIncrementally({ ...args, variableValues: args.variableValues ?? undefined });
  if (!isIncrementalResults(result)) return result as ExecutionResult;
  return endedBy(flattenIncrementalResults(result) as AsyncGenerator<IncrementalPayload, void, void>, signal);
}

/**
 * `parts` until the last, or until `signal` fires: then at once (a part waiting on an upstream that ignores the abort
 * is not awaited) with a last `{hasNext: false}`, so every transport still ends the way its protocol ends.
 */
async function* endedBy(parts: AsyncGenerator<IncrementalPayload, void, void>, signal: AbortSignal): AsyncGenerator<IncrementalPayload, void, void> {
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
