/**
 * DataLoader's per-operation batching (its batch window, its cache of one promise per key, its failure rules), with
 * a path of its own for a batch of one key, the usual operation: the upstream call alone, read in one reaction,
 * where DataLoader 2.2 runs the batch function (an async function or a `Promise.all`), then a `.then` and a
 * `.catch` on its result, and arrays of keys, callbacks and values for a single key.
 *
 * What stays DataLoader's, so that nested fields share their upstream request as they did: a batch collects the loads
 * of the current run of promise jobs, then is sent in a `process.nextTick` queued from a promise job (after every job
 * queued so far, however deep its chain); a key asked again in one operation gets the promise it got first, resolved
 * in the batch it was asked in (never sooner than that batch's own keys); a batch whose call fails is not kept, so
 * the same key asked later is asked again, while a key whose own answer is an error keeps it.
 */

/** How a {@link BatchLoader}'s keys reach their upstream. */
export interface BatchLookup<K, V, A> {
  /**
   * A batch of several keys: a value, or an Error (that key's failure, kept), for each key in order. A rejection
   * fails every key of the batch, none kept.
   */
  many(keys: readonly K[]): Promise<ReadonlyArray<V | Error>>;
  /**
   * A batch of one key: its upstream call, whose answer {@link value} reads; or an Error, that key's failure without
   * a call. A rejection fails the key, not kept (as `many`'s), unless {@link failed} makes it the key's own.
   */
  one(key: K): Promise<A> | Error;
  /** The key's value from `one`'s answer; an Error, returned or thrown, is the key's failure, kept. */
  value(answer: A, key: K): V | Error;
  /** A rejection of `one` as that key's own failure, kept (as `many` reports an item that failed). */
  failed?(error: unknown): Error;
}

type Settle = (value: unknown) => void;

/** The loads of one batch window: its new keys and their promises' settlers, and the keys it found cached. */
class Batch<K> {
  readonly keys: K[] = [];
  /** Each new key's resolve and reject, in turn. */
  readonly settlers: Settle[] = [];
  /** A key found cached: the resolve of the promise handed out, then the cached promise. */
  hits: unknown[] | undefined;
}

export class BatchLoader<K, V, A = V> {
  private cache: Map<string, Promise<V>> | undefined;
  private batch: Batch<K> | undefined;

  constructor(
    private readonly lookup: BatchLookup<K, V, A>,
    /** Keys of one string are one load (DataLoader's `cacheKeyFn`). */
    private readonly cacheKey: (key: K) => string,
  ) {}

  /** The key's value, loaded with every other key asked for in the same batch window. */
  load(key: K): Promise<V> {
    const batch = this.current();
    const cacheKey = this.cacheKey(key);
    const cache = (this.cache ??= new Map());
    const cached = cache.get(cacheKey);
    if (cached) {
      return new Promise<V>((resolve) => {
        (batch.hits ??= []).push(resolve, cached);
      });
    }
    batch.keys.push(key);
    const promise = new Promise<V>((resolve, reject) => {
      batch.settlers.push(resolve as Settle, reject);
    });
    cache.set(cacheKey, promise);
    return promise;
  }

  /** The open batch, or a new one whose dispatch is queued as DataLoader queues it. */
  private current(): Batch<K> {
    let batch = this.batch;
    if (!batch) {
      const opened = (batch = this.batch = new Batch<K>());
      afterPromiseJobs(() => this.dispatch(opened));
    }
    return batch;
  }

  private dispatch(batch: Batch<K>): void {
    // Loads made while this batch is sent (by `one` or `many` themselves) open the next one.
    this.batch = undefined;
    const { keys } = batch;
    if (keys.length === 0) resolveHits(batch);
    else if (keys.length === 1) this.dispatchOne(batch, keys[0]);
    else this.dispatchMany(batch);
  }

  private dispatchOne(batch: Batch<K>, key: K): void {
    const [resolve, reject] = batch.settlers;
    const { lookup } = this;
    let answer: Promise<A> | Error;
    try {
      answer = lookup.one(key);
    } catch (error) {
      return this.fail(batch, error);
    }
    if (answer instanceof Error) {
      resolveHits(batch);
      return reject(answer);
    }
    void answer.then(
      (a) => {
        resolveHits(batch);
        let value: V | Error;
        try {
          value = lookup.value(a, key);
        } catch (error) {
          value = error instanceof Error ? error : new Error(String(error));
        }
        if (value instanceof Error) reject(value);
        else resolve(value);
      },
      (error: unknown) => {
        if (!lookup.failed) return this.fail(batch, error);
        resolveHits(batch);
        reject(lookup.failed(error));
      },
    );
  }

  private dispatchMany(batch: Batch<K>): void {
    let values: Promise<ReadonlyArray<V | Error>>;
    try {
      values = this.lookup.many(batch.keys);
    } catch (error) {
      return this.fail(batch, error);
    }
    void values.then(
      (list) => {
        if (list.length !== batch.keys.length) {
          return this.fail(
            batch,
            new TypeError(
              `A batch of ${batch.keys.length} keys was answered with ${list.length} values: many() must answer each key, in order.`,
            ),
          );
        }
        resolveHits(batch);
        const { settlers } = batch;
        for (let i = 0; i < list.length; i++) {
          const value = list[i];
          if (value instanceof Error) settlers[2 * i + 1](value);
          else settlers[2 * i](value);
        }
      },
      (error: unknown) => this.fail(batch, error),
    );
  }

  /** The batch's call failed: every new key fails with it and is forgotten, so that a later load asks again. */
  private fail(batch: Batch<K>, error: unknown): void {
    resolveHits(batch);
    const { keys, settlers } = batch;
    for (let i = 0; i < keys.length; i++) {
      this.cache?.delete(this.cacheKey(keys[i]));
      settlers[2 * i + 1](error);
    }
  }
}

/** Cached keys resolve with the batch they were asked in, as DataLoader's do. */
function resolveHits(batch: Batch<unknown>): void {
  const hits = batch.hits;
  if (!hits) return;
  for (let i = 0; i < hits.length; i += 2) (hits[i] as Settle)(hits[i + 1]);
}

const resolved = Promise.resolve();

/**
 * DataLoader's batch window: a `process.nextTick` queued from a promise job runs after every promise job queued before
 * it, however long their chains, so loads made anywhere in the current run of resolvers join the batch.
 */
function afterPromiseJobs(dispatch: () => void): void {
  void resolved.then(() => process.nextTick(dispatch));
}
