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
  /**
   * Starts what its consumer needs to take `value` at once (its shared execution: execution/sharedEvents.ts), for a
   * producer that pushes one value to many streams: it waits for these, then pushes, and each stream's consumer takes
   * the value in the producer's turn. Undefined when there is nothing to wait for.
   */
  prepare(value: T): Promise<unknown> | undefined;
}

/**
 * A consumer that takes a pushed value at once, in the producer's turn, instead of through `next()`: each layer of a
 * pull (the event stream, the compiled mapping, pacing, the entry's stream) makes a promise, a reaction and a result
 * object per value, and when one change reaches ten thousand subscribers in one sweep, all of theirs are alive at once
 * and survive the sweep's scavenges. Attached from the last layer through each iterator between it and the stream
 * ({@link attachDirect}); a layer that cannot take a value at once (a result with errors, a slow connection) says
 * false, and the value goes through `next()` as any other. The stream offers a value only while its consumer waits in
 * `next()` with nothing buffered, so a value taken at once is never ahead of one still on its way.
 */
export interface DirectConsumer<T> {
  /** Starts what taking `value` at once needs: a promise of it, or undefined. */
  prepare?(value: T): Promise<unknown> | undefined;
  /** Takes `value` now and says true; false to have it delivered through `next()`. */
  take(value: T): boolean;
  /**
   * The consumer rests ({@link park}) and a value it could not take at once, or the stream's end, is waiting: it
   * pulls it with `next()` now.
   */
  wake?(): void;
}

/** The method by which an iterator takes a {@link DirectConsumer} (and a layer passes it on to its own source). */
export const DIRECT = Symbol('direct consumer');

/** The method by which a consumer rests on an iterator ({@link park}). */
export const PARK = Symbol('park');

/** An iterator that offers its values to a {@link DirectConsumer}. */
export interface DirectSource<T> {
  [DIRECT](consumer: DirectConsumer<T>): void;
  [PARK]?(): boolean;
}

/** Attaches `consumer` to `source` when the source offers its values so (an iterator that does not: nothing). */
export function attachDirect<T>(source: unknown, consumer: DirectConsumer<T>): void {
  if (typeof source === 'object' && source !== null && DIRECT in source) (source as DirectSource<T>)[DIRECT](consumer);
}

/**
 * The attached {@link DirectConsumer} waits for `source`'s next value without a pending `next()`: each value is
 * offered to its `take`, and one it does not take (or the end) is kept for the `next()` its `wake` then makes. A
 * subscription of a live feed rests so between changes, with no promise, reaction or resolver per layer (ten
 * thousand subscribers hold theirs for hours). False when a value or the end is there already, or the source cannot
 * rest so: the consumer pulls with `next()` as usual.
 */
export function park(source: unknown): boolean {
  const parkable =
    typeof source === 'object' && source !== null && PARK in source ? (source as DirectSource<unknown>) : undefined;
  return parkable?.[PARK]?.() ?? false;
}

/** Values buffered before `push` makes the producer wait. */
export const HIGH_WATER_MARK = 16;

/** What `push` returns while there is room: a producer that sees it need not await (an await is a turn and a reaction per value). */
export const READY = Promise.resolve();

interface Waiter<T> {
  resolve: (r: IteratorResult<T>) => void;
  reject: (e: unknown) => void;
}

/** The one abort reason of every ended stream: abort() without one makes a DOMException, stack trace included, per stream. */
const ENDED = new DOMException('The event stream ended.', 'AbortError');

/** Told once when a stream ends: a function, or an object the producer keeps anyway (no closure per stream). */
export type EndListener = (() => void) | { ended(): void };

/**
 * `onEnd` runs once when the stream ends (the consumer returned, the producer ended it, or `parentSignal` fired): for a
 * producer that only needs to know that, without an abort controller per stream.
 */
export function eventStream<T>(
  start: (sink: EventSink<T>) => void | Promise<void>,
  parentSignal?: AbortSignal,
  onEnd?: EndListener,
): AsyncIterableIterator<T> {
  return new EventStream(start, parentSignal, onEnd);
}

/**
 * The stream and its sink in one object with its methods on the prototype: a subscription holds one of these for its
 * whole life, and a live-health fan-out holds ten thousand, so it keeps no closure per stream (each would be a
 * function, a context and a name string per method), creates its abort controller only when a producer asks for
 * the signal, and listens to the parent signal as an event listener object.
 */
class EventStream<T> implements AsyncIterableIterator<T>, EventSink<T>, DirectSource<T> {
  private readonly buffer: T[] = [];
  private direct: DirectConsumer<T> | undefined;
  /** Producers waiting for room. */
  private room: Array<() => void> | undefined;
  /**
   * The consumer waiting for a value, then any that called next() again before it settled: one slot, not an array,
   * since a subscription waits here for its whole life.
   */
  private waiter: Waiter<T> | undefined;
  private moreWaiters: Array<Waiter<T>> | undefined;
  /** The direct consumer rests ({@link park}): values go to its `take`, else it is woken. */
  private parked = false;
  private finished = false;
  private failure: { error: unknown } | undefined;
  private controller: AbortController | undefined;

  constructor(
    start: (sink: EventSink<T>) => void | Promise<void>,
    private readonly parentSignal?: AbortSignal,
    private readonly onEnd?: EndListener,
  ) {
    if (parentSignal?.aborted) this.finish();
    else parentSignal?.addEventListener('abort', this, { once: true });
    if (!this.finished) {
      Promise.resolve()
        .then(() => start(this))
        .catch((error: unknown) => this.finish(error ?? new Error('event stream producer failed')));
    }
  }

  /** Fires when the consumer stops listening (return/throw) or the stream ended. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.finished) this.controller.abort(ENDED);
    }
    return this.controller.signal;
  }

  /** The parent signal's abort (this object is its listener). */
  handleEvent(): void {
    this.finish();
  }

  [DIRECT](consumer: DirectConsumer<T>): void {
    this.direct = consumer;
  }

  [PARK](): boolean {
    if (!this.direct || this.waiter || this.buffer.length || this.finished) return false;
    return (this.parked = true);
  }

  prepare(value: T): Promise<unknown> | undefined {
    return this.finished ? undefined : this.direct?.prepare?.(value);
  }

  push(value: T): Promise<void> {
    if (this.finished) return READY;
    if (this.parked) {
      if (this.direct!.take(value)) return READY;
      // Kept for the next() the consumer makes now.
      this.parked = false;
      this.buffer.push(value);
      this.direct!.wake?.();
      return READY;
    }
    // Taken at once while the consumer waits for it with nothing before it (DirectConsumer says why).
    if (this.direct && this.waiter && !this.moreWaiters?.length && this.buffer.length === 0 && this.direct.take(value))
      return READY;
    const w = this.nextWaiter();
    if (w) w.resolve({ value, done: false });
    else this.buffer.push(value);
    return this.buffer.length < HIGH_WATER_MARK
      ? READY
      : new Promise<void>((resolve) => (this.room ??= []).push(resolve));
  }

  end(error?: unknown): void {
    this.finish(error);
  }

  next(): Promise<IteratorResult<T>> {
    this.parked = false;
    if (this.buffer.length) return Promise.resolve({ value: this.take(), done: false });
    if (this.failure) {
      const { error } = this.failure;
      this.failure = undefined;
      return Promise.reject(error);
    }
    if (this.finished) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      if (!this.waiter) this.waiter = { resolve, reject };
      else (this.moreWaiters ??= []).push({ resolve, reject });
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.buffer.length = 0;
    this.failure = undefined;
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<T>> {
    this.buffer.length = 0;
    this.failure = undefined;
    this.finish();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private nextWaiter(): Waiter<T> | undefined {
    const w = this.waiter;
    this.waiter = this.moreWaiters?.shift();
    return w;
  }

  private take(): T {
    const value = this.buffer.shift()!;
    if (this.buffer.length < HIGH_WATER_MARK && this.room?.length) this.releaseRoom();
    return value;
  }

  private releaseRoom(): void {
    const waiting = this.room;
    this.room = undefined;
    for (const resolve of waiting ?? []) resolve();
  }

  private finish(error?: unknown): void {
    if (this.finished) return;
    this.finished = true;
    if (error !== undefined) this.failure = { error };
    this.controller?.abort(ENDED);
    this.releaseRoom();
    this.parentSignal?.removeEventListener('abort', this);
    if (typeof this.onEnd === 'function') this.onEnd();
    else this.onEnd?.ended();
    for (let w = this.nextWaiter(); w; w = this.nextWaiter()) {
      if (this.failure && this.buffer.length === 0) {
        w.reject(this.failure.error);
        this.failure = undefined;
      } else w.resolve({ value: undefined, done: true });
    }
    // A resting consumer pulls the end (or the failure) now.
    if (this.parked) {
      this.parked = false;
      this.direct!.wake?.();
    }
  }
}
