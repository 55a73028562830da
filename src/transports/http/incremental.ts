import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, refusalStatus } from '../../errors/codes.js';
import type { AdmittedOperation, OperationPayload, OperationPipeline } from '../../pipeline/index.js';
import { subscriptionOverHttp } from './classify.js';
import type { ClientResolver } from '../clientIdentity.js';
import { httpOperationInit } from './operationInit.js';
import type { GatewayServices } from '../../context/services.js';
import { OutboundBuffer, pacedBy } from '../outboundBuffer.js';
import { MultipartWriter } from './multipartWriter.js';
import { sendErrors } from './response.js';

/** Apollo Router's boundary: parts open with `\r\n---`, the response closes with `\r\n-----`. */
const BOUNDARY = '-';
export const INCREMENTAL_CONTENT_TYPE = `multipart/mixed;boundary="${BOUNDARY}";deferSpec=20220824`;

/**
 * `@defer`/`@stream` over HTTP, in the format Apollo Router answers and Apollo Client's `Defer20220824Handler` reads:
 * `content-type: multipart/mixed;boundary="-";deferSpec=20220824`, each part
 * `\r\n---\r\ncontent-type: application/json; charset=utf-8\r\n\r\n{…}`, the first `{data, errors?, hasNext: true}`,
 * then `{incremental: [{data, path, label?} | {items, path, label?}], hasNext}`, closed by `\r\n-----\r\n`. Request
 * errors (limits, validation, budget, quota) are answered before any part as a GraphQL-over-HTTP JSON response.
 * Apollo Server 5 on graphql 16 cannot deliver parts, so the pipeline runs these documents itself.
 */
export function createIncrementalResponder(pipeline: OperationPipeline, services: GatewayServices, clients: ClientResolver) {
  /** Sends an admitted operation's parts (one part, `hasNext: false`, when nothing was deferred after all). */
  async function respond(res: ServerResponse, op: AdmittedOperation): Promise<void> {
    res.writeHead(200, { 'content-type': INCREMENTAL_CONTENT_TYPE, 'cache-control': 'no-store' });
    const outbound = OutboundBuffer.forResponse(res, services.config.streams, {
      transport: 'multipart',
      metrics: services.metrics,
      onSlowClient: (reason, unsent) =>
        services.log.warn({ requestId: op.context.requestId, reason, unsent }, 'closing a multipart client that reads too slowly (STREAM_MAX_BUFFERED_BYTES, STREAM_STALL_TIMEOUT_MS)'),
    });
    // Closing the response (the client left, or was too slow) aborts the operation and its upstream requests.
    outbound.track(op.controller);
    const writer = new MultipartWriter(res, BOUNDARY, outbound);
    let last = false;
    const write = (body: object, hasNext: boolean) => {
      last = !hasNext;
      writer.write({ ...body, hasNext });
    };
    let parts: AsyncIterableIterator<Record<string, unknown>> | undefined;
    const onClose = () => void parts?.return?.(undefined);
    res.once('close', onClose);
    try {
      const result = await pipeline.run(op);
      if (Symbol.asyncIterator in result) {
        parts = pacedBy(result[Symbol.asyncIterator](), outbound, op.controller.signal) as AsyncIterableIterator<Record<string, unknown>>;
        for await (const part of parts) {
          if (outbound.done) break;
          write(pipeline.formatted(op, part as never), part.hasNext === true);
        }
      } else {
        write(pipeline.formatted(op, result), false);
      }
    } catch (error) {
      write({ errors: pipeline.format([{ message: (error as Error)?.message ?? 'operation failed' }], op) }, false);
    } finally {
      res.off('close', onClose);
      outbound.forget(op.controller);
      if (!last) write({}, false);
      writer.end();
      pipeline.finish(op);
    }
  }

  return {
    respond,
    /**
     * Serves an operation the classifier read and prepared already (classify.ts): the pipeline's admission, then the
     * parts.
     */
    async serve(req: IncomingMessage, res: ServerResponse, requestId: string, sent: Record<string, unknown>): Promise<void> {
      const payload = asPayload(sent);
      if (payload instanceof Error) return sendErrors(req, res, 400, pipeline.format([payload]));
      const admitted = await pipeline.admit(payload, httpOperationInit(req, requestId, 'multipart', clients));
      if (Array.isArray(admitted)) return sendErrors(req, res, refusalStatus(admitted[0]), pipeline.format(admitted));
      const refusal =
        admitted.type === 'subscription' ? subscriptionOverHttp() : admitted.type === 'mutation' && req.method === 'GET' ? badRequest('Mutations are not run over GET: send them with POST.', 405) : undefined;
      if (refusal) {
        const errors = pipeline.format([refusal], admitted);
        pipeline.finish(admitted);
        return sendErrors(req, res, refusalStatus(refusal), errors);
      }
      return respond(res, admitted);
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
