import { GraphQLError, type FormattedExecutionResult } from 'graphql';
import { newRequestId } from '../context/request.js';
import { ErrorReason } from '../errors/codes.js';
import { requestError } from '../pipeline/documentCache.js';
import type { Answer, Caller, OperationPayload, OperationPipeline } from '../pipeline/index.js';

/** An in-process caller: a {@link Caller} whose unset fields take their defaults, and the signal of its giving up. */
export type InProcessCaller = Partial<Caller> & {
  /** Fires when the caller gives up: aborts the operation's upstream requests. */
  signal?: AbortSignal;
};

const oneResult = (type: string) =>
  type === 'subscription'
    ? requestError(new GraphQLError('A subscription streams: call subscribe() for it.'), ErrorReason.BadRequest)
    : undefined;

/**
 * The in-process transport (trusted operations for /mcp and chat graph tools, tools and tests): the pipeline's entry
 * with the same rules as every other transport, API key included (unless the caller was let in otherwise), and
 * formatted results.
 */
export class InProcessTransport {
  constructor(private readonly pipeline: OperationPipeline) {}

  /** One formatted result. A subscription is refused here: use {@link subscribe}. */
  async execute(payload: OperationPayload, caller: InProcessCaller = {}): Promise<FormattedExecutionResult> {
    // One answer: a document with `@defer`/`@stream` runs whole, as for a client that does not take parts.
    const answer = await this.pipeline.execute(payload, asCaller(caller), {
      signal: caller.signal,
      incremental: false,
      refuse: oneResult,
    });
    return answer.kind === 'result'
      ? answer.result
      : { errors: (answer as Extract<Answer, { kind: 'refused' }>).errors };
  }

  /** Any operation: a subscription's (or a deferred query's) formatted events, or one formatted result. */
  async subscribe(
    payload: OperationPayload,
    caller: InProcessCaller = {},
  ): Promise<AsyncIterableIterator<FormattedExecutionResult> | FormattedExecutionResult> {
    const answer = await this.pipeline.execute(payload, asCaller(caller), { signal: caller.signal });
    return answer.kind === 'stream'
      ? answer.results
      : answer.kind === 'result'
        ? answer.result
        : { errors: answer.errors };
  }
}

/** The caller with its defaults: a request id as every other transport makes one (flat, from pooled random bytes). */
function asCaller({ signal: _signal, ...caller }: InProcessCaller): Caller {
  return { ...caller, requestId: caller.requestId ?? newRequestId(), transport: caller.transport ?? 'in-process' };
}
