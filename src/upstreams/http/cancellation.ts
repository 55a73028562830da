/**
 * A cancellation that tells its followers directly, without an EventTarget: the operation's own controller
 * (context/operationController.ts), which makes an AbortSignal only when one is read.
 */
export interface Followable {
  readonly aborted: boolean;
  readonly reason: unknown;
  /** The real signal, made when read (a sleep, a stream, undici's own `request()`). */
  readonly signal: AbortSignal;
  follow(follower: () => void): void;
  unfollow(follower: () => void): void;
}

/** What a caller's wait or request follows: a plain signal, or a {@link Followable} that makes one only if asked. */
export type CancelSource = AbortSignal | Followable;

/** `follower` is called once when `source` aborts (until {@link unfollowAbort}). */
export function followAbort(source: CancelSource, follower: () => void): void {
  if (source instanceof AbortSignal) source.addEventListener('abort', follower);
  else source.follow(follower);
}

export function unfollowAbort(source: CancelSource, follower: () => void): void {
  if (source instanceof AbortSignal) source.removeEventListener('abort', follower);
  else source.unfollow(follower);
}

/** The AbortSignal of `source`, for what needs a real one (made on this read for a {@link Followable}). */
export function signalOf(source: CancelSource): AbortSignal;
export function signalOf(source: CancelSource | undefined): AbortSignal | undefined;
export function signalOf(source: CancelSource | undefined): AbortSignal | undefined {
  return source === undefined || source instanceof AbortSignal ? source : source.signal;
}

/** Told when the request it follows is cancelled: the request's dispatch handler (received.ts). */
export interface CancelListener {
  cancelled(reason: unknown): void;
}

/**
 * The cancellation of one upstream request: what it needs of an AbortController (abort now or when the request starts,
 * with a reason the interceptors can read), for its one listener and without an EventTarget. An AbortController per
 * request costs its signal (an EventTarget with a listener map, ≈ 1 KB, and Node's listener bookkeeping on both
 * ends: ≈ 4 % of an unshared lookup's CPU, bench/PROFILE.md, tenth pass); the operation's own signal is followed with
 * one listener, removed when the request is over.
 */
export class Cancellation {
  aborted = false;
  reason: unknown = undefined;
  private listener: CancelListener | undefined = undefined;
  private source: CancelSource | undefined = undefined;
  private follower: (() => void) | undefined = undefined;

  /** A cancellation that aborts when `signal` does (a caller's), until {@link release}. */
  static following(signal: CancelSource | undefined): Cancellation {
    const cancel = new Cancellation();
    if (signal?.aborted) cancel.abort(signal.reason);
    else if (signal) {
      // A function, not the object with `handleEvent`: Node wraps an object listener in an async function.
      const follower = () => cancel.abort(signal.reason);
      cancel.source = signal;
      cancel.follower = follower;
      followAbort(signal, follower);
    }
    return cancel;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listener = this.listener;
    this.release();
    listener?.cancelled(reason);
  }

  /** `listener` is told of an abort that comes later; one listener, a second replaces the first. */
  listen(listener: CancelListener): void {
    this.listener = listener;
  }

  /** The request is over: nobody to tell any more, and the followed signal no longer holds a listener for it. */
  release(): void {
    this.listener = undefined;
    const source = this.source;
    if (source) {
      unfollowAbort(source, this.follower!);
      this.source = this.follower = undefined;
    }
  }
}
