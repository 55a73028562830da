import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest } from '../../errors/codes.js';
import {
  OperationFailed,
  type OperationPayload,
  type OperationPipeline,
  type OperationStream,
} from '../../pipeline/index.js';
import { subscriptionOverHttp } from './classify.js';
import type { ClientResolver } from '../clientIdentity.js';
import { httpCaller } from './httpCaller.js';
import type { GatewayServices } from '../../context/services.js';
import { OutboundBuffer, pacedBy } from '../outboundBuffer.js';
import { MultipartWriter } from './multipartWriter.js';
import { sendErrors } from './response.js';

/** Apollo Router's boundary: parts open with `\r\n---`, the response closes with `\r\n-----`. */
const BOUNDARY = '-';
export const INCREMENTAL_CONTENT_TYPE = `multipart/mixed;boundary="${BOUNDARY}";deferSpec=20220824`;

/** A mutation changes state: never on a GET, which caches and prefetches read as safe. */
export const noMutationOverGet = (method: string | undefined) => (type: string) =>
  type === 'mutation' && method === 'GET'
    ? badRequest('Mutations are not run over GET: send them with POST.', 405)
    : undefined;

/**
 * `@defer`/`@stream` over HTTP, in the format Apollo Router answers and Apollo Client's `Defer20220824Handler` reads:
 * `content-type: multipart/mixed;boundary="-";deferSpec=20220824`, each part
 * `\r\n---\r\ncontent-type: application/json; charset=utf-8\r\n\r\n{…}`, the first `{data, errors?, hasNext: true}`,
 * then `{incremental: [{data, path, label?} | {items, path, label?}], hasNext}`, closed by `\r\n-----\r\n`. Request
 * errors (limits, validation, budget, quota) are answered before any part as a GraphQL-over-HTTP JSON response.
 * Apollo Server 5 on graphql 16 cannot deliver parts, so the pipeline runs these documents itself.
 */
export function createIncrementalResponder(
  pipeline: OperationPipeline,
  services: GatewayServices,
  clients: ClientResolver,
) {
  /** Sends an admitted operation's parts (one part, `hasNext: false`, when nothing was deferred after all). */
  async function respond(
    res: ServerResponse,
    requestId: string,
    results: OperationStream,
    cancel: AbortController,
  ): Promise<void> {
    res.writeHead(200, { 'content-type': INCREMENTAL_CONTENT_TYPE, 'cache-control': 'no-store' });
    const outbound = OutboundBuffer.forResponse(res, services.config.streams, {
      transport: 'multipart',
      metrics: services.metrics,
      onSlowClient: (reason, unsent) =>
        services.log.warn(
          { requestId, reason, unsent },
          'closing a multipart client that reads too slowly (STREAM_MAX_BUFFERED_BYTES, STREAM_STALL_TIMEOUT_MS)',
        ),
    });
    // Closing the response (the client left, or was too slow) aborts the operation and its upstream requests.
    outbound.track(cancel);
    const writer = new MultipartWriter(res, BOUNDARY, outbound);
    let last = false;
    const write = (body: object, hasNext: boolean) => {
      last = !hasNext;
      writer.write({ ...body, hasNext });
    };
    const parts = pacedBy(results, outbound, cancel.signal);
    const onClose = () => void parts.return?.(undefined);
    res.once('close', onClose);
    try {
      for await (const part of parts) {
        if (outbound.done) break;
        write(part, (part as { hasNext?: unknown }).hasNext === true);
      }
    } catch (error) {
      if (!(error instanceof OperationFailed)) throw error;
      write({ errors: error.errors }, false);
    } finally {
      res.off('close', onClose);
      outbound.forget(cancel);
      if (!last) write({}, false);
      writer.end();
    }
  }

  return {
    respond,
    /**
     * Serves an operation the classifier read and prepared already (classify.ts): the pipeline's admission, then the
     * parts.
     */
    async serve(
      req: IncomingMessage,
      res: ServerResponse,
      requestId: string,
      sent: Record<string, unknown>,
    ): Promise<void> {
      const payload = asPayload(sent);
      if (payload instanceof Error) return sendErrors(req, res, 400, pipeline.format([payload]));
      const cancel = new AbortController();
      const refuseMutation = noMutationOverGet(req.method);
      const answer = await pipeline.execute(payload, httpCaller(req, requestId, 'multipart', clients), {
        signal: cancel.signal,
        stream: true,
        refuse: (type) => (type === 'subscription' ? subscriptionOverHttp() : refuseMutation(type)),
      });
      if (answer.kind === 'refused') return sendErrors(req, res, answer.status ?? 400, answer.errors);
      if (answer.kind !== 'stream') throw new Error('a stream was asked for');
      return respond(res, requestId, answer.results, cancel);
    },
  };
}

/** A POST body as is; GET parameters carry `variables` and `extensions` as JSON text. */
function asPayload(sent: Record<string, unknown>): OperationPayload | Error {
  const json = (key: string) => (typeof sent[key] === 'string' ? JSON.parse(sent[key] as string) : sent[key]);
  try {
    return { ...sent, variables: json('variables'), extensions: json('extensions') } as OperationPayload;
  } catch {
    return badRequest('The variables or extensions parameter is not valid JSON: send each as a JSON object.');
  }
}
