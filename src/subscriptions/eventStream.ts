/**
 * An async iterator fed by pushes, for subscription resolvers.
 *
 * Why not an async generator: a generator's `return()` waits for a pending `next()` to settle, so a client that
 * unsubscribes while the generator awaits an upstream chunk would keep the upstream open (graphql-ws#653). Here
 * `return()` aborts the producer at once and settles any pending `next()` with `done`.
 */
export interface EventSink<T> {
  push(value: T): void;
  /** Ends the stream; with an error, the consumer's next `next()` rejects with it. */
  end(error?: unknown): void;
  /** Fires when the consumer stops listening (return/throw) or the stream ended. */
  signal: AbortSignal;
}

export function eventStream<T>(start: (sink: EventSink<T>) => void | Promise<void>, parentSignal?: AbortSignal): AsyncIterableIterator<T> {
  const controller = new AbortController();
  const buffer: T[] = [];
  const waiting: Array<{ resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void }> = [];
  let finished = false;
  let failure: { error: unknown } | undefined;

  const finish = (error?: unknown) => {
    if (finished) return;
    finished = true;
    if (error !== undefined) failure = { error };
    controller.abort();
    parentSignal?.removeEventListener('abort', onParentAbort);
    while (waiting.length) {
      const w = waiting.shift()!;
      if (failure && buffer.length === 0) {
        w.reject(failure.error);
        failure = undefined;
      } else w.resolve({ value: undefined, done: true });
    }
  };
  const onParentAbort = () => finish();
  if (parentSignal?.aborted) finish();
  else parentSignal?.addEventListener('abort', onParentAbort, { once: true });

  const sink: EventSink<T> = {
    push(value) {
      if (finished) return;
      const w = waiting.shift();
      if (w) w.resolve({ value, done: false });
      else buffer.push(value);
    },
    end: (error) => finish(error),
    signal: controller.signal,
  };
  if (!finished) {
    Promise.resolve()
      .then(() => start(sink))
      .catch((error: unknown) => finish(error ?? new Error('event stream producer failed')));
  }

  return {
    next() {
      if (buffer.length) return Promise.resolve({ value: buffer.shift()!, done: false });
      if (failure) {
        const { error } = failure;
        failure = undefined;
        return Promise.reject(error);
      }
      if (finished) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return() {
      buffer.length = 0;
      failure = undefined;
      finish();
      return Promise.resolve({ value: undefined, done: true });
    },
    throw(error?: unknown) {
      buffer.length = 0;
      failure = undefined;
      finish();
      return Promise.reject(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
