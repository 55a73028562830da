import type { ExecutionResult } from 'graphql';

/*
 * Subscription events that many subscribers receive as one object, executed once per selection.
 *
 * A subscription runs its selection against every event it receives. When a source hands the same event to thousands
 * of subscribers (live health: one poll, every dashboard), most of them selected the same fields with the same
 * variables, and their results are the same object graph, built and serialised once per subscriber. A source whose
 * event payload does not depend on who subscribed marks the event shared ({@link shareEvent}) and names the context
 * its executions run with: then each (document, operation, variables) executes once per event, with that context and
 * not any subscriber's, and transports serialise the one result once ({@link sharedResultJson}).
 *
 * Why that gives no subscriber another's data: the shared execution never sees a subscriber's context (its
 * credentials, API key, request id), only the one the source gave, so nothing it resolves can come from one
 * subscriber; subscribers share a result only when their document, operation name and variables are the same, and
 * only for an event the source already decided each of them receives (its filters run before). Errors are formatted
 * per subscriber from the shared result, by each operation's own formatter. An event not marked shared (a chat
 * stream's chunk, any per-caller source) runs per subscriber with the subscriber's context, as before.
 */

/**
 * What a shared event's executions run with and what they produced, per compiled selection and variables. The event
 * carries it ({@link shareEvent}) and the results it holds know their own JSON text ({@link SharedResult}): both live
 * exactly as long as what they describe, and no table outside them holds anything. No connection or operation could
 * own it: one event's executions serve every subscriber of it, on every connection.
 */
export class SharedExecutions {
  /** Results by compiled selection (one per document and operation name), then by the variables' JSON text. */
  readonly results = new Map<object, Map<string, SharedExecution>>();

  constructor(
    /** The context every subscriber's execution of this event runs with (the source's, never a subscriber's). */
    readonly contextValue: unknown,
  ) {}
}

/** One selection's execution of a shared event: its result once settled, for subscribers that take it at once. */
class SharedExecution {
  settled: SharedResult | undefined;
  readonly result: Promise<SharedResult>;

  constructor(result: Promise<ExecutionResult>) {
    this.result = result.then((r) => (this.settled = new SharedResult(r)));
  }
}

/** An event handed to many subscribers as one object, carrying its executions. */
export interface SharedEvent {
  readonly sharedExecutions: SharedExecutions;
}

/** A result of a shared execution: the same object for every subscriber of its selection and variables. */
export class SharedResult implements ExecutionResult {
  declare readonly data?: ExecutionResult['data'];
  declare readonly errors?: ExecutionResult['errors'];
  declare readonly extensions?: ExecutionResult['extensions'];
  /** Not a property JSON.stringify sees. */
  #json: string | undefined;

  constructor(result: ExecutionResult) {
    // Only the keys the result has, in its order: the text is what JSON.stringify(result) would be.
    Object.assign(this, result);
  }

  /**
   * Its JSON text (`JSON.stringify(result)`), made on the first call; undefined with errors, which each operation
   * formats on its own.
   */
  json(): string | undefined {
    if (this.errors?.length) return undefined;
    return (this.#json ??= JSON.stringify(this));
  }
}

/**
 * Marks `event` as handed to many subscribers as this one object, with a payload that does not depend on who
 * subscribed: their executions of the same selection and variables then run once, with `contextValue`.
 */
export function shareEvent<T extends object>(event: T, contextValue: unknown): T & SharedEvent {
  // Not enumerable: a copy of the event (a spread, its JSON) is not the shared object, as it never was.
  return Object.defineProperty(event, 'sharedExecutions', { value: new SharedExecutions(contextValue) }) as T &
    SharedEvent;
}

/**
 * The result of `execute` for a shared event, run once for every subscriber of the same `selection` (a compiled
 * query: one per document and operation name) and `variablesKey` (the variables' JSON text); undefined when the
 * event is not shared, for the caller to execute with the subscriber's own context.
 */
export function sharedExecution(
  event: unknown,
  selection: object,
  variablesKey: string,
  execute: (contextValue: unknown) => Promise<ExecutionResult>,
): Promise<ExecutionResult> | undefined {
  const shared = executionsOf(event);
  if (!shared) return undefined;
  let byVariables = shared.results.get(selection);
  if (!byVariables) shared.results.set(selection, (byVariables = new Map()));
  let execution = byVariables.get(variablesKey);
  if (!execution) {
    execution = new SharedExecution(execute(shared.contextValue));
    byVariables.set(variablesKey, execution);
  }
  return execution.result;
}

/**
 * The result of {@link sharedExecution} for `selection` and `variablesKey` once it has settled (a subscriber can then
 * take it at once, in the producer's turn); undefined before, when it failed, or when the event is not shared.
 */
export function settledExecution(event: unknown, selection: object, variablesKey: string): ExecutionResult | undefined {
  return executionsOf(event)?.results.get(selection)?.get(variablesKey)?.settled;
}

function executionsOf(event: unknown): SharedExecutions | undefined {
  const shared =
    typeof event === 'object' && event !== null ? (event as Partial<SharedEvent>).sharedExecutions : undefined;
  return shared instanceof SharedExecutions ? shared : undefined;
}

/**
 * The JSON text of a result many subscribers share (`JSON.stringify(result)`), made on the first call and kept while
 * the result is; undefined for any other result, and for one with errors, which each operation formats on its own.
 */
export function sharedResultJson(result: ExecutionResult): string | undefined {
  return result instanceof SharedResult ? result.json() : undefined;
}
