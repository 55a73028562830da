import type { IncomingMessage } from 'node:http';

/** Largest request body any GraphQL transport on the port reads. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Reads the body, or `undefined` when it exceeds `limit` (the rest is read and discarded). Rejects when the client
 * goes away before the body ended. Events rather than `for await`: the stream's async iterator costs a few µs per
 * request (an end-of-stream watcher and a promise per chunk), on every GraphQL POST.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    };
    const settle = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onEnd = () => {
      settle();
      resolve(size > limit ? undefined : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    // 'close' without 'end' first: the connection went away mid-body.
    const onClose = () => onError(Object.assign(new Error('The client closed the connection before the request body ended.'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
