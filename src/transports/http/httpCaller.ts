import type { IncomingMessage, ServerResponse } from 'node:http';
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
  return {
    ...clients.of(req),
    requestId,
    transport,
    authorization: req.headers.authorization,
    trace: req.headers,
    authenticated: true,
  };
}

/** A signal that aborts when the response closes before it was finished: the client left. */
export function whenGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
