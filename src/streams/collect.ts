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
  // Dropped once settled: the listeners left on a long-lived request (an SSE stream's) keep no body.
  let chunks: Buffer[] | undefined = undefined;
  let size = 0;
  // Settled once; the listeners are left on the stream, which goes with them (a request's body, an answer's), rather
  // than taken off: removing a stream's last listener makes it a new table of events (≈ 180 B per request), and
  // `fail` stays its 'error' listener, so an error destroying can emit (undici's body: "Request aborted") or one
  // after the end is never an uncaught exception that ends the process.
  let settled = false;
  const fail = (error: unknown) => {
    if (settled) return;
    settled = true;
    chunks = undefined;
    stream.destroy();
    done(error ?? new Error('The stream failed.'));
  };
  const onData = (chunk: Buffer) => {
    if (settled) return;
    size += chunk.length;
    if (size <= limit) {
      // A literal of one for the first chunk (most bodies are one): a first push onto `[]` reserves 17 slots (152 B).
      if (chunks) chunks.push(chunk);
      else chunks = [chunk];
      return;
    }
    const error = onOverLimit();
    if (error) fail(error);
  };
  const onEnd = () => {
    if (settled) return;
    settled = true;
    const read = chunks ?? [];
    chunks = undefined;
    done(undefined, { chunks: read, size, overLimit: size > limit });
  };
  // Closed before its end: a reset, a cancel, a client gone; the stream's own error (if any) arrives first. A close
  // after the end (every request's) makes no error.
  const onClose = () => {
    if (!settled)
      fail(Object.assign(new Error('The stream closed before its end.'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
  };
  // First, whatever comes next: a stream destroyed with an error before this call emits it on the next tick.
  stream.on('error', fail);
  if (stream.destroyed)
    return fail(
      stream.errored ??
        Object.assign(new Error('The stream was destroyed before it was read.'), {
          code: 'ERR_STREAM_PREMATURE_CLOSE',
        }),
    );
  stream.on('data', onData);
  stream.on('end', onEnd);
  stream.on('close', onClose);
}
