import type { IncomingMessage, ServerResponse } from 'node:http';
import { drained } from './drained.js';

/**
 * Writes one JSON part of a `multipart/mixed` response and waits until the socket takes more (or closed), so a slow
 * reader slows the stream down.
 */
export function writeJsonPart(res: ServerResponse, boundary: string, body: unknown): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  const ok = res.write(`\r\n--${boundary}\r\ncontent-type: application/json; charset=utf-8\r\n\r\n${JSON.stringify(body)}`);
  return ok ? Promise.resolve() : drained(res);
}

/** The closing delimiter of a `multipart/mixed` response. */
export function closingDelimiter(boundary: string): string {
  return `\r\n--${boundary}--\r\n`;
}

/** Errors before a stream, as GraphQL over HTTP answers them (4xx only for `application/graphql-response+json`). */
export function sendErrors(req: IncomingMessage, res: ServerResponse, status: number, errors: readonly unknown[]): void {
  const modern = req.headers.accept?.includes('application/graphql-response+json');
  const text = JSON.stringify({ errors });
  res.writeHead(modern || status !== 400 ? status : 200, {
    'content-type': `${modern ? 'application/graphql-response+json' : 'application/json'}; charset=utf-8`,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
