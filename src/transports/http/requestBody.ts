import type { IncomingMessage } from 'node:http';
import { collect, collectThen, type Collected } from '../../streams/collect.js';

/** Largest request body any GraphQL transport on the port reads. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the body, or `undefined` when it exceeds `limit` (the rest is read and dropped). Rejects when the client
 * goes away before the body ended. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  // Not an async function: its promise and the await's were two more per request than `then`'s one.
  return collect(req, limit).then(bodyOf);
}

/**
 * {@link readBody} for a caller that goes on in the request's own `end` event (the classifier of `/graphql`): `done`
 * gets the failure (the client went away before the body ended) or the body, `undefined` past `limit`. No promise.
 */
export function readBodyThen(req: IncomingMessage, limit: number, done: (error: unknown, body?: Buffer) => void): void {
  collectThen(req, limit, overLimitRead, (error, collected) =>
    error ? done(error) : done(undefined, bodyOf(collected!)),
  );
}

/** Past the limit the rest is read and dropped, so the client gets its 413 rather than a reset. */
const overLimitRead = (): undefined => undefined;

function bodyOf({ chunks, size, overLimit }: Collected): Buffer | undefined {
  if (overLimit) return undefined;
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
}
