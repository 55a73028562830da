import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/** The content type Graph answers JSON with (docs/upstreams.md 1.11). */
export const ODATA_JSON =
  'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8';

/** One response as the handlers produce it, written to the socket or embedded in a `$batch` answer. */
export interface GraphResponse {
  status: number;
  headers: Record<string, string>;
  body?: unknown;
}

export interface RequestIds {
  requestId: string;
  clientRequestId: string;
}

export function requestIds(headers: IncomingHttpHeaders): RequestIds {
  const requestId = randomUUID();
  const sent = headers['client-request-id'];
  return { requestId, clientRequestId: typeof sent === 'string' && sent ? sent : requestId };
}

const DIAGNOSTIC = JSON.stringify({
  ServerInfo: { DataCenter: 'Sandbox', Slice: 'E', Ring: '5', ScaleUnit: '000', RoleInstance: 'SANDBOX0001' },
});

/** Headers every Graph response carries. */
export function graphHeaders(ids: RequestIds): Record<string, string> {
  return {
    'content-type': ODATA_JSON,
    'odata-version': '4.0',
    'request-id': ids.requestId,
    'client-request-id': ids.clientRequestId,
    'x-ms-ags-diagnostic': DIAGNOSTIC,
    'cache-control': 'no-cache',
  };
}

export function writeGraph(res: ServerResponse, r: GraphResponse, ids: RequestIds): void {
  const headers = { ...graphHeaders(ids), ...r.headers };
  if (r.body === undefined) {
    delete (headers as Record<string, string | undefined>)['content-type'];
    res.writeHead(r.status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(r.body);
  res.writeHead(r.status, { ...headers, 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
}
