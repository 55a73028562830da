import type { PollClock } from '../../src/domains/enterprise/live/poller.js';

/** The poller's timers, fired by the test: each `fire()` is one polling interval passing. */
export class ManualClock implements PollClock {
  private readonly pending = new Map<number, { callback: () => void; ms: number }>();
  private next = 0;

  setTimeout(callback: () => void, ms: number): number {
    this.pending.set(++this.next, { callback, ms });
    return this.next;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  /** The delay the poller asked for its next poll. */
  get delay(): number | undefined {
    return [...this.pending.values()][0]?.ms;
  }
  get waiting(): number {
    return this.pending.size;
  }
  fire(): void {
    const [entry] = [...this.pending];
    if (!entry) throw new Error('no poll is scheduled');
    this.pending.delete(entry[0]);
    entry[1].callback();
  }
}
