import type { IncomingMessage } from 'node:http';
import { presentedApiKey } from '../../pipeline/rules/apiKey.js';
import type { OperationInit } from '../../pipeline/index.js';

/** What the pipeline needs to know of an operation that arrived in an HTTP request: its caller, trace and client. */
export function httpOperationInit(req: IncomingMessage, requestId: string, transport: OperationInit['transport']): OperationInit {
  return {
    requestId,
    transport,
    authorization: req.headers.authorization,
    trace: req.headers,
    client: { apiKey: presentedApiKey(req.headers), remoteAddress: req.socket.remoteAddress },
  };
}
