import { describe, expect, it } from 'vitest';
import {
  attachDirect,
  eventStream,
  park,
  type DirectConsumer,
  type EventSink,
} from '../../src/execution/eventStream.js';

/** A stream with its sink, and a consumer that takes values at once while `accepting`. */
function directStream(): {
  stream: AsyncIterableIterator<number>;
  sink: Promise<EventSink<number>>;
  taken: number[];
  consumer: DirectConsumer<number> & { accepting: boolean; woken: number };
} {
  let resolveSink!: (sink: EventSink<number>) => void;
  const sink = new Promise<EventSink<number>>((resolve) => (resolveSink = resolve));
  const stream = eventStream<number>((s) => resolveSink(s));
  const taken: number[] = [];
  const consumer = {
    accepting: true,
    woken: 0,
    wake() {
      this.woken++;
    },
    take(value: number) {
      if (!this.accepting) return false;
      taken.push(value);
      return true;
    },
  };
  attachDirect(stream, consumer);
  return { stream, sink, taken, consumer };
}

describe('eventStream with a direct consumer', () => {
  it('offers a pushed value to the consumer only while one next() waits with nothing buffered, so no value overtakes another', async () => {
    const { stream, sink, taken, consumer } = directStream();
    const s = await sink;

    // Nobody waits in next(): buffered, not offered.
    void s.push(1);
    expect(taken).toEqual([]);
    expect(await stream.next()).toEqual({ value: 1, done: false });

    // One next() waits and nothing is buffered: taken at once, and the waiting next() goes on waiting.
    const waiting = stream.next();
    void s.push(2);
    void s.push(3);
    expect(taken).toEqual([2, 3]);

    // Declined: the waiting next() gets it, and the next value goes through next() too while one is buffered.
    consumer.accepting = false;
    void s.push(4);
    void s.push(5);
    consumer.accepting = true;
    void s.push(6);
    expect(await waiting).toEqual({ value: 4, done: false });
    expect(await stream.next()).toEqual({ value: 5, done: false });
    expect(await stream.next()).toEqual({ value: 6, done: false });
    expect(taken).toEqual([2, 3]);

    // Ended: nothing more is offered, and a waiting next() is done.
    const last = stream.next();
    void stream.return!();
    void s.push(7);
    expect(await last).toEqual({ value: undefined, done: true });
    expect(taken).toEqual([2, 3]);
  });

  it('asks the consumer to prepare a value (its shared execution) and says nothing once the stream ended', async () => {
    const { stream, sink } = directStream();
    const s = await sink;
    const prepared = Promise.resolve('ready');
    attachDirect(stream, { take: () => false, prepare: (v: number) => (v === 1 ? prepared : undefined) });
    expect(s.prepare(1)).toBe(prepared);
    expect(s.prepare(2)).toBeUndefined();
    await stream.return!();
    expect(s.prepare(1)).toBeUndefined();
  });

  it('lets a consumer rest with nothing pending: values go to take(), one it declines or the end wakes it to pull with next()', async () => {
    const { stream, sink, taken, consumer } = directStream();
    const s = await sink;
    expect(park(stream)).toBe(true);
    void s.push(1);
    void s.push(2);
    expect(taken).toEqual([1, 2]);
    expect(consumer.woken).toBe(0);

    // Declined: kept, and the consumer is woken once; it pulls, and what came meanwhile waits its turn.
    consumer.accepting = false;
    void s.push(3);
    consumer.accepting = true;
    void s.push(4);
    expect(consumer.woken).toBe(1);
    expect(taken).toEqual([1, 2]);
    expect(park(stream)).toBe(false);
    expect(await stream.next()).toEqual({ value: 3, done: false });
    expect(park(stream)).toBe(false);
    expect(await stream.next()).toEqual({ value: 4, done: false });
    expect(park(stream)).toBe(true);

    // Pulling ends the rest: a value then goes through next() (or to take() while that next() waits).
    const waiting = stream.next();
    consumer.accepting = false;
    void s.push(5);
    expect(await waiting).toEqual({ value: 5, done: false });
    expect(consumer.woken).toBe(1);

    // The end wakes a resting consumer, which pulls it; a stream that ended cannot be rested on.
    consumer.accepting = true;
    expect(park(stream)).toBe(true);
    s.end(new Error('upstream failed'));
    expect(consumer.woken).toBe(2);
    await expect(stream.next()).rejects.toThrow('upstream failed');
    expect(park(stream)).toBe(false);
    expect(park({ next: () => undefined })).toBe(false);
  });
});
