import type {
  DocumentNode,
  ExecutionResult,
  FormattedExecutionResult,
  GraphQLError,
  OperationDefinitionNode,
} from 'graphql';
import type { IncrementalPayload } from '../execution/deferStream.js';
import type { OperationTrace, Transport } from '../observability/tracing.js';
import type { Caller, ClientIdentity, GatewayContext } from '../context/request.js';

export type { Caller, ClientIdentity } from '../context/request.js';
import type { CachePolicy } from './rules/cachePolicy.js';

/** An operation as a client sends it, whatever the transport (a JSON body, GET parameters, a graphql-ws payload). */
export interface OperationPayload {
  query?: string;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  extensions?: Record<string, unknown> | null;
  documentId?: string;
}

/** One operation from its start to its end: its context, cancellation, span and the codes of its errors. */
export interface Operation {
  readonly transport: Transport;
  /** Who sent it, as its transport knows it (`{}` when it does not). */
  readonly client: ClientIdentity;
  readonly context: GatewayContext;
  /** Aborting it aborts the operation's upstream requests. */
  readonly controller: AbortController;
  readonly started: number;
  /** Known once the document is parsed and validated. */
  document?: DocumentNode;
  operation?: OperationDefinitionNode;
  /**
   * As sent until `rules/operationInputs.ts` coerces them to the operation's variable types (defaults applied, each
   * scalar parsed), which it does before any other rule reads them: what every later rule reads.
   */
  variables?: Record<string, unknown>;
  /**
   * As the client sent them: what execution is given. graphql-jit and graphql-js coerce variables themselves and take
   * no coerced values, and coercing twice is not the same for every type (an enum's internal value, an `Upload`).
   */
  sentVariables?: Record<string, unknown>;
  /** The operation's name as the client chose it (capped before it reaches a log line or a metric). */
  name: string | null;
  /** `query`, `mutation`, `subscription`, or `unknown` until resolved. */
  type: string;
  trace?: OperationTrace;
  /** From the `@cacheControl` hints of what it selects (`cachePolicy.ts`), once admitted. */
  cachePolicy?: CachePolicy;
  /** An answer found at admission (the response cache): the operation is then not executed. */
  answer?: ExecutionResult;
  readonly errorCodes: ErrorCodes;
}

/**
 * The codes of an operation's errors: a set made on the first one. Most operations have none, and a subscription keeps
 * its operation for its whole life (an empty Set is a hash table of its own).
 */
export class ErrorCodes implements Iterable<string> {
  private codes: Set<string> | undefined;

  add(code: string): this {
    (this.codes ??= new Set()).add(code);
    return this;
  }

  get size(): number {
    return this.codes?.size ?? 0;
  }

  [Symbol.iterator](): Iterator<string> {
    return (this.codes ?? NONE).values();
  }
}

const NONE: ReadonlySet<string> = new Set();

/** An operation whose document passed parsing, validation and every admission rule. */
export type AdmittedOperation = Operation & { document: DocumentNode; operation: OperationDefinitionNode };

/** An error refusing the operation, or nothing. */
export type Refusal = GraphQLError | undefined;

/** What a `prepare` rule may ask of the pipeline's document cache (documentCache.ts). */
export interface KnownDocuments {
  /** Whether this exact text is cached as a document that parsed and validated. */
  valid(query: string): boolean;
}

/**
 * One concern of the pipeline. Each stage is optional; the pipeline calls the rules in their list order, so one more
 * rule (a cap per client, a cache) is one more module in that list.
 */
export interface PipelineRule {
  readonly name: string;
  /**
   * Before parsing, on the payload as sent: may replace it (a persisted operation's id becomes its document).
   * `documents` tells a text already parsed and validated (the pipeline's document cache): what was checked of it
   * when it was first prepared need not be checked again.
   */
  prepare?(payload: OperationPayload, documents?: KnownDocuments): OperationPayload | GraphQLError;
  /** When the operation starts, before its document is known (HTTP starts it before Apollo parses). */
  begin?(op: Operation, caller: Caller): void;
  /** After parsing and validation, before execution: the last chance to refuse without an upstream request. */
  admit?(op: AdmittedOperation): Refusal | Promise<Refusal>;
  /**
   * Once every rule admitted it, before it runs: its wait in line for what it will hold (a chat stream's provider
   * connection), so that nothing that could refuse it waits behind others first. A refusal here (the wait given up)
   * refuses it; a rule that holds something for it gives it back in `finish` or on its signal.
   */
  waitTurn?(op: AdmittedOperation): Refusal | Promise<Refusal>;
  /**
   * When a query or mutation has its result, before the client gets it (not for an answer found at admission): may
   * keep the result or drop what a write changed.
   */
  completed?(op: AdmittedOperation, result: ExecutionResult | FormattedExecutionResult): void | Promise<void>;
  /**
   * When a result or part of the operation leaves for the client (each, once): extensions every answer carries (its
   * cost). Not for an answer the response cache found at admission.
   */
  answered?(
    op: Operation,
    result: ExecutionResult | FormattedExecutionResult | IncrementalPayload,
  ): Record<string, unknown> | undefined;
  /** When the operation ends, whatever its outcome: once per operation. */
  finish?(op: Operation): void;
}
