import type { IncomingMessage } from 'node:http';
import { collect } from '../../streams/collect.js';

/** Largest request body any GraphQL transport on the port reads. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the body, or `undefined` when it exceeds `limit` (the rest is read and dropped). Rejects when the client
 * goes away before the body ended. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const { chunks, size, overLimit } = await collect(req, limit);
  if (overLimit) return undefined;
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}
