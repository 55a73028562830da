import { afterEach, describe, expect, it, vi } from 'vitest';
import { Deadline, Deadlines } from '../../../src/upstreams/http/deadlines.js';

class Entry extends Deadline {
  constructor(
    readonly name: string,
    private readonly expiredOnes: string[],
  ) {
    super();
  }

  expired(): void {
    this.expiredOnes.push(this.name);
  }
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
};

describe('Deadlines: the total timeouts of one upstream', () => {
  afterEach(() => vi.restoreAllMocks());

  it('expires each entry once, in the order they were added, and never one removed before its deadline', async () => {
    const expired: string[] = [];
    const deadlines = new Deadlines(60);
    const a = new Entry('a', expired);
    const b = new Entry('b', expired);
    const c = new Entry('c', expired);
    deadlines.add(a);
    deadlines.add(b);
    await new Promise((r) => setTimeout(r, 20));
    deadlines.add(c);
    deadlines.remove(b);
    deadlines.remove(b);
    await until(() => expired.length === 2);
    expect(expired).toEqual(['a', 'c']);
    expect(deadlines.size).toBe(0);
    // Removing an entry that already expired changes nothing.
    deadlines.remove(a);
    expect(deadlines.size).toBe(0);
  });

  it('keeps a later entry waiting until its own deadline when the head that set the timer finished early', async () => {
    const expired: string[] = [];
    const deadlines = new Deadlines(80);
    const first = new Entry('first', expired);
    const second = new Entry('second', expired);
    deadlines.add(first);
    await new Promise((r) => setTimeout(r, 40));
    deadlines.add(second);
    const secondDue = second.at;
    deadlines.remove(first);
    // The timer set for `first` wakes at its deadline, finds `second` not yet due and waits for it.
    await new Promise((r) => setTimeout(r, 55));
    expect(expired).toEqual([]);
    await until(() => expired.length === 1);
    expect(expired).toEqual(['second']);
    expect(performance.now()).toBeGreaterThanOrEqual(secondDue - 1);
  });

  it('sets one Node timer for many entries in flight, not one per entry', async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const expired: string[] = [];
    const deadlines = new Deadlines(30);
    const entries = Array.from({ length: 100 }, (_, i) => new Entry(String(i), expired));
    for (const e of entries) deadlines.add(e);
    expect(timers).toHaveBeenCalledTimes(1);
    for (const e of entries.slice(0, 99)) deadlines.remove(e);
    vi.restoreAllMocks();
    await until(() => expired.length === 1);
    expect(expired).toEqual(['99']);
  });
});
