import { execute, subscribe, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runInTrace } from '../../observability/tracing.js';
import type { GatewayServices } from '../../runtime/context.js';
import { compiledSubscribe } from '../execution.js';
import { ErrorCode } from '../../errors.js';
import { presentedApiKey } from '../access.js';
import type { GatedOperation, OperationGate, OperationPayload } from '../operationGate.js';
import { acceptsMultipartSubscription, createMultipartHandler } from './multipart.js';
import { crossSiteRefusal } from './preflight.js';
import { createSseHandler, isSseRequest } from './sse.js';

/** Options of {@link createHttpStreams}. */
export interface HttpStreamsOptions {
  schema: GraphQLSchema;
  gate: OperationGate;
  /** Stream bounds (STREAM_MAX_BUFFERED_BYTES, STREAM_STALL_TIMEOUT_MS), metrics and log. */
  services: GatewayServices;
  /** Interval of the multipart protocol's `{}` heartbeat parts. @default 5000 */
  heartbeatMs?: number;
}

/**
 * Subscriptions (and any operation) streamed over plain HTTP on `/graphql`, for clients that cannot open a
 * WebSocket: GraphQL over SSE (graphql-sse) and Apollo's multipart HTTP protocol. See PROTOCOLS.md beside this file.
 */
export function createHttpStreams(options: HttpStreamsOptions): {
  /** Whether the request asks for one of the two protocols (by `Accept`, method or stream token). */
  handles(req: IncomingMessage): boolean;
  serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void>;
} {
  const compiled = compiledSubscribe(options.schema);
  const run = (op: GatedOperation, variables: Record<string, unknown> | null | undefined, operationName: string | null | undefined) =>
    runInTrace(op.trace, () => {
      const args = { schema: options.schema, document: op.document, contextValue: op.context, variableValues: variables, operationName };
      return op.type === 'subscription' ? compiled(args) : (execute(args) as Promise<ExecutionResult> | ExecutionResult);
    });
  const sse = createSseHandler({ ...options, run });
  const multipart = createMultipartHandler({ ...options, heartbeatMs: options.heartbeatMs ?? 5000, run });
  return {
    handles: (req) => isSseRequest(req) || acceptsMultipartSubscription(req),
    async serve(req, res, requestId) {
      const refusal = crossSiteRefusal(req);
      if (refusal) {
        res.writeHead(400, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ errors: [refusal] }));
        return;
      }
      return isSseRequest(req) ? sse(req, res, requestId) : multipart(req, res, requestId);
    },
  };
}

/** Executes an admitted operation with its span active: a stream for a subscription, one result otherwise. */
export type RunOperation = (
  op: GatedOperation,
  variables: Record<string, unknown> | null | undefined,
  operationName: string | null | undefined,
) => ReturnType<typeof subscribe> | Promise<ExecutionResult> | ExecutionResult;

/**
 * Admits an operation sent over an HTTP stream request; a refusal comes back formatted, with its HTTP status (429 for
 * RATE_LIMITED, else 400).
 */
export function admitFromRequest(
  gate: OperationGate,
  payload: OperationPayload,
  req: IncomingMessage,
  requestId: string,
  transport: 'sse' | 'multipart',
): GatedOperation | { status: number; errors: ReturnType<OperationGate['format']> } {
  const admitted = gate.admit(payload, {
    requestId,
    transport,
    authorization: req.headers.authorization,
    trace: req.headers,
    client: { apiKey: presentedApiKey(req.headers), remoteAddress: req.socket.remoteAddress },
  });
  if (!Array.isArray(admitted)) return admitted;
  const errors = gate.format(undefined, admitted);
  return { status: errors.some((e) => e.extensions?.code === ErrorCode.RateLimited) ? 429 : 400, errors };
}
