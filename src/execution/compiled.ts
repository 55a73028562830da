import {
  createSourceEventStream,
  execute,
  subscribe,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { attachDirect, DIRECT, park, PARK, type DirectConsumer, type DirectSource } from './eventStream.js';
import { eventSelections } from './eventSelections.js';
import { perOperation } from './perOperation.js';
import { settledExecution, sharedExecution } from './sharedEvents.js';
import { sourceStream } from './sourceStream.js';

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
export function compiledExecute(
  schema: GraphQLSchema,
): (args: ExecutionArgs) => Promise<ExecutionResult> | ExecutionResult {
  const compiledFor = compiledQueries(schema);
  // Not an async function: the generated function's own promise (or its result) is handed on as it is, not awaited
  // and resolved again (two promises per operation).
  return (args) => {
    try {
      const query = compiledFor(args.document, args.operationName ?? null);
      if (!query) return execute(args);
      const result = query.query(args.rootValue, args.contextValue, args.variableValues ?? {}) as
        | ExecutionResult
        | Promise<ExecutionResult>;
      // A promise means resolvers ran: the variables coerced. No data at all (always answered at once) means they
      // failed to, before any resolver ran; graphql-js names the custom scalar's reason ("Date must be a calendar day
      // …") where graphql-jit says only "Expected type".
      if (result instanceof Promise) return result;
      return result.data === undefined && result.errors?.length ? execute(args) : result;
    } catch (error) {
      // A failure to compile or to start fails the promise, as it did when this was an async function.
      return Promise.reject(error);
    }
  };
}

/** Each document's compiled form by operation name, compiled on first use; null when graphql-jit cannot compile it. */
export function compiledQueries(
  schema: GraphQLSchema,
): (document: DocumentNode, operationName: string | null) => CompiledQuery | null {
  return perOperation((document, operationName) => {
    const result = compileQuery(schema, document, operationName ?? undefined);
    return isCompiledQuery(result) ? result : null;
  });
}

/**
 * graphql-js `subscribe` with compiled per-event execution: graphql-js opens the source stream (the subscribe
 * resolver with its arguments, its errors as graphql-js words them), then each event runs the compiled selection
 * where graphql-js would execute the whole document again and coerce the variables again with its generic walker.
 * The variables are coerced once per subscription (eventSelections.ts), not per event, and not again to open the source
 * stream when the caller coerced them (sourceStream.ts).
 * graphql-jit's own `subscribe` is not used: 0.8.9 hands the subscribe resolver the variables instead of the
 * field's arguments, so literal arguments (`serverTime(intervalMs: 20)`) would be lost.
 */
export function compiledSubscribe(schema: GraphQLSchema): (
  args: ExecutionArgs,
  /** `args.variableValues` as graphql-js coerces them, when the caller has them already: not coerced again. */
  coercedVariables?: Record<string, unknown>,
) => ReturnType<typeof subscribe> {
  const selectionFor = eventSelections(schema);
  return async (args, coercedVariables) => {
    const selection = selectionFor(args.document, args.operationName ?? null);
    if (!selection) return subscribe(args);
    // The caller's coerced variables open the source stream as they are (sourceStream.ts), not coerced a second time.
    const source = await (coercedVariables ? sourceStream(args, coercedVariables) : createSourceEventStream(args));
    if (!(Symbol.asyncIterator in source)) return source;
    return new MappedEvents<ExecutionResult>(
      source[Symbol.asyncIterator](),
      new CompiledEvents(selection.query, args, selection.variables(args.variableValues, coercedVariables)),
    );
  };
}

/**
 * Runs one subscription's compiled selection on each event: once per event for the subscriber, or, for an event many
 * subscribers share, once for all of them with the same selection and variables (sharedEvents.ts says why that is
 * safe). An object rather than closures: a subscription holds it for its whole life.
 */
class CompiledEvents {
  private variablesKey: string | undefined;

  constructor(
    private readonly query: CompiledQuery,
    private readonly args: ExecutionArgs,
    /** What `query` runs with: coerced when the subscription started. */
    private readonly variables: Record<string, unknown>,
  ) {}

  map(event: unknown): Promise<ExecutionResult> {
    return this.shared(event) ?? this.run(event, this.args.contextValue);
  }

  /** For a shared event: its execution for this selection and variables, started (or found) for every subscriber. */
  shared(event: unknown): Promise<ExecutionResult> | undefined {
    return sharedExecution(event, this.query, this.key(), (contextValue) => this.run(event, contextValue));
  }

  /** For a shared event whose execution for this selection and variables has settled: its result. */
  settled(event: unknown): ExecutionResult | undefined {
    return settledExecution(event, this.query, this.key());
  }

  private key(): string {
    return (this.variablesKey ??= JSON.stringify(this.args.variableValues ?? {}));
  }

  /** Not an async function: most selections resolve at once, and awaiting them cost a reaction and a tick per event. */
  private run(event: unknown, contextValue: unknown): Promise<ExecutionResult> {
    let result: ReturnType<CompiledQuery['query']>;
    try {
      result = this.query.query(event, contextValue, this.variables);
    } catch (error) {
      return Promise.reject(error);
    }
    if (!(result instanceof Promise))
      return Promise.resolve(this.checked(result as ExecutionResult, event, contextValue));
    return result.then((r) => this.checked(r as ExecutionResult, event, contextValue));
  }

  private checked(
    result: ExecutionResult,
    event: unknown,
    contextValue: unknown,
  ): ExecutionResult | Promise<ExecutionResult> {
    // As in compiledExecute: no data at all is a coercion failure; graphql-js words it.
    return result.data === undefined && result.errors?.length
      ? execute({ ...this.args, contextValue, rootValue: event })
      : result;
  }
}

const yielded = <T>(value: T): IteratorResult<T, void> => ({ value, done: false });

/**
 * `iterator` with `mapper.map` applied to each value; return() and throw() reach the source at once (as graphql-js's).
 * A class with promise chains rather than an object of async closures: a subscription holds it for its whole life
 * (ten thousand of them for a live-health fan-out), waiting in next() most of the time, which is then one pending
 * reaction instead of a suspended async function, and its methods are not made again per subscription.
 */
class MappedEvents<T> implements AsyncGenerator<T, void, void>, DirectSource<T>, DirectConsumer<unknown> {
  private direct: DirectConsumer<T> | undefined;
  /**
   * Bound once, on the first next(): a stream's pending next() waits on it without a closure and context per call,
   * and a subscription that rests between shared events ({@link park}) never makes it.
   */
  private bound: ((result: IteratorResult<unknown>) => ReturnType<MappedEvents<T>['mapped']>) | undefined;

  constructor(
    private readonly iterator: AsyncIterator<unknown>,
    private readonly mapper: {
      map(value: unknown): Promise<T>;
      shared(value: unknown): Promise<unknown> | undefined;
      settled(value: unknown): T | undefined;
    },
  ) {}

  /** A consumer that takes mapped values at once: a shared event whose execution settled is mapped in the producer's turn. */
  [DIRECT](consumer: DirectConsumer<T>): void {
    this.direct = consumer;
    attachDirect(this.iterator, this);
  }

  prepare(event: unknown): Promise<unknown> | undefined {
    return this.mapper.shared(event);
  }

  take(event: unknown): boolean {
    const result = this.mapper.settled(event);
    return result !== undefined && this.direct!.take(result);
  }

  [PARK](): boolean {
    return park(this.iterator);
  }

  wake(): void {
    this.direct?.wake?.();
  }

  next(): Promise<IteratorResult<T, void>> {
    return this.iterator.next().then(this.mapResult);
  }

  return(): Promise<IteratorResult<T, void>> {
    return this.iterator.return
      ? this.iterator.return().then(this.mapResult)
      : Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<T, void>> {
    return this.iterator.throw ? this.iterator.throw(error).then(this.mapResult) : Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private get mapResult(): (result: IteratorResult<unknown>) => ReturnType<MappedEvents<T>['mapped']> {
    return (this.bound ??= (result) => this.mapped(result));
  }

  /** No async function: ten thousand subscribers of one shared event wait here at once, as one reaction each. */
  private mapped(result: IteratorResult<unknown>): IteratorResult<T, void> | Promise<IteratorResult<T, void>> {
    if (result.done) return { value: undefined, done: true };
    return this.mapper.map(result.value).then(yielded<T>, this.stopOnError);
  }

  private stopping: ((error: unknown) => Promise<never>) | undefined;

  /** A value that failed to map ends the source, then rejects: made once, as `mapResult`, not a closure per event. */
  private get stopOnError(): (error: unknown) => Promise<never> {
    return (this.stopping ??= (error) => {
      const stopped = this.iterator.return?.();
      return (stopped ?? Promise.resolve()).then(
        () => Promise.reject(error),
        () => Promise.reject(error),
      );
    });
  }
}
