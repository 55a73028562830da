/** One entry of a {@link Deadlines} list: what expires (a buffered call, client.ts), linked in its deadline's order. */
export abstract class Deadline {
  /** `performance.now()` time at which it expires; 0 while it is in no list. */
  at = 0;
  prev: Deadline | undefined = undefined;
  next: Deadline | undefined = undefined;

  /** Its time is up (it has left the list already). */
  abstract expired(): void;
}

/**
 * The total timeouts of one upstream's buffered calls, all of one length: one Node timer for all of them instead of a
 * `setTimeout` (a Timeout, its closure and a timer-list insert and removal) per request. Entries join in the order
 * they expire (the length is fixed and `performance.now()` never goes back), so the list is a queue: adding and
 * removing are O(1) and the timer only ever waits for the head. A finished call leaves at once (nothing of it stays
 * referenced until its deadline); the timer, left set for a head that finished, wakes early, finds the next head and
 * waits again (under steady load once per `ms`, not per request). Each entry still expires at its own deadline, as
 * its own timer would have fired it. The timer is unref'd: a call in progress holds its own socket, connect or retry
 * timer, and an idle client must not keep its process alive for the length of a timeout; so it needs no stopping
 * when its client closes, and calls still in flight then (which the pool's close waits for) keep their deadlines.
 */
export class Deadlines {
  private head: Deadline | undefined = undefined;
  private tail: Deadline | undefined = undefined;
  private timer: NodeJS.Timeout | undefined = undefined;

  constructor(readonly ms: number) {}

  /** `entry` expires `ms` from now unless {@link remove}d first. */
  add(entry: Deadline): void {
    entry.at = performance.now() + this.ms;
    entry.prev = this.tail;
    entry.next = undefined;
    if (this.tail) this.tail.next = entry;
    else this.head = entry;
    this.tail = entry;
    // A timer already set waits for an earlier head, which expires no later than this entry.
    if (!this.timer) this.arm(this.ms);
  }

  /** `entry` finished before its deadline (or was never added): it leaves the list. */
  remove(entry: Deadline): void {
    if (entry.at === 0) return;
    entry.at = 0;
    const { prev, next } = entry;
    if (prev) prev.next = next;
    else this.head = next;
    if (next) next.prev = prev;
    else this.tail = prev;
    entry.prev = entry.next = undefined;
  }

  /** How many entries wait (tests). */
  get size(): number {
    let n = 0;
    for (let e = this.head; e; e = e.next) n++;
    return n;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(this.sweep, Math.max(1, Math.ceil(ms)));
    this.timer.unref();
  }

  private readonly sweep = (): void => {
    this.timer = undefined;
    // A Node timer may fire up to 1 ms before a deadline measured in fractions (its clock counts whole ms).
    const now = performance.now() + 1;
    try {
      for (let e = this.head; e && e.at <= now; e = this.head) {
        this.remove(e);
        e.expired();
      }
    } finally {
      if (this.head) this.arm(this.head.at - performance.now());
    }
  };
}
