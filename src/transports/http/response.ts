import type { ServerResponse } from 'node:http';

/** A JSON response with its length, for answers the gateway writes itself (health, refusals before a protocol). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
