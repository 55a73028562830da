import type { IncomingMessage, ServerResponse } from 'node:http';
import { OperationController } from '../../context/operationController.js';
import type { Caller } from '../../pipeline/index.js';
import type { ClientResolver } from '../clientIdentity.js';

/**
 * The caller of an operation that arrived in an HTTP request: its client as the trust rules resolve it, its
 * `Authorization` and trace headers. The router checked its API key already (`pipeline.gate`).
 */
export function httpCaller(
  req: IncomingMessage,
  requestId: string,
  transport: Caller['transport'],
  clients: ClientResolver,
): Caller {
  const client = clients.of(req);
  // Field by field, not `...client`: V8's spread of the identity then five more fields took a slow path, ≈ 1.5 KB and
  // several µs per request (bench/PROFILE.md, ninth pass).
  return {
    apiKey: client.apiKey,
    remoteAddress: client.remoteAddress,
    subject: client.subject,
    router: client.router,
    requestId,
    transport,
    authorization: req.headers.authorization,
    trace: req.headers,
    authenticated: true,
  };
}

/**
 * A controller aborted when the response closes before it was finished (the client left), for the pipeline to adopt
 * as its operation's own: one controller per request, not a second one chained to this one's signal.
 */
export function abortWhenGone(res: ServerResponse): OperationController {
  // The operation's own kind: its upstream waits follow it without an AbortSignal unless one is read.
  const controller = new OperationController();
  // `on`, not `once`: a response closes once, and `once` wraps each listener in two more objects.
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller;
}
