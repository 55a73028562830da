import { getMaxListeners, setMaxListeners } from 'node:events';
import type { Followable } from '../upstreams/http/cancellation.js';

/** AbortController's own `signal` getter (Node makes the signal on its first read). */
const baseSignal = Object.getOwnPropertyDescriptor(AbortController.prototype, 'signal')!.get!;

/** Whether a signal warns past its listener limit (Node 20: 10 by default; Node 24's never warn). */
const SIGNALS_WARN = getMaxListeners(new AbortController().signal) > 0;

/**
 * An operation's controller: an AbortController whose `abort` tells its followers directly (the upstream waits of
 * inFlight.ts and cancellation.ts, one slot each) and makes an AbortSignal only when something reads `signal` (a chat
 * stream, a sleep, a live feed); a signal read after the abort is aborted at once with its reason. A lookup whose
 * waits follow the controller then makes no signal at all: no EventTarget, no listener bookkeeping on either end, no
 * Event dispatched at its end (≈ 2 % of an unshared lookup's CPU, bench/PROFILE.md, twelfth and thirteenth passes).
 */
export class OperationController extends AbortController implements Followable {
  declare readonly signal: AbortSignal;
  #aborted = false;
  #reason: unknown = undefined;
  #made = false;
  #followers: Array<() => void> | undefined = undefined;
  /**
   * Listeners its signal may have without a leak warning, set on the signal when it is made (Node 20: reading it only
   * to raise the limit made a signal per operation): one per upstream request in flight, within the upstream budget.
   */
  maxListeners = 0;

  get aborted(): boolean {
    return this.#aborted;
  }

  get reason(): unknown {
    return this.#reason;
  }

  /** Whether `signal` was read: only then can anything listen to it. */
  get signalMade(): boolean {
    return this.#made;
  }

  override abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    // As AbortController's own default.
    this.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    const followers = this.#followers;
    this.#followers = undefined;
    if (followers) for (const follower of followers) follower();
    if (this.#made) super.abort(this.#reason);
  }

  /** `follower` is called once by the abort; one that came already is the caller's to check (`aborted`). */
  follow(follower: () => void): void {
    if (this.#aborted) return;
    // A literal of one: a first push into `[]` gives the array room for 17 (152 B; most operations have one follower).
    if (this.#followers) this.#followers.push(follower);
    else this.#followers = [follower];
  }

  unfollow(follower: () => void): void {
    const followers = this.#followers;
    if (!followers) return;
    const i = followers.lastIndexOf(follower);
    if (i === -1) return;
    followers[i] = followers[followers.length - 1];
    followers.pop();
  }

  // The `signal` accessor, defined here (inside the class, for its private fields) because TypeScript does not let
  // a subclass override a property declared by its base as an accessor.
  static {
    Object.defineProperty(OperationController.prototype, 'signal', {
      configurable: true,
      get(this: OperationController): AbortSignal {
        const signal = baseSignal.call(this) as AbortSignal;
        if (!this.#made) {
          this.#made = true;
          if (SIGNALS_WARN && this.maxListeners > 0) setMaxListeners(this.maxListeners, signal);
          if (this.#aborted) AbortController.prototype.abort.call(this, this.#reason);
        }
        return signal;
      },
    });
  }
}

/** Whether `controller` aborted, without making the signal of an {@link OperationController}. */
export function controllerAborted(controller: AbortController): boolean {
  return controller instanceof OperationController ? controller.aborted : controller.signal.aborted;
}
