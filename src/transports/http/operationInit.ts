import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Operation, OperationInit } from '../../pipeline/index.js';
import type { ClientResolver } from '../clientIdentity.js';

/** What the pipeline needs to know of an operation that arrived in an HTTP request: its caller, trace and client. */
export function httpOperationInit(req: IncomingMessage, requestId: string, transport: OperationInit['transport'], clients: ClientResolver): OperationInit {
  return { requestId, transport, authorization: req.headers.authorization, trace: req.headers, client: clients.of(req) };
}

/** Aborts the operation (and its upstream requests) when the response closes before it was finished: the client left. */
export function abortWhenGone(op: Operation, res: ServerResponse): void {
  res.once('close', () => {
    if (!res.writableFinished) op.controller.abort();
  });
}
