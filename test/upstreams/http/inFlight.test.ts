import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { Cancellation } from '../../../src/upstreams/http/cancellation.js';
import { InFlight } from '../../../src/upstreams/http/inFlight.js';

/** A request that answers when told to: its key's starts are counted. */
function requests() {
  const started = new Map<string, number>();
  const pending = new Map<string, Array<(value: string) => void>>();
  const start = (key: string) => () => {
    started.set(key, (started.get(key) ?? 0) + 1);
    return new Promise<string>((resolve) => pending.set(key, [...(pending.get(key) ?? []), resolve]));
  };
  /** Answers every request of `key` started so far. */
  const answer = (key: string, value: string) => {
    for (const resolve of pending.get(key) ?? []) resolve(value);
    pending.delete(key);
  };
  return { started, answer, start };
}

describe('InFlight', () => {
  it('takes the answer from a request that hands it to the flight itself, even one that settles before it returns', async () => {
    const flights = new InFlight<string>();
    let settle: ((value: string) => void) | undefined;
    const later = flights.run('/later', (_cancel, flight) => void (settle = (v) => flight.resolve(v)));
    const joined = flights.run('/later', () => Promise.resolve('never started'));
    settle!('answer');
    expect(await later).toBe('answer');
    expect(await joined).toBe('answer');
    // An open circuit refuses inside `start`: its first caller still gets the refusal, and the key is free again.
    const refusal = new Error('circuit open');
    await expect(flights.run('/now', (_cancel, flight) => flight.reject(refusal))).rejects.toBe(refusal);
    await expect(flights.run('/now', (_cancel, flight) => flight.resolve('at once'))).resolves.toBe('at once');
    // A flight every caller left is cancelled whichever way its request answers.
    const controller = new AbortController();
    let cancelled: Cancellation | undefined;
    const left = flights.run('/left', (cancel) => void (cancelled = cancel), controller.signal);
    controller.abort(new Error('gone'));
    await expect(left).rejects.toThrow('gone');
    expect(cancelled!.aborted).toBe(true);
  });

  it('shares one request per key in flight, past the point where its list becomes a Map and back', async () => {
    const flights = new InFlight<string>();
    const { started, answer, start } = requests();
    // 40 distinct keys at once: more than the list holds (32), so the flights move to a Map midway.
    const keys = Array.from({ length: 40 }, (_, i) => `/title/${i}`);
    const first = keys.map((k) => flights.run(k, start(k)));
    // The same keys again while all are in flight: each joins its flight, on both sides of the move.
    let coalesced = 0;
    const second = keys.map((k) => flights.run(k, start(k), undefined, () => coalesced++));
    expect(coalesced).toBe(40);
    expect([...started.values()].every((n) => n === 1)).toBe(true);
    for (const k of keys) answer(k, `answer of ${k}`);
    expect(await Promise.all(first)).toEqual(keys.map((k) => `answer of ${k}`));
    expect(await Promise.all(second)).toEqual(keys.map((k) => `answer of ${k}`));
    // Settled flights are gone: the next caller of a key starts a new request (list, then Map, then list again).
    const again = flights.run(keys[39], start(keys[39]));
    expect(started.get(keys[39])).toBe(2);
    answer(keys[39], 'fresh');
    expect(await again).toBe('fresh');
  });

  it('keeps the other flights when one in the middle of its list settles, and forget() starts fresh ones', async () => {
    const flights = new InFlight<string>();
    const { started, answer, start } = requests();
    const a = flights.run('a', start('a'));
    const b = flights.run('b', start('b'));
    const c = flights.run('c', start('c'));
    answer('a', 'A');
    await a;
    // 'c' took 'a''s slot: both remaining flights are still found.
    const b2 = flights.run('b', start('b'));
    const c2 = flights.run('c', start('c'));
    expect([started.get('b'), started.get('c')]).toEqual([1, 1]);
    flights.forget();
    const c3 = flights.run('c', start('c'));
    expect(started.get('c')).toBe(2);
    answer('b', 'B');
    answer('c', 'C');
    expect(await Promise.all([b, b2, c, c2, c3])).toEqual(['B', 'B', 'C', 'C', 'C']);
  });

  it("stops only a leaving caller's wait, and aborts the shared request once every caller left", async () => {
    const flights = new InFlight<string>();
    let cancel: Cancellation | undefined;
    const start = (c: Cancellation) => {
      cancel = c;
      return new Promise<string>(() => undefined);
    };
    const one = new AbortController();
    const two = new AbortController();
    const first = flights.run('k', start, one.signal);
    const second = flights.run('k', start, two.signal);
    one.abort(new Error('first left'));
    await expect(first).rejects.toThrow('first left');
    expect(cancel!.aborted).toBe(false);
    two.abort(new Error('second left'));
    await expect(second).rejects.toThrow('second left');
    expect(cancel!.aborted).toBe(true);
  });

  it("leaves no listener on a caller's signal once its flight answered or failed", async () => {
    const flights = new InFlight<string>();
    const { answer, start } = requests();
    const signals = [new AbortController().signal, new AbortController().signal];
    const waits = signals.map((signal) => flights.run('k', start('k'), signal));
    expect(signals.map((s) => getEventListeners(s, 'abort').length)).toEqual([1, 1]);
    answer('k', 'K');
    expect(await Promise.all(waits)).toEqual(['K', 'K']);
    expect(signals.map((s) => getEventListeners(s, 'abort').length)).toEqual([0, 0]);
    const failing = flights.run('f', () => Promise.reject(new Error('upstream down')), signals[0]);
    await expect(failing).rejects.toThrow('upstream down');
    expect(getEventListeners(signals[0], 'abort')).toHaveLength(0);
  });
});
