import DataLoader from 'dataloader';
import { setImmediate as afterIo } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { BatchLoader } from '../../src/domains/batchLoader.js';

/** A loader whose keys are strings, one whatever their case, and whose upstream is a few functions. */
class TestLoader<A> extends BatchLoader<string, string, A> {
  constructor(
    private readonly upstream: {
      many(keys: readonly string[]): Promise<ReadonlyArray<string | Error>>;
      one(key: string): Promise<A> | Error;
      value(answer: A): string | Error;
      failed?(error: unknown): Error;
    },
  ) {
    super();
  }

  protected key(key: string): string {
    return key.toLowerCase();
  }

  protected many(keys: readonly string[]) {
    return this.upstream.many(keys);
  }

  protected one(key: string) {
    return this.upstream.one(key);
  }

  protected value(answer: A) {
    return this.upstream.value(answer);
  }

  protected override failed(error: unknown) {
    return this.upstream.failed?.(error);
  }
}

/** A loader that records each batch it is sent (a batch of one as `one`), answering `key!` (or an Error for `bad`). */
function recording(options: { failOne?: boolean; failMany?: boolean; keepFailures?: boolean } = {}) {
  const batches: string[][] = [];
  const answer = (key: string): string | Error => (key === 'bad' ? new Error(`no ${key}`) : `${key}!`);
  const loader = new TestLoader<string | Error>({
    many: async (keys) => {
      batches.push([...keys]);
      if (options.failMany) throw new Error('the batch failed');
      return keys.map(answer);
    },
    one: (key) => {
      batches.push([key]);
      return options.failOne ? Promise.reject(new Error('the call failed')) : Promise.resolve(answer(key));
    },
    value: (a) => a,
    failed: options.keepFailures ? (error) => error as Error : undefined,
  });
  return { loader, batches };
}

/** DataLoader 2.2 over the same keys, for comparison. */
function dataLoader() {
  const batches: string[][] = [];
  const loader = new DataLoader<string, string, string>(
    async (keys) => {
      batches.push([...keys]);
      return keys.map((k) => `${k}!`);
    },
    { cacheKeyFn: (key) => key.toLowerCase() },
  );
  return { loader, batches };
}

/**
 * Loads spread as a resolver tree spreads them: at once, at the end of promise chains of several lengths, in an
 * async function, and past the window (after I/O), with repeats of a key and of its other case.
 */
async function spread(loader: { load(key: string): Promise<string> }, order: string[]): Promise<void> {
  const load = (key: string) => loader.load(key).then((v) => void order.push(`${key}=${v}`));
  let chain: Promise<unknown> = Promise.resolve();
  for (let i = 0; i < 6; i++) chain = chain.then(() => undefined);
  const deep = (async () => {
    await chain;
    await Promise.resolve();
    return Promise.all([load('c'), load('A')]);
  })();
  const first = Promise.all([load('a'), load('b'), chain.then(() => load('d')), deep]);
  // A load while the first batch is out (its answers pending): a batch of its own, a repeat among them.
  await afterIo();
  const second = Promise.all([load('e'), load('b')]);
  await Promise.all([first, second]);
  // A repeat alone: no request, resolved in its own (empty) batch.
  await load('D');
}

describe('BatchLoader', () => {
  it('sends the same batches as DataLoader, keys asked at any depth of the promise jobs of one turn sharing one', async () => {
    const ours = recording();
    const theirs = dataLoader();
    const ourOrder: string[] = [];
    const theirOrder: string[] = [];
    await spread(ours.loader, ourOrder);
    await spread(theirs.loader, theirOrder);
    expect(ours.batches).toEqual([['a', 'b', 'd', 'c'], ['e']]);
    expect(ours.batches).toEqual(theirs.batches);
    expect(ourOrder.sort()).toEqual(theirOrder.sort());
  });

  it('answers a key asked again with the batch it was asked in, not sooner (as DataLoader)', async () => {
    const orders: string[][] = [];
    for (const { loader } of [recording(), dataLoader()]) {
      await loader.load('a');
      const order: string[] = [];
      // 'a' is cached and settled, yet waits for the batch it joined: 'b' is answered first.
      const b = loader.load('b').then(() => order.push('b'));
      const a = loader.load('a').then(() => order.push('a'));
      await Promise.all([a, b]);
      orders.push(order);
    }
    expect(orders).toEqual([
      ['b', 'a'],
      ['b', 'a'],
    ]);
  });

  it('sends a batch of one key through one(), not many()', async () => {
    const { loader, batches } = recording();
    await expect(loader.load('x')).resolves.toBe('x!');
    expect(batches).toEqual([['x']]);
  });

  it("keeps a key's own failure for the operation: asked again, it fails again without a call", async () => {
    const { loader, batches } = recording();
    await expect(loader.load('bad')).rejects.toThrow('no bad');
    await expect(Promise.all([loader.load('bad'), loader.load('y')])).rejects.toThrow('no bad');
    expect(batches).toEqual([['bad'], ['y']]);
  });

  it('forgets the keys of a batch whose call failed, so a later load asks again', async () => {
    const single = recording({ failOne: true });
    await expect(single.loader.load('a')).rejects.toThrow('the call failed');
    await expect(single.loader.load('a')).rejects.toThrow('the call failed');
    expect(single.batches).toEqual([['a'], ['a']]);

    const several = recording({ failMany: true });
    await expect(Promise.all([several.loader.load('a'), several.loader.load('b')])).rejects.toThrow('the batch failed');
    await expect(several.loader.load('a')).resolves.toBe('a!');
    expect(several.batches).toEqual([['a', 'b'], ['a']]);
  });

  it("keeps a failed call as the key's own failure when failed() says so (a batch item that failed)", async () => {
    const { loader, batches } = recording({ failOne: true, keepFailures: true });
    await expect(loader.load('a')).rejects.toThrow('the call failed');
    await expect(loader.load('a')).rejects.toThrow('the call failed');
    expect(batches).toEqual([['a']]);
  });

  it('fails a key at once when one() refuses it without a call (kept), and forgets one whose answer cannot be read', async () => {
    let calls = 0;
    const loader = new TestLoader<string>({
      many: async (keys) => keys.map(() => 'never'),
      one: (key) => {
        calls++;
        return key === 'refused' ? new Error('not allowed') : Promise.resolve('unreadable answer');
      },
      value: () => {
        throw new Error('unreadable');
      },
    });
    await expect(loader.load('refused')).rejects.toThrow('not allowed');
    await expect(loader.load('refused')).rejects.toThrow('not allowed');
    await expect(loader.load('other')).rejects.toThrow('unreadable');
    await expect(loader.load('other')).rejects.toThrow('unreadable');
    // 'refused' once (kept), 'other' twice (a throwing read fails the batch, as a throwing batch function does).
    expect(calls).toBe(3);
  });

  it('refuses an answer of the wrong length, naming both counts', async () => {
    const loader = new TestLoader<string>({ many: async () => ['only one'], one: async (key) => key, value: (a) => a });
    await expect(Promise.all([loader.load('a'), loader.load('b')])).rejects.toThrow(
      'A batch of 2 keys was answered with 1 values',
    );
  });
});
