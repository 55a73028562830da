import type { ExecutionResult, FormattedExecutionResult, GraphQLSchema } from 'graphql';
import { createHandler, type RequestParams, type Response } from 'graphql-sse';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, ErrorCode } from '../../errors/codes.js';
import type { OperationPipeline } from '../../pipeline/index.js';
import type { ClientResolver } from '../clientIdentity.js';
import { httpCaller } from './httpCaller.js';
import type { GatewayServices } from '../../context/services.js';
import { OutboundBuffer, pacedBy } from '../outboundBuffer.js';
import { MAX_BODY_BYTES, readBody } from './requestBody.js';
import { noMutationOverGet } from './incremental.js';
import { sendErrors } from './response.js';
import { MAX_OPERATION_ID_LENGTH } from '../ws/websocket.js';

const EVENT_STREAM = 'text/event-stream';
const TOKEN_HEADER = 'x-graphql-event-stream-token';

interface RequestContext {
  res: ServerResponse;
  requestId: string;
  /** The unsent bytes of this response, when it is an event stream. */
  outbound?: OutboundBuffer;
}

/** The single-connection mode's stream token, as graphql-sse reads it (header, else query parameter). */
function streamToken(req: IncomingMessage): string | undefined {
  const header = req.headers[TOKEN_HEADER];
  if (header) return Array.isArray(header) ? header.join('') : header;
  return new URL(req.url ?? '', 'http://localhost/').searchParams.get('token') ?? undefined;
}

function refuse(status: number, errors: readonly unknown[]): Response {
  return [
    JSON.stringify({ errors }),
    { status, statusText: String(status), headers: { 'content-type': 'application/json; charset=utf-8' } },
  ];
}

/**
 * The graphql-sse handler (both its distinct-connections and single-connection modes) with the gateway's rules:
 * every operation passes the operation pipeline; every operation's events are paced by the {@link OutboundBuffer}
 * of the event stream that carries them (its own response, or the single connection's stream by token), so a client
 * that reads slowly stops the upstream, and one too slow is cut with its upstream requests aborted.
 */
export function createSseHandler(options: {
  schema: GraphQLSchema;
  pipeline: OperationPipeline;
  services: GatewayServices;
  clients: ClientResolver;
}) {
  const { pipeline, services, clients } = options;
  /** Each operation's cancellation and the stream that paces it, until graphql-sse completes it. */
  const operations = new WeakMap<IncomingMessage, { cancel: AbortController; outbound: OutboundBuffer }>();
  /** Open single-connection streams by token. */
  const streams = new Map<string, OutboundBuffer>();
  const handler = createHandler<IncomingMessage, RequestContext>({
    schema: options.schema,
    // The pipeline validated the document with the gateway's limit rules already.
    validate: () => [],
    async onSubscribe(req, params: RequestParams) {
      const raw = req.raw;
      // In distinct-connections mode this response is the stream; otherwise the stream is the one of the token.
      const distinct = req.headers.get('accept') === EVENT_STREAM;
      const outbound = distinct ? req.context.outbound : streams.get(streamToken(raw) ?? '');
      if (!outbound)
        return refuse(409, [
          {
            message: 'Open the event stream (GET with the stream token) before sending operations on it.',
            extensions: { code: ErrorCode.BadUserInput },
          },
        ]);
      const operationId = params.extensions?.operationId;
      if (typeof operationId === 'string' && operationId.length > MAX_OPERATION_ID_LENGTH) {
        return refuse(400, [
          {
            message: `extensions.operationId is longer than ${MAX_OPERATION_ID_LENGTH} characters: use a shorter id (a UUID).`,
            extensions: { code: ErrorCode.BadUserInput },
          },
        ]);
      }
      const cancel = new AbortController();
      // Closing the stream that carries it (the client left, or was too slow) aborts the operation.
      outbound.track(cancel);
      const answer = await pipeline.execute(params, httpCaller(raw, req.context.requestId, 'sse', clients), {
        signal: cancel.signal,
        refuse: noMutationOverGet(req.method),
      });
      if (answer.kind === 'stream') {
        operations.set(raw, { cancel, outbound });
        return pacedBy(answer.results, outbound, cancel.signal) as AsyncIterableIterator<ExecutionResult>;
      }
      outbound.forget(cancel);
      if (answer.kind === 'result') return single(answer.result);
      return answer.errors.some((e) => e.extensions?.code === ErrorCode.RateLimited)
        ? refuse(429, answer.errors)
        : single({ errors: answer.errors });
    },
    onComplete(_ctx, req) {
      const entry = operations.get(req.raw);
      if (!entry) return;
      operations.delete(req.raw);
      entry.outbound.forget(entry.cancel);
    },
  });

  return async function serveSse(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    let body: string | null = null;
    if (req.method === 'POST') {
      const raw = await readBody(req, MAX_BODY_BYTES);
      if (raw === undefined)
        return sendErrors(
          req,
          res,
          413,
          pipeline.format([
            badRequest(`Request body larger than ${MAX_BODY_BYTES} bytes: send a smaller operation.`, 413),
          ]),
        );
      body = raw.toString('utf8');
    }
    const outbound = req.headers.accept?.includes(EVENT_STREAM)
      ? OutboundBuffer.forResponse(res, services.config.streams, {
          transport: 'sse',
          metrics: services.metrics,
          onSlowClient: (reason, unsent) =>
            services.log.warn(
              { requestId, reason, unsent },
              'closing an SSE client that reads too slowly (STREAM_MAX_BUFFERED_BYTES, STREAM_STALL_TIMEOUT_MS)',
            ),
        })
      : undefined;
    const [stream, init] = await handler({
      method: req.method ?? 'GET',
      url: req.url ?? '/graphql',
      headers: {
        get(key) {
          const value = req.headers[key.toLowerCase()];
          const text = Array.isArray(value) ? value.join('\n') : value;
          // graphql-sse compares the whole header; browsers and clients may add alternatives.
          return key.toLowerCase() === 'accept' && text?.includes(EVENT_STREAM) ? EVENT_STREAM : text;
        },
      },
      body,
      raw: req,
      context: { res, requestId, outbound },
    });
    res.writeHead(init.status, init.statusText, init.headers);
    if (!stream || typeof stream === 'string') {
      res.end(stream);
      return;
    }
    // A single-connection stream: its token's operations are paced by this response from now on.
    const token = req.method === 'GET' && outbound ? streamToken(req) : undefined;
    if (token) streams.set(token, outbound!);
    const stop = () => {
      if (token && streams.get(token) === outbound) streams.delete(token);
      void stream.return(undefined);
    };
    res.once('close', stop);
    // Written at once, never queued here: what the client has not read is counted by the outbound buffer, which
    // pauses the operations' sources and cuts a client that is too slow.
    for await (const message of stream) {
      if (outbound?.overflowed() || res.destroyed) break;
      res.write(message);
    }
    res.off('close', stop);
    if (token && streams.get(token) === outbound) streams.delete(token);
    if (!res.destroyed) res.end();
  };
}

/**
 * One result as a stream of one: graphql-sse tells a result from execution arguments by a `data` key, which a
 * request error (and graphql-js's failed subscribe) does not have.
 */
async function* single(result: FormattedExecutionResult): AsyncGenerator<ExecutionResult> {
  yield result as ExecutionResult;
}
