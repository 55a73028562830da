import { createSourceEventStream, execute, subscribe, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { sharedExecution } from './sharedEvents.js';

/*
 * Compiled execution of cached documents (graphql-jit). The document caches hand back the same `DocumentNode` for the
 * same query text, so each document (and operation name) is compiled once, on its first run, and kept while the
 * document is; a request then costs one call of the generated function instead of graphql-js walking the document
 * again. An operation graphql-jit cannot compile runs on graphql-js `execute`, unchanged.
 *
 * One known difference: graphql-jit 0.8.9 pushes the null of a list item whose promise rejects onto the end of the
 * list instead of its index, so a resolver must not return a list of promises that can reject (the one that did,
 * `_entities`, settles its list in schema/build.ts; an Error item is an item error in both executors).
 */

/**
 * Executes a query or mutation with its document's compiled form (graphql-jit), or graphql-js `execute` when
 * graphql-jit cannot compile it: the one executor of Apollo's HTTP path and the operation pipeline's.
 */
export function compiledExecute(schema: GraphQLSchema): (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult {
  const compiledFor = compiledQueries(schema);
  return async (args) => {
    const query = compiledFor(args.document, args.operationName ?? null);
    if (!query) return execute(args);
    const result = (await query.query(args.rootValue, args.contextValue, args.variableValues ?? {})) as ExecutionResult;
    // No data at all means the variables failed to coerce, before any resolver ran; graphql-js names the custom
    // scalar's reason ("Date must be a calendar day …") where graphql-jit says only "Expected type".
    return result.data === undefined && result.errors?.length ? execute(args) : result;
  };
}

/**
 * Each document's compiled form by operation name, compiled on first use and kept while the document is (a
 * WeakMap: the caches that hand out the same `DocumentNode` for the same text decide how long); null when
 * graphql-jit cannot compile it.
 */
export function compiledQueries(schema: GraphQLSchema): (document: DocumentNode, operationName: string | null) => CompiledQuery | null {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  return (document, operationName) => {
    let byName = compiled.get(document);
    if (!byName) compiled.set(document, (byName = new Map()));
    const key = operationName ?? '';
    let query = byName.get(key);
    if (query === undefined) {
      const result = compileQuery(schema, document, operationName ?? undefined);
      query = isCompiledQuery(result) ? result : null;
      byName.set(key, query);
    }
    return query;
  };
}

/**
 * graphql-js `subscribe` with compiled per-event execution: graphql-js opens the source stream (the subscribe
 * resolver with its arguments, its errors as graphql-js words them), then each event runs the compiled selection
 * where graphql-js would execute the whole document again and coerce the variables again with its generic walker
 * (≈ 0.1 ms per token for a chat input of a few messages; graphql-jit's generated coercion is a fraction of that).
 * graphql-jit's own `subscribe` is not used: 0.8.9 hands the subscribe resolver the variables instead of the
 * field's arguments, so literal arguments (`serverTime(intervalMs: 20)`) would be lost.
 */
export function compiledSubscribe(schema: GraphQLSchema): (args: ExecutionArgs) => ReturnType<typeof subscribe> {
  const compiledFor = compiledQueries(schema);
  return async (args) => {
    const query = compiledFor(args.document, args.operationName ?? null);
    if (!query) return subscribe(args);
    const source = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in source)) return source;
    const variables = args.variableValues ?? {};
    const run = async (event: unknown, contextValue: unknown) => {
      const result = (await query.query(event, contextValue, variables)) as ExecutionResult;
      // As in compiledExecute: no data at all is a coercion failure; graphql-js words it.
      return result.data === undefined && result.errors?.length ? execute({ ...args, contextValue, rootValue: event }) : result;
    };
    // An event many subscribers share runs once per selection and variables (sharedEvents.ts says why that is safe).
    let variablesKey: string | undefined;
    return mapEvents(source, (event) => sharedExecution(event, query, (variablesKey ??= JSON.stringify(variables)), (contextValue) => run(event, contextValue)) ?? run(event, args.contextValue));
  };
}

/** `source` with `map` applied to each value; return() and throw() reach the source at once (as graphql-js's). */
function mapEvents<T>(source: AsyncIterable<unknown>, map: (value: unknown) => Promise<T>): AsyncGenerator<T, void, void> {
  const iterator = source[Symbol.asyncIterator]();
  const mapped = async (result: IteratorResult<unknown>): Promise<IteratorResult<T, void>> => {
    if (result.done) return { value: undefined, done: true };
    try {
      return { value: await map(result.value), done: false };
    } catch (error) {
      await iterator.return?.().catch(() => undefined);
      throw error;
    }
  };
  const stream: AsyncGenerator<T, void, void> = {
    next: async () => mapped(await iterator.next()),
    return: async () => (iterator.return ? mapped(await iterator.return()) : { value: undefined, done: true }),
    throw: async (error?: unknown) => (iterator.throw ? mapped(await iterator.throw(error)) : Promise.reject(error)),
    [Symbol.asyncIterator]: () => stream,
  };
  return stream;
}
