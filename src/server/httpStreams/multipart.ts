import type { ExecutionResult, GraphQLSchema } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperationGate, OperationPayload } from '../operationGate.js';
import { MAX_BODY_BYTES, readBody } from '../requestBody.js';
import { drained } from './drained.js';
import type { RunOperation } from './index.js';
import { presentedApiKey } from '../access.js';

const BOUNDARY = 'graphql';

/** Apollo Client's HttpLink asks for a subscription with `Accept: multipart/mixed;subscriptionSpec="1.0"` (+ boundary). */
export function acceptsMultipartSubscription(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes('multipart/mixed') && /subscriptionSpec/i.test(accept);
}

/**
 * Apollo's multipart HTTP subscription protocol: one `multipart/mixed` response whose parts are JSON objects —
 * `{"payload": <execution result>}` per event, `{}` as a heartbeat, `{"payload": null, "errors": […]}` for a fatal
 * error — closed by the final boundary. Request errors (limits, validation, budget) are answered before the stream
 * as a GraphQL-over-HTTP JSON response, as for any other operation.
 */
export function createMultipartHandler(options: { schema: GraphQLSchema; gate: OperationGate; heartbeatMs: number; run: RunOperation }) {
  const { gate, run } = options;
  return async function serveMultipart(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const payload = await readPayload(req);
    if ('refused' in payload) return sendErrors(req, res, payload.status, [payload.refused]);
    const admitted = gate.admit(payload, { requestId, transport: 'multipart', authorization: req.headers.authorization, trace: req.headers, apiKey: presentedApiKey(req.headers), remoteAddress: req.socket.remoteAddress });
    if (Array.isArray(admitted)) return sendErrors(req, res, 400, gate.format(undefined, admitted));
    const op = admitted;
    if (op.type === 'mutation' && req.method === 'GET') {
      op.errorCodes.add('BAD_USER_INPUT');
      gate.finish(op);
      return sendErrors(req, res, 405, [{ message: 'Mutations are not run over GET: send them with POST.', extensions: { code: 'BAD_USER_INPUT', reason: 'BAD_REQUEST' } }]);
    }

    res.writeHead(200, { 'content-type': `multipart/mixed;boundary="${BOUNDARY}";subscriptionSpec="1.0"`, 'cache-control': 'no-cache' });
    let iterator: AsyncIterator<ExecutionResult> | undefined;
    const onClose = () => {
      op.controller.abort();
      void iterator?.return?.();
    };
    res.once('close', onClose);
    const heartbeat = setInterval(() => void writePart(res, {}), options.heartbeatMs);
    try {
      const result = await run(op, payload.variables, payload.operationName);
      if (Symbol.asyncIterator in result) {
        iterator = result[Symbol.asyncIterator]();
        for (;;) {
          const next = await iterator.next();
          if (next.done || res.destroyed) break;
          await writePart(res, { payload: withFormattedErrors(next.value) });
        }
      } else {
        await writePart(res, { payload: withFormattedErrors(result) });
      }
    } catch (error) {
      await writePart(res, { payload: null, errors: gate.format(op, [{ message: (error as Error)?.message ?? 'stream failed' }]) });
    } finally {
      clearInterval(heartbeat);
      res.off('close', onClose);
      if (!res.destroyed) res.end(`\r\n--${BOUNDARY}--\r\n`);
      gate.finish(op);
    }

    function withFormattedErrors(result: ExecutionResult) {
      return result.errors?.length ? { ...result, errors: gate.format(op, result.errors) } : result;
    }
  };
}

type Refusal = { refused: { message: string; extensions: Record<string, unknown> }; status: number };

async function readPayload(req: IncomingMessage): Promise<OperationPayload | Refusal> {
  const bad = (message: string, status = 400): Refusal => ({ refused: { message, extensions: { code: 'BAD_USER_INPUT', reason: 'BAD_REQUEST' } }, status });
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

/** Writes one part and waits until the socket takes more (or closed), so a slow reader slows the stream down. */
function writePart(res: ServerResponse, body: unknown): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  const ok = res.write(`\r\n--${BOUNDARY}\r\ncontent-type: application/json; charset=utf-8\r\n\r\n${JSON.stringify(body)}`);
  return ok ? Promise.resolve() : drained(res);
}

/** Errors before the stream, as GraphQL over HTTP answers them (4xx only for `application/graphql-response+json`). */
function sendErrors(req: IncomingMessage, res: ServerResponse, status: number, errors: readonly unknown[]): void {
  const modern = req.headers.accept?.includes('application/graphql-response+json');
  const text = JSON.stringify({ errors });
  res.writeHead(modern || status !== 400 ? status : 200, {
    'content-type': `${modern ? 'application/graphql-response+json' : 'application/json'}; charset=utf-8`,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
