import type { GraphQLSchema } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperationPipeline } from '../../pipeline/index.js';
import type { GatewayServices } from '../../context/services.js';
import { acceptsMultipartSubscription, createMultipartHandler } from './multipart.js';
import { crossSiteRefusal } from './csrf.js';
import { createSseHandler, isSseRequest } from './sse.js';

/** Options of {@link createHttpStreams}. */
export interface HttpStreamsOptions {
  schema: GraphQLSchema;
  pipeline: OperationPipeline;
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
  const sse = createSseHandler(options);
  const multipart = createMultipartHandler({ ...options, heartbeatMs: options.heartbeatMs ?? 5000 });
  return {
    handles: (req) => isSseRequest(req) || acceptsMultipartSubscription(req),
    async serve(req, res, requestId) {
      const refusal = crossSiteRefusal(req);
      if (refusal) {
        res.writeHead(400, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ errors: options.pipeline.format([refusal]) }));
        return;
      }
      return isSseRequest(req) ? sse(req, res, requestId) : multipart(req, res, requestId);
    },
  };
}
