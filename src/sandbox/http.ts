import type { IncomingMessage, ServerResponse } from 'node:http';

/** Sends a JSON body with the given status and headers. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** Largest request body the sandbox reads (its own figure: the vendors publish none for a request). */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Bytes of a refused body read and dropped before the socket is dropped instead: a client may not stream forever. */
const MAX_DRAINED_BYTES = 64 * 1024 * 1024;

/** A body past {@link MAX_BODY_BYTES}, read to its end: answered by {@link refuseBodyTooLarge}. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body larger than ${limit} bytes`);
    this.name = 'BodyTooLarge';
  }
}

/**
 * The whole body. Past `limit` the rest is still read, and dropped, before the promise rejects with
 * {@link BodyTooLarge}: answering while the client still sends would leave the rest of its body on the socket, where
 * a client that keeps the connection would have its next request taken for more of this one (RFC 9112 section 9.6:
 * a server that closes reads on until the client has sent its request, or a reset loses the answer). Past
 * {@link MAX_DRAINED_BYTES} more, the socket is dropped.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > limit + MAX_DRAINED_BYTES) req.socket.destroy();
    });
    req.on('end', () => (size > limit ? reject(new BodyTooLarge(limit)) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('the client went away before its request body ended'));
    });
  });
}

/**
 * 413 Content Too Large with `Connection: close` (RFC 9110 section 15.5.14), after the body was read to its end:
 * Node closes the socket once the answer is sent, so no client reuses a connection the server gave up on.
 */
export function refuseBodyTooLarge(res: ServerResponse, error: BodyTooLarge): void {
  sendJson(
    res,
    413,
    { error: { code: 'RequestTooLarge', message: `${error.message}: send a smaller one.` } },
    { connection: 'close' },
  );
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
