import {
  getOperationAST,
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import { LRUCache } from 'lru-cache';
import { ErrorReason } from '../errors/codes.js';
import { runInTrace, type Tracing } from '../observability/tracing.js';
import { createContext } from '../context/request.js';
import type { GatewayServices } from '../context/services.js';
import type { UpstreamEstimates } from '../planning/upstreamEstimate.js';
import { compiledExecute, compiledSubscribe } from '../execution/compiled.js';
import { deliversIncrementally, executeIncremental, type IncrementalEntry, type IncrementalPayload } from '../execution/incremental.js';
import { apiKeyRefusal, createApiKeyCheck, type ApiKeyCheck } from './rules/apiKey.js';
import { cancellation } from './rules/cancellation.js';
import { documentLimits } from './rules/documentLimits.js';
import { createErrorFormatter, type ErrorFormatter } from '../errors/format.js';
import type { AdmittedOperation, Operation, OperationInit, OperationPayload, PipelineRule, Refusal } from './operation.js';
import { capClientString, operationLog } from './rules/operationLog.js';
import { clientKey, fairShareRule, type FairShare } from './rules/fairShare.js';
import { PersistedOperations, persistedOperationsRule } from './rules/persistedOperations.js';
import { ResponseCache } from './rules/responseCache.js';
import { Shutdown } from './rules/shutdown.js';
import { titlesQuota } from './rules/titlesQuota.js';
import { operationTracing } from './rules/operationSpan.js';
import { upstreamBudget } from './rules/upstreamBudget.js';

export type { AdmittedOperation, Operation, OperationInit, OperationPayload, PipelineRule } from './operation.js';

/** Options of {@link OperationPipeline}. */
export interface OperationPipelineOptions {
  schema: GraphQLSchema;
  services: GatewayServices;
  /** The rules, in the order each stage runs them (see src/pipeline/README.md). */
  rules: readonly PipelineRule[];
  /** Validation rules beyond graphql-js's own (the operation limits). */
  validationRules: readonly ValidationRule[];
  format: ErrorFormatter;
  shutdown: Shutdown;
  /** GATEWAY_API_KEYS; undefined lets every caller in. */
  apiKeyCheck?: ApiKeyCheck;
  /** Only the persisted-operation manifest's documents run (Apollo's own APQ is then off). @default false */
  persistedOnly?: boolean;
}

/** What an in-process caller presents: the transport's init plus the API key a transport checks at connection. */
export interface InProcessInit extends Omit<OperationInit, 'transport'> {
  apiKey?: string;
  /** Fires when the caller gives up: aborts the operation's upstream requests. */
  signal?: AbortSignal;
  /** Named in the operation log line and metrics. @default 'in-process' */
  transport?: OperationInit['transport'];
}

/**
 * One operation pipeline for every transport: it admits an operation (each rule's `prepare`, parsing and validation
 * with the limits, each rule's `admit`), runs it (compiled execution), formats its errors and finishes it (each
 * rule's `finish`). Transports only turn their wire format into a payload and results back into their wire format;
 * HTTP hands parsing and execution to Apollo Server and calls the same stages from its plugin.
 */
export class OperationPipeline {
  readonly schema: GraphQLSchema;
  readonly format: ErrorFormatter;
  private readonly rules: readonly PipelineRule[];
  private readonly preparers: readonly PipelineRule[];
  private readonly beginners: readonly PipelineRule[];
  private readonly admitters: readonly PipelineRule[];
  private readonly completers: readonly PipelineRule[];
  private readonly finishers: readonly PipelineRule[];
  private readonly validationRules: readonly ValidationRule[];
  private readonly executeCompiled: ReturnType<typeof compiledExecute>;
  private readonly subscribeCompiled: ReturnType<typeof compiledSubscribe>;
  /**
   * Parsed and validated documents by text, as Apollo's document store does for HTTP: a chat UI subscribes with the
   * same document again and again, and parsing plus the limit rules would otherwise sit before every first token.
   */
  private readonly documents = new LRUCache<string, DocumentNode | GraphQLError[]>({ max: 1000, maxSize: 50 * 1024 * 1024, sizeCalculation: (_v, key) => key.length + 1 });

  /** GATEWAY_API_KEYS is set: clients are told apart by their key, else by their address. */
  private readonly keyed: boolean;

  constructor(private readonly options: OperationPipelineOptions) {
    this.schema = options.schema;
    this.format = options.format;
    this.rules = options.rules;
    this.preparers = this.rules.filter((r) => r.prepare);
    this.beginners = this.rules.filter((r) => r.begin);
    this.admitters = this.rules.filter((r) => r.admit);
    this.completers = this.rules.filter((r) => r.completed);
    this.finishers = this.rules.filter((r) => r.finish);
    this.keyed = options.services.config.apiKeys.length > 0;
    const introspection = options.services.config.introspection;
    this.validationRules = [...specifiedRules, ...options.validationRules, ...(introspection ? [] : [NoSchemaIntrospectionCustomRule])];
    this.executeCompiled = compiledExecute(options.schema);
    this.subscribeCompiled = compiledSubscribe(options.schema);
  }

  /** The operation limits as validation rules, for a transport that validates itself (Apollo). */
  get limitRules(): readonly ValidationRule[] {
    return this.options.validationRules;
  }

  /** Whether only the persisted-operation manifest's documents run. */
  get persistedOnly(): boolean {
    return this.options.persistedOnly ?? false;
  }

  /** GATEWAY_API_KEYS as a check, for transports that authenticate a connection once. */
  get apiKeyCheck(): ApiKeyCheck | undefined {
    return this.options.apiKeyCheck;
  }

  /** Whether the gateway is draining: new operations are refused. */
  get draining(): boolean {
    return this.options.shutdown.isDraining;
  }

  /** The refusal of any new operation while draining for shutdown (HTTP 503), else undefined. */
  drainingRefusal(): Refusal {
    return this.options.shutdown.refusal();
  }

  /** UNAUTHENTICATED unless `apiKey` is one of GATEWAY_API_KEYS (when any are set). */
  authenticate(apiKey: string | undefined): Refusal {
    const check = this.options.apiKeyCheck;
    return check && !check(apiKey) ? apiKeyRefusal() : undefined;
  }

  /** Before parsing: shutdown, persisted operations, document size. Gives the payload to run or the refusal. */
  prepare(payload: OperationPayload): OperationPayload | GraphQLError {
    const closing = this.options.shutdown.refusal();
    if (closing) return closing;
    let current = payload;
    for (const rule of this.preparers) {
      const next = rule.prepare!(current);
      if (next instanceof GraphQLError) return next;
      current = next;
    }
    return current;
  }

  /** Starts an operation (its context, cancellation and span) before its document is known. */
  begin(init: OperationInit, signal?: AbortSignal): Operation {
    const controller = new AbortController();
    if (signal?.aborted) controller.abort(signal.reason);
    else signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    const context = createContext(this.options.services, { requestId: capClientString(init.requestId), signal: controller.signal, authorization: init.authorization, apiKey: init.client?.apiKey, client: clientKey(this.keyed, init.client) });
    const op: Operation = { transport: init.transport, client: init.client ?? {}, context, controller, started: performance.now(), name: null, type: 'unknown', errorCodes: new Set(), finished: false };
    for (const rule of this.beginners) rule.begin!(op, init);
    return op;
  }

  /** Runs every rule's `admit` on a parsed and validated operation; the first refusal wins. */
  admitResolved(
    op: Operation,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown> | null | undefined,
    operationName?: string | null,
  ): Refusal | Promise<Refusal> {
    op.document = document;
    op.operation = operation;
    op.variables = variables ?? undefined;
    op.type = operation.operation;
    op.name = operationName ?? operation.name?.value ?? null;
    return this.admitFrom(op as AdmittedOperation, 0);
  }

  private admitFrom(op: AdmittedOperation, start: number): Refusal | Promise<Refusal> {
    for (let i = start; i < this.admitters.length; i++) {
      // An answer found (the response cache) costs no upstream request: the budget and quota rules have nothing to judge.
      if (op.answer) return undefined;
      const refusal = this.admitters[i].admit!(op);
      // Only a rule that must wait (a quota read) makes the admission asynchronous.
      if (refusal instanceof Promise) return refusal.then((r) => r ?? this.admitFrom(op, i + 1));
      if (refusal) return refusal;
    }
    return undefined;
  }

  /** Admits a payload from a transport: prepared, parsed, validated, begun and admitted, or its request errors. */
  async admit(payload: OperationPayload, init: OperationInit, signal?: AbortSignal): Promise<AdmittedOperation | GraphQLError[]> {
    const prepared = this.prepare(payload);
    if (prepared instanceof GraphQLError) return [prepared];
    const query = prepared.query;
    if (typeof query !== 'string') return [requestError(new GraphQLError('Send the operation as a string in "query".'), ErrorReason.BadRequest)];
    const checked = this.checkedDocument(query);
    if (Array.isArray(checked)) return checked;
    const operation = getOperationAST(checked, prepared.operationName);
    if (!operation) {
      const which = prepared.operationName ? `no operation named ${JSON.stringify(capClientString(prepared.operationName))}` : 'several operations and no operationName';
      return [requestError(new GraphQLError(`The document has ${which}: send the name of the one to run in "operationName".`), ErrorReason.OperationResolutionFailure)];
    }
    const op = this.begin(init, signal);
    const refusal = await this.admitResolved(op, checked, operation, prepared.variables, prepared.operationName);
    if (refusal) {
      this.format([refusal], op);
      this.finish(op);
      return [refusal];
    }
    return op as AdmittedOperation;
  }

  /**
   * Executes an admitted operation with its span active: a stream for a subscription, and for a query or mutation
   * with `@defer`/`@stream` its parts (the initial result, then `{incremental, hasNext}` payloads); one result
   * otherwise, after each rule's `completed` (the response cache keeps it). An answer a rule found at admission (a
   * cached response) is returned without executing. A transport that cannot send parts passes `incremental: false`
   * and gets the whole result, compiled.
   */
  run(op: AdmittedOperation, options: { incremental?: boolean } = {}): Promise<AsyncGenerator<IncrementalPayload, void, void> | ExecutionResult> | ExecutionResult {
    if (op.answer) return op.answer;
    const args = { schema: this.schema, document: op.document, contextValue: op.context, variableValues: op.variables, operationName: op.name };
    return runInTrace(op.trace, () => {
      if (op.type === 'subscription') return this.subscribeCompiled(args);
      if (options.incremental !== false && deliversIncrementally(op.operation, op.document)) return executeIncremental(args, op.controller.signal);
      const result = this.executeCompiled(args);
      if (!this.completers.length) return result;
      return Promise.resolve(result).then(async (r) => {
        await this.completed(op, r);
        return r;
      });
    });
  }

  /** Whether {@link run} delivers this operation in parts (a query or mutation with `@defer`/`@stream`). */
  isIncremental(op: AdmittedOperation): boolean {
    return deliversIncrementally(op.operation, op.document);
  }

  /** Each rule's `completed` on a query's or mutation's result, before the client gets it (HTTP calls it from Apollo's plugin). */
  async completed(op: AdmittedOperation, result: ExecutionResult | FormattedExecutionResult): Promise<void> {
    if (op.answer) return;
    for (const rule of this.completers) await rule.completed!(op, result);
  }

  /** Ends the operation once: each rule's `finish` (abort what is left upstream, the span, the log line, metrics). */
  finish(op: Operation): void {
    if (op.finished) return;
    op.finished = true;
    for (const rule of this.finishers) rule.finish!(op);
  }

  /**
   * The in-process entry point (the MCP endpoint, tools): the same rules as every transport, API key included,
   * and one formatted result. A subscription is refused here: use {@link subscribe}.
   */
  async execute(payload: OperationPayload, init: InProcessInit = { requestId: crypto.randomUUID() }): Promise<FormattedExecutionResult> {
    const admitted = await this.admitInProcess(payload, init);
    if (Array.isArray(admitted)) return { errors: this.format(admitted) };
    const op = admitted;
    try {
      if (op.type === 'subscription') {
        return { errors: this.format([requestError(new GraphQLError('A subscription streams: call subscribe() for it.'), ErrorReason.BadRequest)], op) };
      }
      // One answer: a document with `@defer`/`@stream` runs whole, as for a client that does not take parts.
      return this.formatted(op, (await this.run(op, { incremental: false })) as ExecutionResult);
    } catch (error) {
      return { errors: this.format([{ message: (error as Error)?.message ?? 'operation failed' }], op) };
    } finally {
      this.finish(op);
    }
  }

  /** The in-process entry point for any operation: a subscription's formatted events, or one formatted result. */
  async subscribe(payload: OperationPayload, init: InProcessInit = { requestId: crypto.randomUUID() }): Promise<AsyncGenerator<FormattedExecutionResult, void, void> | FormattedExecutionResult> {
    const admitted = await this.admitInProcess(payload, init);
    if (Array.isArray(admitted)) return { errors: this.format(admitted) };
    const op = admitted;
    let result: Awaited<ReturnType<OperationPipeline['run']>>;
    try {
      result = await this.run(op);
    } catch (error) {
      const errors = this.format([{ message: (error as Error)?.message ?? 'operation failed' }], op);
      this.finish(op);
      return { errors };
    }
    if (!(Symbol.asyncIterator in result)) {
      const formatted = this.formatted(op, result);
      this.finish(op);
      return formatted;
    }
    return this.formattedStream(op, result);
  }

  private async *formattedStream(op: AdmittedOperation, source: AsyncGenerator<ExecutionResult, void, void>): AsyncGenerator<FormattedExecutionResult, void, void> {
    const stop = () => void source.return(undefined);
    op.controller.signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const result of source) yield this.formatted(op, result);
    } finally {
      op.controller.signal.removeEventListener('abort', stop);
      this.finish(op);
    }
  }

  private admitInProcess(payload: OperationPayload, init: InProcessInit): Promise<AdmittedOperation | GraphQLError[]> {
    const refused = this.authenticate(init.apiKey);
    if (refused) return Promise.resolve([refused]);
    return this.admit(payload, { ...init, transport: init.transport ?? 'in-process', client: init.client ?? { apiKey: init.apiKey } }, init.signal);
  }

  /** A result (or an incremental payload) with its errors formatted for the client, those of each deferred part too. */
  formatted(op: Operation, result: ExecutionResult | IncrementalPayload): FormattedExecutionResult {
    const incremental = (result as IncrementalPayload).incremental;
    if (incremental?.some((entry) => entry.errors?.length)) {
      const entries = incremental.map((entry): IncrementalEntry => (entry.errors?.length ? { ...entry, errors: this.format(entry.errors, op) as never } : entry));
      result = { ...result, incremental: entries } as IncrementalPayload;
    }
    return result.errors?.length ? { ...result, errors: this.format(result.errors, op) } : (result as FormattedExecutionResult);
  }

  /** Refuses new operations, lets running ones finish within `graceMs`, then aborts the rest. */
  drain(graceMs: number): Promise<{ finished: number; aborted: number }> {
    return this.options.shutdown.drain(graceMs);
  }

  /** The parsed and validated document of a query text (kept in an LRU by text), or its request errors. */
  checkedDocument(query: string): DocumentNode | GraphQLError[] {
    const cached = this.documents.get(query);
    if (cached) return cached;
    let result: DocumentNode | GraphQLError[];
    try {
      const document = parse(query, { maxTokens: this.options.services.config.limits.maxTokens });
      const invalid = validate(this.schema, document, this.validationRules);
      result = invalid.length ? invalid.map((e) => (e.extensions.limit ? e : requestError(this.withoutSuggestions(e), ErrorReason.GraphqlValidationFailed))) : document;
    } catch (error) {
      result = [requestError(error as GraphQLError, ErrorReason.GraphqlParseFailed)];
    }
    this.documents.set(query, result);
    return result;
  }

  /** "Did you mean …?" reveals the schema; hidden wherever introspection is (as Apollo does for HTTP). */
  private withoutSuggestions(error: GraphQLError): GraphQLError {
    if (this.options.services.config.introspection) return error;
    const message = error.message.replace(/ ?Did you mean(.+?)\?$/, '');
    return message === error.message ? error : new GraphQLError(message, { nodes: error.nodes, source: error.source, positions: error.positions });
  }
}

function requestError(error: GraphQLError, reason: ErrorReason): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { code: reason } });
}

/** Options of {@link createOperationPipeline}. */
export interface CreatePipelineOptions {
  schema: GraphQLSchema;
  services: GatewayServices;
  /** Every domain's estimate of an operation's upstream requests, for the budget. */
  estimates: UpstreamEstimates;
  /** Undefined unless OTEL_EXPORTER_OTLP_ENDPOINT is set. */
  tracing?: Tracing;
  /** The caps per client (CLIENT_MAX_SUBSCRIPTIONS, CLIENT_MAX_CHAT_STREAMS, …), shared with the transports. */
  fairShare?: FairShare;
}

/**
 * The gateway's pipeline: its rules in order. `prepare` runs persisted operations before the size limit (an id
 * becomes a document first); `admit` runs the response cache before the budget (an answer found costs nothing to
 * judge) and the budget before the titles quota (which reuses the budget's estimate).
 */
export function createOperationPipeline(options: CreatePipelineOptions): OperationPipeline {
  const { schema, services } = options;
  const { config } = services;
  const limits = documentLimits(config.limits);
  const persisted = config.persistedOperationsFile ? PersistedOperations.load(config.persistedOperationsFile) : undefined;
  const shutdown = new Shutdown();
  const rules: PipelineRule[] = [
    ...(persisted ? [persistedOperationsRule(persisted)] : []),
    limits,
    operationTracing(options.tracing),
    ResponseCache.create(schema, services),
    upstreamBudget(schema, options.estimates, config.limits.maxUpstreamRequests),
    titlesQuota(schema),
    ...(options.fairShare ? [fairShareRule(options.fairShare)] : []),
    cancellation,
    operationLog(services),
    shutdown,
  ];
  return new OperationPipeline({
    schema,
    services,
    rules,
    validationRules: limits.validationRules,
    format: createErrorFormatter({ production: config.production, redact: services.redact, log: services.log }),
    shutdown,
    apiKeyCheck: createApiKeyCheck(config.apiKeys),
    persistedOnly: persisted !== undefined,
  });
}
