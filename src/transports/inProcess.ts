import { GraphQLError, type ExecutionResult, type FormattedExecutionResult } from 'graphql';
import { ErrorReason } from '../errors/codes.js';
import { requestError } from '../pipeline/documentCache.js';
import type { AdmittedOperation, OperationInit, OperationPayload, OperationPipeline } from '../pipeline/index.js';

/** What an in-process caller presents: the transport's init plus the API key a transport checks at connection. */
export interface InProcessInit extends Omit<OperationInit, 'transport'> {
  apiKey?: string;
  /**
   * The caller was let in by other means than an API key: a bearer token /mcp verified (MCP_AUTH=jwt), an open /mcp
   * (MCP_AUTH=none), or an operation already admitted that calls a graph tool. The API key check is then skipped.
   * @default false
   */
  authenticated?: boolean;
  /** Fires when the caller gives up: aborts the operation's upstream requests. */
  signal?: AbortSignal;
  /** Named in the operation log line and metrics. @default 'in-process' */
  transport?: OperationInit['transport'];
}

/**
 * The in-process transport (trusted operations for /mcp and chat graph tools, tools and tests): the same rules as
 * every other transport, API key included, and formatted results.
 */
export class InProcessTransport {
  constructor(private readonly pipeline: OperationPipeline) {}

  /** One formatted result. A subscription is refused here: use {@link subscribe}. */
  async execute(payload: OperationPayload, init: InProcessInit = { requestId: crypto.randomUUID() }): Promise<FormattedExecutionResult> {
    const { pipeline } = this;
    const admitted = await this.admit(payload, init);
    if (Array.isArray(admitted)) return { errors: pipeline.format(admitted) };
    const op = admitted;
    try {
      if (op.type === 'subscription') {
        return { errors: pipeline.format([requestError(new GraphQLError('A subscription streams: call subscribe() for it.'), ErrorReason.BadRequest)], op) };
      }
      // One answer: a document with `@defer`/`@stream` runs whole, as for a client that does not take parts.
      return pipeline.formatted(op, (await pipeline.run(op, { incremental: false })) as ExecutionResult);
    } catch (error) {
      return { errors: pipeline.format([{ message: (error as Error)?.message ?? 'operation failed' }], op) };
    } finally {
      pipeline.finish(op);
    }
  }

  /** Any operation: a subscription's (or a deferred query's) formatted events, or one formatted result. */
  async subscribe(payload: OperationPayload, init: InProcessInit = { requestId: crypto.randomUUID() }): Promise<AsyncGenerator<FormattedExecutionResult, void, void> | FormattedExecutionResult> {
    const { pipeline } = this;
    const admitted = await this.admit(payload, init);
    if (Array.isArray(admitted)) return { errors: pipeline.format(admitted) };
    const op = admitted;
    let result: Awaited<ReturnType<OperationPipeline['run']>>;
    try {
      result = await pipeline.run(op);
    } catch (error) {
      const errors = pipeline.format([{ message: (error as Error)?.message ?? 'operation failed' }], op);
      pipeline.finish(op);
      return { errors };
    }
    if (!(Symbol.asyncIterator in result)) {
      const formatted = pipeline.formatted(op, result);
      pipeline.finish(op);
      return formatted;
    }
    return this.formattedStream(op, result);
  }

  private async *formattedStream(op: AdmittedOperation, source: AsyncGenerator<ExecutionResult, void, void>): AsyncGenerator<FormattedExecutionResult, void, void> {
    const stop = () => void source.return(undefined);
    op.controller.signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const result of source) yield this.pipeline.formatted(op, result);
    } finally {
      op.controller.signal.removeEventListener('abort', stop);
      this.pipeline.finish(op);
    }
  }

  private admit(payload: OperationPayload, init: InProcessInit): Promise<AdmittedOperation | GraphQLError[]> {
    const refused = init.authenticated ? undefined : this.pipeline.authenticate(init.apiKey);
    if (refused) return Promise.resolve([refused]);
    return this.pipeline.admit(payload, { ...init, transport: init.transport ?? 'in-process', client: init.client ?? { apiKey: init.apiKey } }, init.signal);
  }
}
