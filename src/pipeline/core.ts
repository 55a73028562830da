import { getMaxListeners, setMaxListeners } from 'node:events';
import {
  GraphQLError,
  type DocumentNode,
  type ExecutionResult,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import { OperationController } from '../context/operationController.js';
import { createContext } from '../context/request.js';
import type { GatewayServices } from '../context/services.js';
import { ErrorCode, ErrorReason, GatewayError } from '../errors/codes.js';
import type { ErrorFormatter } from '../errors/format.js';
import { compiledExecute, compiledSubscribe } from '../execution/compiled.js';
import {
  deliversIncrementally,
  executeIncremental,
  type IncrementalEntry,
  type IncrementalPayload,
} from '../execution/deferStream.js';
import { attachDirect, park, type DirectConsumer } from '../execution/eventStream.js';
import { OncePerCause } from '../observability/oncePerCause.js';
import { runInTrace } from '../observability/tracing.js';
import { CapRefusals, type Cap } from './capRefusals.js';
import { DocumentCache, operationOf, requestError } from './documentCache.js';
import {
  ErrorCodes,
  type AdmittedOperation,
  type Caller,
  type Operation,
  type OperationPayload,
  type PipelineRule,
  type Refusal,
} from './operation.js';
import { apiKeyRefusal, type ApiKeyCheck } from './rules/apiKey.js';
import { clientKey, type FairShare } from './rules/fairShare.js';
import { capClientString } from './rules/operationLog.js';
import { cacheControlHeader } from './rules/responseCache.js';
import type { Shutdown } from './rules/shutdown.js';

type ConnectionArgs = Parameters<FairShare['connectionRefusal']>;

/** Whether an AbortSignal warns past its listener limit: Node 20's do (10), Node 24's have none (0), so nothing to raise. */
const SIGNALS_WARN = getMaxListeners(new AbortController().signal) > 0;

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
  /** The caps per client, whose connection caps the transports ask through {@link OperationPipeline.connectionRefusal}. */
  fairShare?: FairShare;
  /** Only the persisted-operation manifest's documents run (Apollo's own APQ is then off). @default false */
  persistedOnly?: boolean;
}

/** A request whose document its transport found parsed and validated already (the HTTP classifier asks the cache once). */
export interface ResolvedRequest {
  payload: OperationPayload;
  document: DocumentNode;
  operation: OperationDefinitionNode;
}

/** How a transport wants its answer. */
export interface ExecuteOptions {
  /** The caller gave up (the connection closed, the client completed): aborts the operation and ends its stream. */
  signal?: AbortSignal;
  /**
   * Instead of `signal`: the transport's own controller, which it aborts when its caller gives up and nothing else
   * aborts (an HTTP request's, a graphql-ws operation's). The operation adopts it as its controller rather than chain
   * one of its own to it: a long-lived subscription then holds one controller, not two.
   */
  controller?: AbortController;
  /** False: a query or mutation with `@defer`/`@stream` runs whole (a transport that cannot send parts). @default true */
  incremental?: boolean;
  /**
   * Every admitted operation as a stream that runs on its first `next()` (one result is a stream of one): for a
   * transport that writes its head (and heartbeats) before the operation runs. @default false
   */
  stream?: boolean;
  /**
   * Answered as GraphQL over HTTP: errors as Apollo Server shapes them (a code on each, the stack trace outside
   * production, `extensions.http` taken off into the status) and the `Cache-Control` for this request method.
   */
  http?: { method: string };
  /**
   * The transport ends the stream itself once its source is done (by `return()`, as graphql-ws's `onComplete` does
   * before it writes `complete`), so the operation finishes after its protocol's completion is on its way, not before:
   * a shutdown waiting for it then closes no socket ahead of that completion. @default false
   */
  endedByReturn?: boolean;
  /**
   * Called once when a subscription's event stream has begun (its resolver accepted it): a subscription its resolver
   * refuses, or one refused at admission, never starts.
   */
  subscriptionStarted?(): void;
  /** Paces a stream's source by its connection (transports/outboundBuffer.ts): a slow reader pauses the upstream. */
  pace?<T>(source: AsyncIterator<T>): AsyncIterator<T>;
  /**
   * For a result many subscribers share (execution/sharedEvents.ts): the transport sends the text made once for all of
   * them, with this operation's extensions (its cost, from `answer.extensions`, asked for only when it sends), and
   * returns true; false to have the result formatted and yielded as any other. A method, not a sender made per result:
   * ten thousand subscribers of one change call it in one sweep.
   */
  shared?(result: ExecutionResult, answer: SharedAnswer): boolean;
  /**
   * A failure after the stream began is its last result (`{errors}`, then the end) instead of a rejected `next()`
   * ({@link OperationFailed}): for a protocol whose core would close the whole connection on a throw (graphql-ws).
   */
  failureAsResult?: boolean;
  /**
   * What only the transport refuses (a subscription over plain HTTP, a mutation over GET), judged once the operation
   * is known and before any admission rule.
   */
  refuse?(type: string): GraphQLError | undefined;
}

/** What a transport's {@link ExecuteOptions.shared} asks of the operation whose shared result it sends. */
export interface SharedAnswer {
  /** The `extensions` this operation's answer carries (its cost): once per result sent. */
  extensions(result: ExecutionResult): Record<string, unknown> | undefined;
}

/** What the entry answers: a refusal, one result, or a stream of results. Errors are formatted for the client. */
export type Answer =
  | {
      kind: 'refused';
      errors: GraphQLFormattedError[];
      /** The HTTP status the refusal asks for. */ status: number | undefined;
    }
  | {
      kind: 'result';
      result: FormattedExecutionResult;
      /** The HTTP status an error asks for (with `http`). */
      status: number | undefined;
      /** With `http`: the answer's `Cache-Control`. */
      cacheControl: string;
    }
  | {
      kind: 'stream';
      results: OperationStream;
      /** Parts of a query with `@defer`/`@stream`, not a subscription's events. */
      incremental: boolean;
      /** `query`, `mutation` or `subscription`. */
      type: string;
      /** Its document, parsed and validated (for a protocol core that picks execute or subscribe by it). */
      document: DocumentNode;
    };

/** The stages an operation's stream and a hosted operation call on their pipeline (not part of its API). */
interface Stages {
  format: ErrorFormatter;
  admitResolved(
    op: Operation,
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown> | null | undefined,
    operationName?: string | null,
  ): Refusal | Promise<Refusal>;
  completed(op: AdmittedOperation, result: ExecutionResult | FormattedExecutionResult): Promise<void>;
  answerExtensions(
    op: Operation,
    result: ExecutionResult | FormattedExecutionResult | IncrementalPayload,
  ): Record<string, unknown> | undefined;
  formatted(op: Operation, result: ExecutionResult | IncrementalPayload): FormattedExecutionResult;
  finish(op: Operation): void;
}

/**
 * The operation pipeline, whose one entry, {@link execute}, owns an operation from admission to its last result:
 * `prepare` (each rule's, before parsing), parsing and validation with the limits (documentCache.ts), `begin`, `admit`,
 * compiled execution, `completed`, the formatted answer with each rule's `answered` extensions, and `finish`, which
 * it pairs with `begin` itself: once a result is answered, or when a stream completes, is returned or its signal
 * aborts. Transports keep only their wire (framing, CSRF and media types, pacing, their close codes); the in-process
 * transport is one of them (transports/inProcess.ts). Apollo Server, where it still parses for HTTP (GET, APQ,
 * batches), runs inside {@link hosted}, which pairs `begin` and `finish` the same way.
 */
export class OperationPipeline {
  readonly schema: GraphQLSchema;
  readonly format: ErrorFormatter;
  private readonly rules: readonly PipelineRule[];
  private readonly preparers: readonly PipelineRule[];
  private readonly beginners: readonly PipelineRule[];
  private readonly admitters: readonly PipelineRule[];
  private readonly waiters: readonly PipelineRule[];
  private readonly completers: readonly PipelineRule[];
  private readonly answerers: readonly PipelineRule[];
  private readonly finishers: readonly PipelineRule[];
  private readonly executeCompiled: ReturnType<typeof compiledExecute>;
  private readonly subscribeCompiled: ReturnType<typeof compiledSubscribe>;
  /** The parsed and validated documents, one cache and one set of validation settings for every path (documentCache.ts). */
  readonly documents: DocumentCache;

  /** GATEWAY_API_KEYS is set: clients are told apart by their key, else by their address. */
  private readonly keyed: boolean;
  /** ERROR_STACK_TRACES: stack traces in HTTP answers (as Apollo Server's includeStacktraceInErrorResponses). */
  private readonly stackTraces: boolean;
  /** Listeners one operation's signal may have: one per upstream request in flight, within the upstream budget. */
  private readonly signalListeners: number;
  /** Which failures of rules reach the log (failedRule). */
  private readonly ruleFailures = new OncePerCause({ windowMs: 60_000, maxPerWindow: 32 });
  /** What its streams and hosted operations call. */
  private readonly stages: Stages = {
    format: (errors, op, quiet) => this.format(errors, op, quiet),
    admitResolved: (...args) => this.admitResolved(...args),
    completed: (op, result) => this.completed(op, result),
    answerExtensions: (op, result) => this.answerExtensions(op, result),
    formatted: (op, result) => this.formatted(op, result),
    finish: (op) => this.finish(op),
  };

  constructor(private readonly options: OperationPipelineOptions) {
    this.schema = options.schema;
    this.format = options.format;
    this.rules = options.rules;
    this.preparers = this.rules.filter((r) => r.prepare);
    this.beginners = this.rules.filter((r) => r.begin);
    this.admitters = this.rules.filter((r) => r.admit);
    this.waiters = this.rules.filter((r) => r.waitTurn);
    this.completers = this.rules.filter((r) => r.completed);
    this.answerers = this.rules.filter((r) => r.answered);
    this.finishers = this.rules.filter((r) => r.finish);
    this.keyed = options.services.config.apiKeys.length > 0;
    this.stackTraces = options.services.config.errorStackTraces;
    const limits = options.services.config.limits;
    // A router's _entities call may send one request per representation (rules/upstreamBudget.ts).
    this.signalListeners =
      limits.maxUpstreamRequests * Math.max(1, options.services.upstreams.length) +
      limits.maxEntityRepresentations +
      10;
    this.documents = new DocumentCache(options.schema, {
      limitRules: options.validationRules,
      maxTokens: options.services.config.limits.maxTokens,
      introspection: options.services.config.introspection,
    });
    this.executeCompiled = compiledExecute(options.schema);
    this.subscribeCompiled = compiledSubscribe(options.schema);
  }

  /** Whether only the persisted-operation manifest's documents run. */
  get persistedOnly(): boolean {
    return this.options.persistedOnly ?? false;
  }

  /**
   * The refusal of a caller before any operation it sends is read: UNAUTHENTICATED unless its `apiKey` is one of
   * GATEWAY_API_KEYS (when any are set and it was not let in otherwise), then the refusal of anything new while
   * draining for shutdown (HTTP 503). For transports that let a connection in once (an HTTP request, a graphql-ws
   * `connection_init`, /mcp); the entry checks its caller itself.
   */
  gate(caller: Pick<Caller, 'apiKey' | 'authenticated'>): Refusal {
    const check = this.options.apiKeyCheck;
    if (check && !caller.authenticated && !check(caller.apiKey)) return apiKeyRefusal();
    return this.options.shutdown.refusal();
  }

  /** A connection's refusal by the caps per client (CLIENT_MAX_CONNECTIONS, MAX_CONNECTIONS; fairShare.ts), if any. */
  connectionRefusal(
    req: ConnectionArgs[0],
    client: ConnectionArgs[1],
    share: ConnectionArgs[2],
    done: ConnectionArgs[3],
  ): ReturnType<FairShare['connectionRefusal']> {
    // Named, not `...args`: every HTTP request asks, and a rest array with its spread is made per call.
    return this.options.fairShare?.connectionRefusal(req, client, share, done);
  }

  /**
   * The refusal by a cap a transport keeps itself (GATEWAY_WS_MAX_OPERATIONS): RATE_LIMITED naming it, counted and
   * logged as fair share's refusals are (capRefusals.ts).
   */
  capRefusal(cap: Cap): GatewayError {
    return this.options.fairShare?.refuseCap(cap) ?? new CapRefusals().refuse(cap);
  }

  /** A WebSocket found to be a federation router's at `connection_init`: its client's connection share goes back. */
  routerConnection(...args: Parameters<FairShare['routerConnection']>): void {
    this.options.fairShare?.routerConnection(...args);
  }

  /** Before parsing: shutdown, persisted operations, document size. Gives the payload to run or the refusal. */
  prepare(payload: OperationPayload): OperationPayload | GraphQLError {
    const closing = this.options.shutdown.refusal();
    if (closing) return closing;
    let current = payload;
    // Indexed loops over the rules, here and in each stage below: an array iterator's result objects were ≈ 0.5 KB
    // of every operation's garbage where V8 left the loop unoptimized (bench:alloc, `next`).
    const preparers = this.preparers;
    for (let i = 0; i < preparers.length; i++) {
      const next = preparers[i].prepare!(current, this.documents);
      if (next instanceof GraphQLError) return next;
      current = next;
    }
    return current;
  }

  /**
   * The one way to run an operation. A payload is prepared, parsed and validated (a {@link ResolvedRequest} was
   * already); then it begins, is admitted, runs, and its answer is formatted, each rule's `completed` and `answered`
   * included. The operation is finished here once its refusal or result is answered; a stream finishes it when it
   * completes, is returned, or `options.signal` aborts.
   */
  execute(request: OperationPayload | ResolvedRequest, caller: Caller, options: ExecuteOptions = {}): Promise<Answer> {
    // Not an async function: an answer ready at once is one settled promise, and one that waits on its run is that
    // run's promise and one reaction, with no frame suspended between them.
    try {
      const answer = this.enter(request, caller, options);
      return answer instanceof Promise ? answer : Promise.resolve(answer);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** {@link execute}'s steps: the answer itself when nothing had to wait, else its promise. */
  private enter(
    request: OperationPayload | ResolvedRequest,
    caller: Caller,
    options: ExecuteOptions,
  ): Answer | Promise<Answer> {
    const check = this.options.apiKeyCheck;
    if (check && !caller.authenticated && !check(caller.apiKey))
      return this.refused([apiKeyRefusal()], undefined, options);
    let resolved: ResolvedRequest;
    if ('document' in request && 'payload' in request) resolved = request as ResolvedRequest;
    else {
      const found = this.resolve(request as OperationPayload);
      if (!('document' in found)) return this.refused(found, undefined, options);
      resolved = found;
    }
    const { payload, document, operation } = resolved;
    // A subscription may wait in admission (a chat stream's turn for its provider's connection) holding its payload:
    // the text the cached document was parsed from stands in for the copy each subscribe message brought.
    const text = operation.operation === 'subscription' ? document.loc?.source.body : undefined;
    if (text !== undefined && payload.query === text) payload.query = text;
    const op = this.begin(caller, options.controller ?? options.signal);
    op.document = document;
    op.operation = operation;
    op.variables = op.sentVariables = payload.variables ?? undefined;
    op.type = operation.operation;
    op.name = payload.operationName ?? operation.name?.value ?? null;
    const admitted = op as AdmittedOperation;
    let refusal: Refusal | Promise<Refusal>;
    try {
      refusal =
        options.refuse?.(op.type) ??
        (op.trace ? runInTrace(op.trace, () => this.admitAll(admitted)) : this.admitAll(admitted));
    } catch (error) {
      this.finish(op);
      throw error;
    }
    // Most admissions decide at once; only a rule that reads shared state (a quota, a cached answer) is waited for.
    if (refusal instanceof Promise)
      return refusal.then(
        (r) => this.admitted(admitted, r, options),
        (error: unknown) => {
          this.finish(op);
          throw error;
        },
      );
    return this.admitted(admitted, refusal, options);
  }

  /**
   * After admission: the refusal, the stream, or the run and its answer. The operation is finished here once its
   * refusal or result is answered (when its run settles, for one that waits); a stream finishes it itself.
   */
  private admitted(op: AdmittedOperation, refusal: Refusal, options: ExecuteOptions): Answer | Promise<Answer> {
    let finished = true;
    try {
      if (refusal) return this.refused([refusal], op, options);
      if (options.stream) {
        finished = false;
        return {
          kind: 'stream',
          results: new OperationStream(this.stages, op, () => this.run(op, options.incremental), options),
          incremental: this.isIncremental(op, options.incremental),
          type: op.type,
          document: op.document,
        };
      }
      let result: ReturnType<OperationPipeline['run']>;
      try {
        result = this.run(op, options.incremental);
      } catch (thrown) {
        return this.refused([asGraphqlError(thrown)], op, options);
      }
      finished = false;
      if (result instanceof Promise)
        return result.then(
          (r) => this.ran(op, r, options),
          (thrown: unknown) => {
            try {
              return this.refused([asGraphqlError(thrown)], op, options);
            } finally {
              this.finish(op);
            }
          },
        );
      return this.ran(op, result, options);
    } finally {
      if (finished) this.finish(op);
    }
  }

  /** The answer of a run: a stream of its results, or the one result; the operation finished unless it streams. */
  private ran(
    op: AdmittedOperation,
    result: Awaited<ReturnType<OperationPipeline['run']>>,
    options: ExecuteOptions,
  ): Answer {
    if (Symbol.asyncIterator in result) {
      const source = result;
      return {
        kind: 'stream',
        results: new OperationStream(this.stages, op, () => source, options),
        incremental: op.type !== 'subscription',
        type: op.type,
        document: op.document,
      };
    }
    try {
      return this.answer(op, result, options);
    } finally {
      this.finish(op);
    }
  }

  /**
   * An operation whose document an adapter parses and validates itself (Apollo Server: GET, APQ, batches): begun
   * before `run`, finished when it settles; the adapter calls the {@link HostedOperation}'s stages from its hooks.
   */
  async hosted<T>(
    caller: Caller,
    gone: AbortSignal | AbortController | undefined,
    run: (op: HostedOperation) => Promise<T>,
  ): Promise<T> {
    const op = this.begin(caller, gone);
    try {
      return await runInTrace(op.trace, () => run(new HostedOperation(this.stages, op)));
    } finally {
      this.finish(op);
    }
  }

  /** UNAUTHENTICATED unless `apiKey` is one of GATEWAY_API_KEYS (when any are set). */
  authenticate(apiKey: string | undefined): Refusal {
    const check = this.options.apiKeyCheck;
    return check && !check(apiKey) ? apiKeyRefusal() : undefined;
  }

  /** The payload prepared, its document parsed and validated and its operation found, or its request errors. */
  private resolve(payload: OperationPayload): ResolvedRequest | GraphQLError[] {
    const prepared = this.prepare(payload);
    if (prepared instanceof GraphQLError) return [prepared];
    const query = prepared.query;
    if (typeof query !== 'string')
      return [requestError(new GraphQLError('Send the operation as a string in "query".'), ErrorReason.BadRequest)];
    const checked = this.documents.checked(query);
    if (Array.isArray(checked)) return checked;
    const operation = operationOf(checked, prepared.operationName);
    if (!operation) {
      const which = prepared.operationName
        ? `no operation named ${JSON.stringify(capClientString(prepared.operationName))}`
        : 'several operations and no operationName';
      return [
        requestError(
          new GraphQLError(`The document has ${which}: send the name of the one to run in "operationName".`),
          ErrorReason.OperationResolutionFailure,
        ),
      ];
    }
    return { payload: prepared, document: checked, operation };
  }

  /** Refusal errors formatted (noted on the operation when it began), with the status they ask for. */
  private refused(errors: readonly GraphQLError[], op: Operation | undefined, options: ExecuteOptions): Answer {
    if (options.http) {
      const answered = this.httpErrors(errors, op);
      return { kind: 'refused', errors: answered.errors, status: answered.status };
    }
    return { kind: 'refused', errors: this.format(errors, op), status: statusAskedBy(errors) };
  }

  /** One result, formatted, with its extensions, the status its errors ask for and (over HTTP) its Cache-Control. */
  private answer(op: AdmittedOperation, result: ExecutionResult, options: ExecuteOptions): Answer {
    if (!options.http)
      return { kind: 'result', result: this.formatted(op, result), status: undefined, cacheControl: 'no-store' };
    const errors = result.errors?.length ? this.httpErrors(result.errors, op) : undefined;
    const extensions = this.answerExtensions(op, result);
    return {
      kind: 'result',
      result: { errors: errors?.errors, data: result.data, extensions },
      status: errors?.status,
      cacheControl: cacheControlHeader(op, options.http.method, errors !== undefined),
    };
  }

  /**
   * Errors as Apollo Server shapes them over HTTP (both HTTP paths answer alike): each as its JSON with a code
   * (INTERNAL_SERVER_ERROR when it has none), its stack trace, and `extensions.http` taken off into the status; then
   * the one formatter, which notes the codes on the operation, logs an unexpected error's stack and what production
   * masks, and keeps the stack trace only when ERROR_STACK_TRACES asks for it.
   */
  private httpErrors(
    errors: readonly GraphQLError[],
    op: Operation | undefined,
  ): { errors: GraphQLFormattedError[]; status: number | undefined } {
    let status: number | undefined;
    const enriched = errors.map((error) => {
      const extensions: Record<string, unknown> = { ...error.extensions };
      // No code: not a refusal nor an upstream's failure but a bug (every request error is coded where it is made).
      const unexpected = extensions.code == null;
      if (unexpected) extensions.code = ErrorCode.InternalServerError;
      const http = extensions.http as { status?: number } | undefined;
      if (http && typeof http === 'object') {
        if (typeof http.status === 'number') status = http.status;
        delete extensions.http;
      }
      // Every error's when asked for (as Apollo's includeStacktraceInErrorResponses), else an unexpected one's, for the log.
      if (this.stackTraces || unexpected) extensions.stacktrace = (error.originalError ?? error).stack?.split('\n');
      return { ...error.toJSON(), extensions };
    });
    return { errors: this.format(enriched, op), status };
  }

  /** Starts an operation (its context, cancellation and span) before its document is known. */
  private begin(caller: Caller, gone?: AbortSignal | AbortController): Operation {
    // A transport's controller that only it aborts is adopted (nothing to link); a signal gets the operation's own.
    const adopted = gone instanceof AbortController;
    const controller = adopted ? gone : new OperationController();
    // Each upstream request the operation waits on listens to its signal: as many as the upstream budget allows at
    // once, which Node's default of 10 would report as a leak (Node 20; Node 24's signals never warn). An
    // OperationController raises the limit when its signal is made, if ever.
    if (controller instanceof OperationController) controller.maxListeners = this.signalListeners;
    else if (SIGNALS_WARN) setMaxListeners(this.signalListeners, controller.signal);
    if (!adopted) {
      const signal = gone;
      if (signal?.aborted) controller.abort(signal.reason);
      else signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
    }
    const context = createContext(this.options.services, {
      requestId: capClientString(caller.requestId),
      // The operation's controller itself: its signal is made only if something reads the context's.
      signal: controller instanceof OperationController ? controller : controller.signal,
      caller,
      client: clientKey(this.keyed, caller),
    });
    // Every field it will have, in one literal: its properties in the object itself, one shape for all operations.
    const op: Operation = {
      transport: caller.transport,
      client: caller,
      context,
      controller,
      started: performance.now(),
      document: undefined,
      operation: undefined,
      variables: undefined,
      sentVariables: undefined,
      name: null,
      type: 'unknown',
      trace: undefined,
      cachePolicy: undefined,
      answer: undefined,
      errorCodes: new ErrorCodes(),
    };
    const beginners = this.beginners;
    for (let i = 0; i < beginners.length; i++) beginners[i].begin!(op, caller);
    return op;
  }

  /** Runs every rule's `admit` on a parsed and validated operation; the first refusal wins. */
  private admitResolved(
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
    return this.admitAll(op as AdmittedOperation);
  }

  /** Every rule's `admit`, then, once none refused, every rule's `waitTurn` (a wait in line comes last). */
  private admitAll(op: AdmittedOperation): Refusal | Promise<Refusal> {
    const refusal = this.admitFrom(op, 0);
    if (!this.waiters.length) return refusal;
    if (refusal instanceof Promise) return refusal.then((r) => r ?? this.admitFrom(op, 0, 'waitTurn'));
    return refusal ?? this.admitFrom(op, 0, 'waitTurn');
  }

  private admitFrom(
    op: AdmittedOperation,
    start: number,
    stage: 'admit' | 'waitTurn' = 'admit',
  ): Refusal | Promise<Refusal> {
    const rules = stage === 'admit' ? this.admitters : this.waiters;
    for (let i = start; i < rules.length; i++) {
      // An answer found (the response cache) costs no upstream request: the budget and quota rules have nothing to judge.
      if (op.answer) return undefined;
      const rule = rules[i];
      let refusal: Refusal | Promise<Refusal>;
      try {
        refusal = rule[stage]!(op);
      } catch (error) {
        return this.failedRule(op, rule, error);
      }
      // Only a rule that must wait (a quota read) makes the admission asynchronous.
      if (refusal instanceof Promise) return this.admitAfter(refusal, op, rule, i, stage);
      if (refusal) return refusal;
    }
    return undefined;
  }

  /**
   * The admission after rule `i` had to wait. Its own method: closures in {@link admitFrom}'s loop, even unmade, had
   * V8 allocate a context per rule and operation for the loop's variables they close over (≈ 1 KB per operation).
   */
  private admitAfter(
    refusal: Promise<Refusal>,
    op: AdmittedOperation,
    rule: PipelineRule,
    i: number,
    stage: 'admit' | 'waitTurn',
  ): Promise<Refusal> {
    return refusal.then(
      (r) => r ?? this.admitFrom(op, i + 1, stage),
      (error: unknown) => this.failedRule(op, rule, error),
    );
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
      op.context.log.error(
        { rule: rule.name, err: this.options.services.redact(String((error as Error)?.stack ?? error)), suppressed },
        'a pipeline rule failed',
      );
    }
    return new GatewayError(
      ErrorCode.InternalServerError,
      `The ${rule.name} rule failed: ${(error as Error)?.message ?? String(error)}`,
      { http: { status: 500 } },
    );
  }

  /**
   * Executes an admitted operation with its span active: a stream for a subscription, and for a query or mutation
   * with `@defer`/`@stream` its parts (the initial result, then `{incremental, hasNext}` payloads); one result
   * otherwise, after each rule's `completed` (the response cache keeps it). An answer a rule found at admission (a
   * cached response) is returned without executing. `incremental: false` gives the whole result, compiled.
   */
  private run(
    op: AdmittedOperation,
    incremental?: boolean,
  ): Promise<AsyncGenerator<IncrementalPayload, void, void> | ExecutionResult> | ExecutionResult {
    if (op.answer) return op.answer;
    // With its span active when there is one; without (no OTLP endpoint), no closure to run it in.
    return op.trace ? runInTrace(op.trace, () => this.runNow(op, incremental)) : this.runNow(op, incremental);
  }

  private runNow(
    op: AdmittedOperation,
    incremental: boolean | undefined,
  ): Promise<AsyncGenerator<IncrementalPayload, void, void> | ExecutionResult> | ExecutionResult {
    const args = {
      schema: this.schema,
      document: op.document,
      contextValue: op.context,
      variableValues: op.sentVariables,
      operationName: op.name,
    };
    // What operationInputs coerced the variables to (when it ran: they are then another object), not coerced again.
    if (op.type === 'subscription')
      return this.subscribeCompiled(args, op.variables !== op.sentVariables ? op.variables : undefined);
    if (incremental !== false && deliversIncrementally(op.operation, op.document))
      return executeIncremental(args, op.controller.signal);
    const result = this.executeCompiled(args);
    if (!this.completers.length) return result;
    return Promise.resolve(result).then(async (r) => {
      await this.completed(op, r);
      return r;
    });
  }

  /** Whether {@link run} delivers this operation in parts (a query or mutation with `@defer`/`@stream`). */
  private isIncremental(op: AdmittedOperation, incremental: boolean | undefined): boolean {
    return (
      incremental !== false &&
      op.type !== 'subscription' &&
      !op.answer &&
      deliversIncrementally(op.operation, op.document)
    );
  }

  /** Each rule's `completed` on a query's or mutation's result, before the client gets it. */
  private async completed(op: AdmittedOperation, result: ExecutionResult | FormattedExecutionResult): Promise<void> {
    if (op.answer) return;
    for (const rule of this.completers) await rule.completed!(op, result);
  }

  /** Ends the operation: each rule's `finish` (abort what is left upstream, the span, the log line, metrics). */
  private finish(op: Operation): void {
    const finishers = this.finishers;
    for (let i = 0; i < finishers.length; i++) finishers[i].finish!(op);
  }

  /**
   * The `extensions` a result or part leaving for the client carries: its own and each rule's `answered` (its cost).
   * Once per answer (it counts what the answer brings).
   */
  private answerExtensions(
    op: Operation,
    result: ExecutionResult | FormattedExecutionResult | IncrementalPayload,
  ): Record<string, unknown> | undefined {
    let extensions = result.extensions as Record<string, unknown> | undefined;
    const answerers = this.answerers;
    for (let i = 0; i < answerers.length; i++) {
      const more = answerers[i].answered!(op, result);
      if (more) extensions = extensions ? { ...extensions, ...more } : more;
    }
    return extensions;
  }

  /** A result (or an incremental payload) with its errors formatted for the client, those of each deferred part too, and its extensions. */
  private formatted(op: Operation, result: ExecutionResult | IncrementalPayload): FormattedExecutionResult {
    const extensions = this.answerers.length ? this.answerExtensions(op, result) : result.extensions;
    if (extensions !== result.extensions) result = { ...result, extensions };
    const incremental = (result as IncrementalPayload).incremental;
    if (incremental?.some((entry) => entry.errors?.length)) {
      const entries = incremental.map((entry): IncrementalEntry =>
        entry.errors?.length ? { ...entry, errors: this.format(entry.errors, op) as never } : entry,
      );
      result = { ...result, incremental: entries } as IncrementalPayload;
    }
    return result.errors?.length
      ? { ...result, errors: this.format(result.errors, op) }
      : (result as FormattedExecutionResult);
  }

  /** Refuses new operations, lets running ones finish within `graceMs`, then aborts the rest. */
  drain(graceMs: number): Promise<{ finished: number; aborted: number }> {
    return this.options.shutdown.drain(graceMs);
  }
}

/** The HTTP status the last error that asks for one asks for (`extensions.http.status`), as Apollo Server reads it. */
function statusAskedBy(errors: readonly { extensions?: Record<string, unknown> }[]): number | undefined {
  let status: number | undefined;
  for (const error of errors) {
    const http = error.extensions?.http as { status?: unknown } | undefined;
    if (typeof http?.status === 'number') status = http.status;
  }
  return status;
}

/** An error thrown while executing, as a GraphQL error (its message kept, as Apollo keeps it). */
export function asGraphqlError(thrown: unknown): GraphQLError {
  if (thrown instanceof GraphQLError) return thrown;
  const error = thrown instanceof Error ? thrown : new GraphQLError(`Unexpected error value: ${String(thrown)}`);
  return error instanceof GraphQLError ? error : new GraphQLError(error.message, { originalError: error });
}

/** A stream that failed after it began: its errors, formatted, for the transport's own fatal frame. */
export class OperationFailed extends Error {
  constructor(readonly errors: GraphQLFormattedError[]) {
    super(errors[0]?.message ?? 'operation failed');
  }
}

const DONE: IteratorResult<never, undefined> = { value: undefined, done: true };
/** A source that is done: what a stream ended by its transport reads until that transport returns it. */
const EMPTY: AsyncIterator<never> = { next: () => Promise.resolve(DONE) };

/**
 * What takes a stream's results as they come ({@link OperationStream.consume}) instead of asking for each with
 * `next()`: a transport whose core would otherwise keep a pending `next()` for a subscription's whole life.
 */
export interface StreamConsumer {
  /** A result for the client, formatted; a failure after the stream began is one too (`{errors}`), then the end. */
  next(result: FormattedExecutionResult): void;
  /** The stream has no more results (not called once the consumer has returned it). */
  complete(): void;
}

/**
 * An operation's results as they leave for the client, formatted, each with its `answered` extensions; the
 * operation is finished exactly once: when its source completes or fails, when {@link return} is called (the client
 * completed, the connection closed), or when its signal aborts before it began (a running source ends on that signal
 * itself). A stream never iterated still finishes on abort.
 * A failure after it began rejects `next()` with {@link OperationFailed}.
 */
export class OperationStream
  implements
    AsyncIterableIterator<FormattedExecutionResult>,
    SharedAnswer,
    DirectConsumer<ExecutionResult | IncrementalPayload>
{
  private source: AsyncIterator<ExecutionResult | IncrementalPayload> | undefined;
  private state: 'idle' | 'running' | 'ended' = 'idle';
  /** Until it began: dropped then, with the request-time state its closure holds. */
  private start:
    | (() => ReturnType<OperationPipeline['run']> | AsyncGenerator<IncrementalPayload, void, void>)
    | undefined;
  /**
   * The `next()` waiting for a result while shared results go out without it (a live feed's subscriber sends every
   * change itself): one pending promise across them all, not a chain that grows by one per shared result.
   */
  private pending: Promise<IteratorResult<FormattedExecutionResult>> | undefined;
  private resolve: ((r: IteratorResult<FormattedExecutionResult>) => void) | undefined;
  private reject: ((e: unknown) => void) | undefined;
  /** Who takes the results as they come ({@link consume}), instead of a caller of next(). */
  private consumer: StreamConsumer | undefined;
  /** It rests on its source with nothing pending ({@link park}): shared results come through take(). */
  private parked = false;
  /**
   * The source's next result and failure, bound on the first pull: a stream waits on them without a closure per
   * pull, and a subscription that rests between shared results never makes them.
   */
  private bound:
    | [(next: IteratorResult<ExecutionResult | IncrementalPayload>) => void, (error: unknown) => void]
    | undefined;

  constructor(
    private readonly pipeline: Stages,
    private readonly op: AdmittedOperation,
    start: () => ReturnType<OperationPipeline['run']> | AsyncGenerator<IncrementalPayload, void, void>,
    private readonly options: Pick<
      ExecuteOptions,
      'pace' | 'shared' | 'endedByReturn' | 'subscriptionStarted' | 'failureAsResult'
    > = {},
  ) {
    this.start = start;
    // This object is the listener (handleEvent): no closure per stream.
    op.controller.signal.addEventListener('abort', this, { once: true });
  }

  /**
   * Its signal aborted: a stream not yet begun ends here; a running one is ended by its source, which stops on the
   * operation's signal the way its protocol ends normally (a deferred query's last `{hasNext: false}`, a subscription's
   * completion), so a paced transport still sends that last part.
   */
  handleEvent(): void {
    if (this.state === 'idle') this.end();
  }

  /**
   * Promise chains, not an async function: a subscription waits here between events for its whole life, as one
   * pending reaction on its source rather than a suspended frame with its registers.
   */
  next(): Promise<IteratorResult<FormattedExecutionResult>> {
    if (this.ended()) return Promise.resolve(DONE);
    // A caller that asks again before its last answer came waits its turn, as with an async generator.
    if (this.pending)
      return this.pending.then(
        () => this.next(),
        () => this.next(),
      );
    const result = new Promise<IteratorResult<FormattedExecutionResult>>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.pending = result;
    if (this.state === 'idle') this.run();
    else this.pull();
    return result;
  }

  /**
   * Runs it and hands each result to `consumer` as it comes, then the end, with nothing pending between results
   * where its source can rest ({@link park}: a live feed's shared results are then taken in the feed's turn). Instead
   * of next(), not beside it; a failure is its last result (`{errors}`); return() ends it without `complete`.
   */
  consume(consumer: StreamConsumer): void {
    if (this.state !== 'idle') return consumer.complete();
    this.consumer = consumer;
    this.run();
  }

  /** Starts its source, once: the first next(), or consume(). */
  private run(): void {
    this.state = 'running';
    // Running, its source ends on the signal itself (handleEvent).
    this.op.controller.signal.removeEventListener('abort', this);
    const start = this.start!;
    this.start = undefined;
    let started: ReturnType<typeof start>;
    try {
      started = start();
    } catch (error) {
      return this.fail(error);
    }
    Promise.resolve(started).then(
      (s) => this.began(s),
      (error: unknown) => this.fail(error),
    );
  }

  /** `extensions` of this operation's answer (its cost), for a transport sending a shared result. */
  extensions(result: ExecutionResult): Record<string, unknown> | undefined {
    return this.pipeline.answerExtensions(this.op, result);
  }

  private began(
    started: Awaited<ReturnType<OperationPipeline['run']>> | AsyncGenerator<IncrementalPayload, void, void>,
  ): void {
    try {
      this.beginWith(started);
    } catch (error) {
      this.fail(error);
    }
  }

  private beginWith(
    started: Awaited<ReturnType<OperationPipeline['run']>> | AsyncGenerator<IncrementalPayload, void, void>,
  ): void {
    if (!(Symbol.asyncIterator in started)) {
      if (this.ended()) return this.settle(DONE);
      const value = this.pipeline.formatted(this.op, started);
      if (this.options.endedByReturn) this.source = EMPTY;
      else this.end();
      return this.settle({ value, done: false });
    }
    this.source = this.options.pace ? this.options.pace(started) : started;
    // A subscription lives long: what admission coerced its variables to goes (execution has those sent).
    if (this.op.type === 'subscription') this.op.variables = this.op.sentVariables;
    // Its shared results may reach the transport without a promise per layer per result.
    if (this.options.shared) attachDirect(this.source, this);
    if (this.op.type === 'subscription') this.options.subscriptionStarted?.();
    if (this.ended()) {
      void started.return?.(undefined);
      return this.settle(DONE);
    }
    this.advance();
  }

  /** On to the source's next result: resting on it when a consumer takes results as they come, else a pull. */
  private advance(): void {
    if (this.consumer && this.options.shared && park(this.source)) this.parked = true;
    else this.pull();
  }

  private pull(): void {
    let next: Promise<IteratorResult<ExecutionResult | IncrementalPayload>>;
    try {
      next = this.source!.next();
    } catch (error) {
      return this.fail(error);
    }
    const [received, failed] = (this.bound ??= [(n) => this.onResult(n), (e) => this.fail(e)]);
    next.then(received, failed);
  }

  /** Resting, it has a result (or the end) to pull from its source ({@link park}). */
  wake(): void {
    if (!this.parked) return;
    this.parked = false;
    this.pull();
  }

  /**
   * A shared result taken in its producer's turn while this stream waits for its source (execution/eventStream.ts
   * `DirectConsumer`): sent by the transport, or false to have it come through next().
   */
  take(result: ExecutionResult | IncrementalPayload): boolean {
    if (this.state !== 'running' || !(this.pending || this.parked) || result.extensions) return false;
    try {
      return this.options.shared!(result as ExecutionResult, this);
    } catch {
      // The same result through next() fails this operation alone, as any failure of its own.
      return false;
    }
  }

  private onResult(next: IteratorResult<ExecutionResult | IncrementalPayload>): void {
    if (this.ended()) return this.settle(DONE);
    if (next.done) {
      if (this.options.endedByReturn) this.source = EMPTY;
      else this.end();
      return this.settle(DONE);
    }
    try {
      // A result many subscribers share goes out as its transport sends it, with this operation's extensions.
      if (this.options.shared && !next.value.extensions && this.options.shared(next.value as ExecutionResult, this))
        return this.advance();
      this.settle({ value: this.pipeline.formatted(this.op, next.value), done: false });
    } catch (error) {
      this.fail(error);
    }
  }

  private fail(error: unknown): void {
    if (this.ended()) return this.settle(DONE);
    // Uncoded, it is an unexpected failure: the formatter logs its stack with the request id and masks it in production.
    const errors = this.pipeline.format([asGraphqlError(error)], this.op);
    this.end();
    if (this.options.failureAsResult || this.consumer) return this.settle({ value: { errors }, done: false });
    const reject = this.reject;
    this.pending = this.resolve = this.reject = undefined;
    reject?.(new OperationFailed(errors));
  }

  private settle(result: IteratorResult<FormattedExecutionResult>): void {
    const consumer = this.consumer;
    if (consumer) {
      if (result.done) {
        this.consumer = undefined;
        return consumer.complete();
      }
      consumer.next(result.value);
      // Ended meanwhile (a failure's last result, or the consumer returned it): the end, or nothing.
      return this.ended() ? this.settle(DONE) : this.advance();
    }
    const resolve = this.resolve;
    this.pending = this.resolve = this.reject = undefined;
    resolve?.(result);
  }

  return(): Promise<IteratorResult<FormattedExecutionResult>> {
    // Its consumer asked: it is not told of the end.
    this.consumer = undefined;
    this.end();
    this.settle(DONE);
    return Promise.resolve(DONE);
  }

  throw(error?: unknown): Promise<IteratorResult<FormattedExecutionResult>> {
    this.consumer = undefined;
    this.end();
    this.settle(DONE);
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private ended(): boolean {
    return this.state === 'ended';
  }

  private end(): void {
    if (this.state === 'ended') return;
    const source = this.state === 'running' ? this.source : undefined;
    this.state = 'ended';
    this.start = undefined;
    this.parked = false;
    this.op.controller.signal.removeEventListener('abort', this);
    void source?.return?.(undefined);
    this.pipeline.finish(this.op);
  }
}

/**
 * An operation an adapter parses itself (Apollo Server), for that adapter's hooks: the pipeline's stages on it, in
 * the order its hooks come; {@link OperationPipeline.hosted} began it and finishes it.
 */
export class HostedOperation {
  constructor(
    private readonly pipeline: Stages,
    private readonly op: Operation,
  ) {}

  get context(): Operation['context'] {
    return this.op.context;
  }

  /** An answer admission found (the response cache): sent without executing. */
  get answer(): ExecutionResult | undefined {
    return this.op.answer;
  }

  /** The admission rules on the document the adapter resolved; the first refusal wins. */
  admit(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown> | null | undefined,
    operationName?: string | null,
  ): Refusal | Promise<Refusal> {
    return this.pipeline.admitResolved(this.op, document, operation, variables, operationName);
  }

  /** Notes the errors' codes and, in production, logs what masking hides from the client, with the request id. */
  noteErrors(errors: readonly GraphQLError[]): void {
    this.pipeline.format(errors, this.op);
  }

  /**
   * The answer is about to leave: its operation named when only the request named it, its codes noted, each rule's
   * `completed` and `answered` run; gives the extensions it carries and its Cache-Control.
   */
  async answering(
    result: FormattedExecutionResult,
    method: string,
    operationName: string | null | undefined,
  ): Promise<{ extensions: Record<string, unknown> | undefined; cacheControl: string }> {
    const op = this.op;
    if (op.name === null && operationName) op.name = operationName;
    for (const e of result.errors ?? []) op.errorCodes.add(String(e.extensions?.code ?? ErrorCode.InternalServerError));
    let extensions = result.extensions as Record<string, unknown> | undefined;
    if (op.operation) {
      await this.pipeline.completed(op as AdmittedOperation, result);
      extensions = this.pipeline.answerExtensions(op, result);
    }
    return { extensions, cacheControl: cacheControlHeader(op, method, !!result.errors?.length) };
  }

  /** A request the adapter refused before any hook saw an operation (a malformed body, a method): a request error. */
  refusedEarly(): void {
    if (this.op.errorCodes.size === 0) this.op.errorCodes.add(ErrorCode.BadUserInput);
  }
}

/**
 * What makes two failures of a rule the same: the rule, the error's name and where it was thrown (the first frames
 * of its stack), not its message, which may repeat the client's input and would make each request a cause of its own.
 */
export function ruleFailureCause(rule: string, error: unknown): string {
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : undefined;
  const frames = stack
    ?.split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .slice(0, 3);
  const where = frames?.length
    ? `${(error as Error).name}\n${frames.join('\n')}`
    : String((error as Error)?.message ?? error).slice(0, 200);
  return `${rule}\n${where}`;
}
