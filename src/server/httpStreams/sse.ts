import type { ExecutionResult, GraphQLSchema } from 'graphql';
import { createHandler, type RequestParams } from 'graphql-sse';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, ErrorCode } from '../../errors.js';
import type { AdmittedOperation, OperationPipeline } from '../../pipeline/index.js';
import type { GatewayContext } from '../../runtime/context.js';
import { MAX_BODY_BYTES, readBody } from '../requestBody.js';
import { drained } from './drained.js';

const EVENT_STREAM = 'text/event-stream';
const TOKEN_HEADER = 'x-graphql-event-stream-token';

/** GraphQL over SSE: a stream request (`Accept: text/event-stream`), or a single-connection-mode reservation/operation. */
export function isSseRequest(req: IncomingMessage): boolean {
  if (req.headers.accept?.includes(EVENT_STREAM)) return true;
  if (req.method === 'PUT' || req.method === 'DELETE' || req.headers[TOKEN_HEADER]) return true;
  return /[?&]token=/.test(req.url ?? '');
}

interface RequestContext {
  res: ServerResponse;
  requestId: string;
}

/**
 * The graphql-sse handler (both its distinct-connections and single-connection modes) with the gateway's rules:
 * every operation passes the operation pipeline, and a distinct stream whose client goes away aborts its upstream
 * requests at once.
 */
export function createSseHandler(options: { schema: GraphQLSchema; pipeline: OperationPipeline }) {
  const { pipeline } = options;
  const operations = new WeakMap<IncomingMessage, AdmittedOperation>();
  const handler = createHandler<IncomingMessage, RequestContext, (GatewayContext & Record<PropertyKey, unknown>) | undefined>({
    schema: options.schema,
    // The pipeline validated the document with the gateway's limit rules already.
    validate: () => [],
    async onSubscribe(req, params: RequestParams) {
      const raw = req.raw;
      const admitted = await pipeline.admit(params, {
        requestId: req.context.requestId,
        transport: 'sse',
        authorization: raw.headers.authorization,
        trace: raw.headers,
      });
      if (Array.isArray(admitted)) return single({ errors: pipeline.format(admitted) });
      operations.set(raw, admitted);
      if (admitted.type === 'mutation' && req.method === 'GET') {
        admitted.errorCodes.add(ErrorCode.BadUserInput);
        return single({ errors: pipeline.format([badRequest('Mutations are not run over GET: send them with POST.', 405)]) });
      }
      // In distinct-connections mode this response is the stream: its end is the client leaving.
      if (req.headers.get('accept') === EVENT_STREAM) {
        req.context.res.once('close', () => admitted.controller.abort());
      }
      const result = await pipeline.run(admitted);
      return Symbol.asyncIterator in result ? result : single(result);
    },
    context: (req) => operations.get(req.raw)?.context as (GatewayContext & Record<PropertyKey, unknown>) | undefined,
    onNext(_ctx, req, result) {
      const op = operations.get(req.raw);
      if (!op || (!result.errors?.length && !('incremental' in result))) return;
      return pipeline.formatted(op, result as ExecutionResult) as unknown as ExecutionResult;
    },
    onComplete(_ctx, req) {
      const op = operations.get(req.raw);
      if (!op) return;
      operations.delete(req.raw);
      pipeline.finish(op);
    },
  });

  return async function serveSse(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    let body: string | null = null;
    if (req.method === 'POST') {
      const raw = await readBody(req, MAX_BODY_BYTES);
      if (raw === undefined) {
        res.writeHead(413, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ errors: pipeline.format([badRequest(`Request body larger than ${MAX_BODY_BYTES} bytes: send a smaller operation.`, 413)]) }));
        return;
      }
      body = raw.toString('utf8');
    }
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
      context: { res, requestId },
    });
    res.writeHead(init.status, init.statusText, init.headers);
    if (!stream || typeof stream === 'string') {
      res.end(stream);
      return;
    }
    const stop = () => void stream.return(undefined);
    res.once('close', stop);
    for await (const message of stream) {
      if (res.destroyed) break;
      if (!res.write(message)) await drained(res);
    }
    res.off('close', stop);
    res.end();
  };
}

/**
 * One result as a stream of one: graphql-sse tells a result from execution arguments by a `data` key, which a
 * request error (and graphql-js's failed subscribe) does not have.
 */
async function* single(result: ExecutionResult | { errors: unknown[] }): AsyncGenerator<ExecutionResult> {
  yield result as ExecutionResult;
}
