/**
 * An async iterator fed by pushes, for subscription resolvers.
 *
 * Why not an async generator: a generator's `return()` waits for a pending `next()` to settle, so a client that
 * unsubscribes while the generator awaits an upstream chunk would keep the upstream open (graphql-ws issue 653 on GitHub). Here
 * `return()` aborts the producer at once and settles any pending `next()` with `done`.
 *
 * Backpressure: at most {@link HIGH_WATER_MARK} values wait for the consumer. `push` resolves once there is room
 * again, so a producer that awaits it reads its source (an upstream stream) no faster than the subscriber takes
 * the values; one that does not await keeps working but buffers without bound.
 */
export interface EventSink<T> {
  /** Queues `value`; resolves when the buffer has room again (at once while it has), or the stream ended. */
  push(value: T): Promise<void>;
  /** Ends the stream; with an error, the consumer's next `next()` rejects with it. */
  end(error?: unknown): void;
  /** Fires when the consumer stops listening (return/throw) or the stream ended. */
  signal: AbortSignal;
}

/** Values buffered before `push` makes the producer wait. */
export const HIGH_WATER_MARK = 16;

const READY = Promise.resolve();

/** The one abort reason of every ended stream: abort() without one makes a DOMException, stack trace included, per stream. */
const ENDED = new DOMException('The event stream ended.', 'AbortError');

export function eventStream<T>(start: (sink: EventSink<T>) => void | Promise<void>, parentSignal?: AbortSignal): AsyncIterableIterator<T> {
  const controller = new AbortController();
  const buffer: T[] = [];
  /** Producers waiting for room. */
  let room: Array<() => void> = [];
  const releaseRoom = () => {
    const waiting = room;
    room = [];
    for (const resolve of waiting) resolve();
  };
  const take = (): T => {
    const value = buffer.shift()!;
    if (buffer.length < HIGH_WATER_MARK && room.length) releaseRoom();
    return value;
  };
  const waiting: Array<{ resolve: (r: IteratorResult<T>) => void; reject: (e: unknown) => void }> = [];
  let finished = false;
  let failure: { error: unknown } | undefined;

  const finish = (error?: unknown) => {
    if (finished) return;
    finished = true;
    if (error !== undefined) failure = { error };
    controller.abort(ENDED);
    releaseRoom();
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
      if (finished) return READY;
      const w = waiting.shift();
      if (w) w.resolve({ value, done: false });
      else buffer.push(value);
      return buffer.length < HIGH_WATER_MARK ? READY : new Promise<void>((resolve) => room.push(resolve));
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
      if (buffer.length) return Promise.resolve({ value: take(), done: false });
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
