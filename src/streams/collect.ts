import type { Readable } from 'node:stream';

/** What {@link collect} read: the chunks kept, the bytes seen, and whether they ran past the limit. */
export interface Collected {
  chunks: Buffer[];
  size: number;
  overLimit: boolean;
}

/**
 * Reads `stream` to its end, keeping at most `limit` bytes, with events rather than `for await` (whose iterator costs
 * an end-of-stream watcher and a promise per chunk, on every request and every upstream answer). Past the limit,
 * `onOverLimit` either gives the error to stop with (the stream is destroyed) or nothing: the rest is read and
 * dropped. Rejects when the stream closes before its end, or was already destroyed.
 */
export function collect(
  stream: Readable,
  limit: number,
  onOverLimit: () => Error | undefined = () => undefined,
): Promise<Collected> {
  return new Promise((resolve, reject) =>
    collectThen(stream, limit, onOverLimit, (error, collected) => (error ? reject(error) : resolve(collected!))),
  );
}

/**
 * {@link collect} with a callback instead of a promise: `done` is called once, from the stream's own event, with the
 * failure or what was read. For a caller that goes on in that event (an HTTP request's body: no promise per request).
 */
export function collectThen(
  stream: Readable,
  limit: number,
  onOverLimit: () => Error | undefined,
  done: (error: unknown, collected?: Collected) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const detach = () => {
    stream.off('data', onData);
    stream.off('end', onEnd);
    stream.off('error', fail);
    stream.off('close', onClose);
  };
  const fail = (error: unknown) => {
    detach();
    // Destroying can emit one more 'error' (undici's body: "Request aborted"); with no listener left, that would be
    // an uncaught exception that ends the process.
    stream.on('error', ignore);
    stream.destroy();
    done(error ?? new Error('The stream failed.'));
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) return void chunks.push(chunk);
    const error = onOverLimit();
    if (error) fail(error);
  };
  const onEnd = () => {
    detach();
    done(undefined, { chunks, size, overLimit: size > limit });
  };
  // Closed before its end: a reset, a cancel, a client gone; the stream's own error (if any) arrives first.
  const onClose = () =>
    fail(Object.assign(new Error('The stream closed before its end.'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
  if (stream.destroyed)
    return fail(
      stream.errored ??
        Object.assign(new Error('The stream was destroyed before it was read.'), {
          code: 'ERR_STREAM_PREMATURE_CLOSE',
        }),
    );
  stream.on('data', onData);
  stream.on('end', onEnd);
  stream.on('error', fail);
  stream.on('close', onClose);
}

function ignore(): void {}
