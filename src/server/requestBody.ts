import type { IncomingMessage } from 'node:http';

/** Largest request body any GraphQL transport on the port reads. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the body, or `undefined` when it exceeds `limit` (the rest is discarded). */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) tooLarge = true;
    else chunks.push(chunk as Buffer);
  }
  return tooLarge ? undefined : Buffer.concat(chunks);
}
