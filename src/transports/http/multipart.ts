import type { GraphQLSchema } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, refusalStatus, type GatewayError } from '../../errors/codes.js';
import { OperationFailed, type OperationPayload, type OperationPipeline } from '../../pipeline/index.js';
import type { ClientResolver } from '../clientIdentity.js';
import { httpCaller } from './httpCaller.js';
import type { GatewayServices } from '../../context/services.js';
import { OutboundBuffer, pacedBy } from '../outboundBuffer.js';
import { MAX_BODY_BYTES, readBody } from './requestBody.js';
import { createIncrementalResponder, noMutationOverGet } from './incremental.js';
import { MultipartWriter } from './multipartWriter.js';
import { sendErrors } from './response.js';

const BOUNDARY = 'graphql';

/**
 * Apollo's multipart HTTP subscription protocol: one `multipart/mixed` response whose parts are JSON objects —
 * `{"payload": <execution result>}` per event, `{}` as a heartbeat, `{"payload": null, "errors": […]}` for a fatal
 * error — closed by the final boundary. Request errors (limits, validation, budget) are answered before the stream
 * as a GraphQL-over-HTTP JSON response, as for any other operation (RATE_LIMITED with 429). Parts are paced by the
 * response's {@link OutboundBuffer}: a slow reader pauses the upstream, one too slow is cut and its upstream aborted.
 */
export function createMultipartHandler(options: {
  schema: GraphQLSchema;
  pipeline: OperationPipeline;
  services: GatewayServices;
  clients: ClientResolver;
  heartbeatMs: number;
}) {
  const { pipeline, services, clients } = options;
  const incremental = createIncrementalResponder(pipeline, services, clients);
  return async function serveMultipart(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const payload = await readPayload(req);
    if (payload instanceof Error) return sendErrors(req, res, refusalStatus(payload), pipeline.format([payload]));
    const cancel = new AbortController();
    const answer = await pipeline.execute(payload, httpCaller(req, requestId, 'multipart', clients), {
      signal: cancel.signal,
      stream: true,
      refuse: noMutationOverGet(req.method),
    });
    if (answer.kind === 'refused') return sendErrors(req, res, answer.status ?? 400, answer.errors);
    if (answer.kind !== 'stream') throw new Error('a stream was asked for');

    // A query with `@defer`/`@stream` answers in the incremental delivery format, whatever protocol was asked for.
    if (answer.incremental) return incremental.respond(res, requestId, answer.results, cancel);

    res.writeHead(200, {
      'content-type': `multipart/mixed;boundary="${BOUNDARY}";subscriptionSpec="1.0"`,
      'cache-control': 'no-cache',
    });
    const outbound = OutboundBuffer.forResponse(res, services.config.streams, {
      transport: 'multipart',
      metrics: services.metrics,
      onSlowClient: (reason, unsent) =>
        services.log.warn(
          { requestId, reason, unsent },
          'closing a multipart client that reads too slowly (STREAM_MAX_BUFFERED_BYTES, STREAM_STALL_TIMEOUT_MS)',
        ),
    });
    // Closing the response (the client left, or was too slow) aborts the operation; returning the iterator ends the loop.
    outbound.track(cancel);
    const parts = new MultipartWriter(res, BOUNDARY, outbound);
    const results = pacedBy(answer.results, outbound, cancel.signal);
    const onClose = () => void results.return?.(undefined);
    res.once('close', onClose);
    const heartbeat = setInterval(() => parts.write({}), options.heartbeatMs);
    try {
      for (;;) {
        const next = await results.next();
        if (next.done || outbound.done) break;
        parts.write({ payload: next.value });
      }
    } catch (error) {
      if (!(error instanceof OperationFailed)) throw error;
      parts.write({ payload: null, errors: error.errors });
    } finally {
      clearInterval(heartbeat);
      res.off('close', onClose);
      outbound.forget(cancel);
      await results.return?.(undefined);
      parts.end();
    }
  };
}

async function readPayload(req: IncomingMessage): Promise<OperationPayload | GatewayError> {
  const bad = badRequest;
  if (req.method === 'GET') {
    const params = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
    try {
      return {
        query: params.get('query') ?? undefined,
        operationName: params.get('operationName'),
        variables: params.get('variables') ? JSON.parse(params.get('variables')!) : undefined,
        extensions: params.get('extensions') ? JSON.parse(params.get('extensions')!) : undefined,
      };
    } catch {
      return bad('The variables or extensions parameter is not valid JSON.');
    }
  }
  if (req.method !== 'POST') return bad(`${req.method} is not served on /graphql: use POST (or GET).`, 405);
  const raw = await readBody(req, MAX_BODY_BYTES);
  if (raw === undefined) return bad(`Request body larger than ${MAX_BODY_BYTES} bytes`, 413);
  try {
    const body = JSON.parse(raw.toString('utf8')) as unknown;
    if (body && typeof body === 'object' && !Array.isArray(body)) return body as OperationPayload;
  } catch {
    /* answered below */
  }
  return bad('The request body must be a JSON object with "query" (and optional "variables", "operationName").');
}
