import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { collect, collectThen } from '../../src/streams/collect.js';

const chunks = (...parts: string[]) => Readable.from(parts.map((p) => Buffer.from(p)));

describe('collect', () => {
  it('reads a stream to its end, every chunk kept within the limit', async () => {
    const got = await collect(chunks('ab', 'cd', 'e'), 5);
    expect(Buffer.concat(got.chunks).toString()).toBe('abcde');
    expect(got).toMatchObject({ size: 5, overLimit: false });
  });

  it('past the limit drops the rest and reads on, or stops with the given error and destroys the stream', async () => {
    const dropped = await collect(chunks('abc', 'def', 'gh'), 4);
    expect(Buffer.concat(dropped.chunks).toString()).toBe('abc');
    expect(dropped).toMatchObject({ size: 8, overLimit: true });

    const stream = new PassThrough();
    const reading = collect(stream, 4, () => new Error('too large'));
    stream.write('abc');
    stream.write('def');
    await expect(reading).rejects.toThrow('too large');
    expect(stream.destroyed).toBe(true);
  });

  it("stops a stream that errors when destroyed (as undici's body does) without an uncaught error", async () => {
    let errored: unknown;
    const body = new Readable({
      read() {},
      destroy(error, callback) {
        callback(error ?? new Error('Request aborted'));
      },
    });
    const reading = collect(body, 2, () => new Error('too large'));
    body.push(Buffer.from('abc'));
    await expect(reading).rejects.toThrow('too large');
    body.once('close', () => (errored = body.errored));
    await new Promise((r) => setImmediate(r));
    expect(String(errored ?? body.errored)).toContain('Request aborted');
  });

  it('rejects a stream that closes before its end, or is gone before it is read', async () => {
    const stream = new PassThrough();
    const reading = collect(stream, 100);
    stream.write('abc');
    stream.destroy();
    await expect(reading).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });

    const failed = new PassThrough();
    failed.destroy(new Error('reset'));
    await expect(collect(failed, 100)).rejects.toThrow('reset');
    // The error a destroy emits on the next tick finds the listener collect left: no uncaught exception.
    await new Promise((r) => setImmediate(r));
    expect(failed.listenerCount('error')).toBe(1);
  });
});

/** `collectThen` on `stream`: its calls, each the failure or the text it read. */
function reading(stream: Readable): unknown[] {
  const calls: unknown[] = [];
  collectThen(
    stream,
    10,
    () => undefined,
    (error, got) => calls.push(error ?? Buffer.concat(got!.chunks).toString()),
  );
  return calls;
}

describe('collectThen', () => {
  it("calls back once, in the stream's own end event, with what it read", async () => {
    const stream = new PassThrough();
    const calls = reading(stream);
    stream.write('ab');
    stream.end('cd');
    await new Promise((r) => stream.once('end', r));
    expect(calls).toEqual(['abcd']);
  });

  it('calls back once with the failure when the stream closes before its end, or was destroyed already', async () => {
    const cut = new PassThrough();
    const calls: unknown[] = [];
    collectThen(
      cut,
      10,
      () => undefined,
      (error, got) => calls.push(error ?? got),
    );
    cut.write('ab');
    cut.destroy();
    await new Promise((r) => setImmediate(r));
    expect(calls).toHaveLength(1);
    expect((calls[0] as { code?: string }).code).toBe('ERR_STREAM_PREMATURE_CLOSE');

    const gone = new PassThrough();
    gone.destroy();
    const late: unknown[] = [];
    collectThen(
      gone,
      10,
      () => undefined,
      (error) => late.push(error),
    );
    expect(late).toHaveLength(1);
  });

  it('after the end: the close and a late error are neither a second call nor an uncaught error', async () => {
    const stream = new PassThrough();
    const calls = reading(stream);
    stream.end('ab');
    await new Promise((r) => stream.once('close', r));
    // A stream that errors after its end (a socket reset once the body was read) meets the reader's listener.
    expect(() => stream.emit('error', new Error('reset'))).not.toThrow();
    expect(calls).toEqual(['ab']);
  });
});
