import { setMaxListeners } from 'node:events';
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionResult, type FormattedExecutionResult, type GraphQLSchema, type OperationDefinitionNode, type ValidationRule } from 'graphql';
import { createContext } from '../context/request.js';
import type { GatewayServices } from '../context/services.js';
import { ErrorCode, ErrorReason, GatewayError } from '../errors/codes.js';
import type { ErrorFormatter } from '../errors/format.js';
import { compiledExecute, compiledSubscribe } from '../execution/compiled.js';
import { deliversIncrementally, executeIncremental, type IncrementalEntry, type IncrementalPayload } from '../execution/deferStream.js';
import { OncePerCause } from '../observability/oncePerCause.js';
import { runInTrace } from '../observability/tracing.js';
import { DocumentCache, requestError } from './documentCache.js';
import type { AdmittedOperation, Operation, OperationInit, OperationPayload, PipelineRule, Refusal } from './operation.js';
import { apiKeyRefusal, type ApiKeyCheck } from './rules/apiKey.js';
import { clientKey } from './rules/fairShare.js';
import { capClientString } from './rules/operationLog.js';
import type { Shutdown } from './rules/shutdown.js';

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

/**
 * One operation pipeline for every transport: it admits an operation (each rule's `prepare`, parsing and validation
 * with the limits, each rule's `admit`), runs it (compiled execution), formats its errors and finishes it (each
 * rule's `finish`). Transports only turn their wire format into a payload and results back into their wire format
 * (transports/); the in-process entry is one of them (transports/inProcess.ts). Where Apollo Server still parses for
 * HTTP (GET, APQ, batches), its plugin calls the same stages.
 */
export class OperationPipeline {
  readonly schema: GraphQLSchema;
  readonly format: ErrorFormatter;
  private readonly rules: readonly PipelineRule[];
  private readonly preparers: readonly PipelineRule[];
  private readonly beginners: readonly PipelineRule[];
  private readonly admitters: readonly PipelineRule[];
  private readonly completers: readonly PipelineRule[];
  private readonly answerers: readonly PipelineRule[];
  private readonly finishers: readonly PipelineRule[];
  private readonly executeCompiled: ReturnType<typeof compiledExecute>;
  private readonly subscribeCompiled: ReturnType<typeof compiledSubscribe>;
  /** The parsed and validated documents, one cache and one set of validation settings for every path (documentCache.ts). */
  readonly documents: DocumentCache;

  /** GATEWAY_API_KEYS is set: clients are told apart by their key, else by their address. */
  private readonly keyed: boolean;
  /** Listeners one operation's signal may have: one per upstream request in flight, within the upstream budget. */
  private readonly signalListeners: number;
  /** Which failures of rules reach the log (failedRule). */
  private readonly ruleFailures = new OncePerCause({ windowMs: 60_000, maxPerWindow: 32 });

  constructor(private readonly options: OperationPipelineOptions) {
    this.schema = options.schema;
    this.format = options.format;
    this.rules = options.rules;
    this.preparers = this.rules.filter((r) => r.prepare);
    this.beginners = this.rules.filter((r) => r.begin);
    this.admitters = this.rules.filter((r) => r.admit);
    this.completers = this.rules.filter((r) => r.completed);
    this.answerers = this.rules.filter((r) => r.answered);
    this.finishers = this.rules.filter((r) => r.finish);
    this.keyed = options.services.config.apiKeys.length > 0;
    this.signalListeners = options.services.config.limits.maxUpstreamRequests * Math.max(1, options.services.upstreams.length) + 10;
    this.documents = new DocumentCache(options.schema, { limitRules: options.validationRules, maxTokens: options.services.config.limits.maxTokens, introspection: options.services.config.introspection });
    this.executeCompiled = compiledExecute(options.schema);
    this.subscribeCompiled = compiledSubscribe(options.schema);
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
    // Each upstream request the operation waits on listens to its signal: as many as the upstream budget allows at
    // once, which Node's default of 10 would report as a leak.
    setMaxListeners(this.signalListeners, controller.signal);
    if (signal?.aborted) controller.abort(signal.reason);
    else signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    const context = createContext(this.options.services, { requestId: capClientString(init.requestId), signal: controller.signal, authorization: init.authorization, apiKey: init.client?.apiKey, client: clientKey(this.keyed, init.client), identity: init.client });
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
    op.variables = op.sentVariables = variables ?? undefined;
    op.type = operation.operation;
    op.name = operationName ?? operation.name?.value ?? null;
    return this.admitFrom(op as AdmittedOperation, 0);
  }

  private admitFrom(op: AdmittedOperation, start: number): Refusal | Promise<Refusal> {
    for (let i = start; i < this.admitters.length; i++) {
      // An answer found (the response cache) costs no upstream request: the budget and quota rules have nothing to judge.
      if (op.answer) return undefined;
      const rule = this.admitters[i];
      let refusal: Refusal | Promise<Refusal>;
      try {
        refusal = rule.admit!(op);
      } catch (error) {
        return this.failedRule(op, rule, error);
      }
      // Only a rule that must wait (a quota read) makes the admission asynchronous.
      if (refusal instanceof Promise) return refusal.then((r) => r ?? this.admitFrom(op, i + 1), (error: unknown) => this.failedRule(op, rule, error));
      if (refusal) return refusal;
    }
    return undefined;
  }

  /**
   * A rule that threw refuses its operation with INTERNAL_SERVER_ERROR (its text masked in production by the
   * formatter): one operation's bad luck never becomes its transport's crash. Logged with its stack once per cause
   * a minute, with the count of repeats left out since ({@link ruleFailureCause}): a fault every request hits is one
   * line, not 1 KB per request; each operation's own log line still carries its code.
   */
  private failedRule(op: Operation, rule: PipelineRule, error: unknown): Refusal {
    const suppressed = this.ruleFailures.take(ruleFailureCause(rule.name, error));
    if (suppressed !== undefined) {
      op.context.log.error({ rule: rule.name, err: this.options.services.redact(String((error as Error)?.stack ?? error)), suppressed }, 'a pipeline rule failed');
    }
    return new GatewayError(ErrorCode.InternalServerError, `The ${rule.name} rule failed: ${(error as Error)?.message ?? String(error)}`, { http: { status: 500 } });
  }

  /** Admits a payload from a transport: prepared, parsed, validated, begun and admitted, or its request errors. */
  async admit(payload: OperationPayload, init: OperationInit, signal?: AbortSignal): Promise<AdmittedOperation | GraphQLError[]> {
    const prepared = this.prepare(payload);
    if (prepared instanceof GraphQLError) return [prepared];
    const query = prepared.query;
    if (typeof query !== 'string') return [requestError(new GraphQLError('Send the operation as a string in "query".'), ErrorReason.BadRequest)];
    const checked = this.documents.checked(query);
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
    const args = { schema: this.schema, document: op.document, contextValue: op.context, variableValues: op.sentVariables, operationName: op.name };
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
   * The `extensions` a result or part leaving for the client carries: its own and each rule's `answered` (its cost).
   * Call it once per answer (it counts what the answer brings); transports that format results themselves call it,
   * {@link formatted} does for the others.
   */
  answerExtensions(op: Operation, result: ExecutionResult | FormattedExecutionResult | IncrementalPayload): Record<string, unknown> | undefined {
    let extensions = result.extensions as Record<string, unknown> | undefined;
    for (const rule of this.answerers) {
      const more = rule.answered!(op, result);
      if (more) extensions = extensions ? { ...extensions, ...more } : more;
    }
    return extensions;
  }

  /** A result (or an incremental payload) with its errors formatted for the client, those of each deferred part too, and its extensions. */
  formatted(op: Operation, result: ExecutionResult | IncrementalPayload): FormattedExecutionResult {
    const extensions = this.answerers.length ? this.answerExtensions(op, result) : result.extensions;
    if (extensions !== result.extensions) result = { ...result, extensions };
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
}

/**
 * What makes two failures of a rule the same: the rule, the error's name and where it was thrown (the first frames
 * of its stack), not its message, which may repeat the client's input and would make each request a cause of its own.
 */
export function ruleFailureCause(rule: string, error: unknown): string {
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : undefined;
  const frames = stack?.split('\n').filter((line) => line.trimStart().startsWith('at ')).slice(0, 3);
  const where = frames?.length ? `${(error as Error).name}\n${frames.join('\n')}` : String((error as Error)?.message ?? error).slice(0, 200);
  return `${rule}\n${where}`;
}
