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

type Settle = (value: unknown) => void;

/** The loads of one batch window: its new keys and their promises' settlers, and the keys it found cached. */
class Batch<K> {
  /** Made with its first key, at its size: most batches hold one. */
  keys: K[] | undefined = undefined;
  /** Each new key's resolve and reject, in turn. */
  settlers: Settle[] | undefined = undefined;
  /** A key found cached: the resolve of the promise handed out, then the cached promise. */
  hits: unknown[] | undefined = undefined;

  constructor(readonly loader: BatchLoader<K, unknown, unknown>) {}

  add(key: K, resolve: Settle, reject: Settle): void {
    if (this.keys) {
      this.keys.push(key);
      this.settlers!.push(resolve, reject);
    } else {
      this.keys = [key];
      this.settlers = [resolve, reject];
    }
  }
}

/**
 * One kind of lookup of one operation, batched: a subclass says how keys reach their upstream (`many`, `one` and
 * `value`) and which keys are one (`key`). Methods rather than closures: an operation makes its loaders afresh.
 */
export abstract class BatchLoader<K, V, A = V> {
  /** The first key asked and its promise: a Map only once a second key is asked. */
  private firstKey: string | undefined = undefined;
  private first: Promise<V> | undefined = undefined;
  private cache: Map<string, Promise<V>> | undefined = undefined;
  private batch: Batch<K> | undefined = undefined;

  /** Keys of one string are one load (DataLoader's `cacheKeyFn`). */
  protected abstract key(key: K): string;

  /**
   * A batch of several keys: a value, or an Error (that key's failure, kept), for each key in order. A rejection
   * fails every key of the batch, none kept.
   */
  protected abstract many(keys: readonly K[]): Promise<ReadonlyArray<V | Error>>;

  /**
   * A batch of one key: its upstream call, whose answer {@link value} reads; or an Error, that key's failure without
   * a call. A rejection fails the key, not kept (as `many`'s), unless {@link failed} makes it the key's own.
   */
  protected abstract one(key: K): Promise<A> | Error;

  /** The key's value from `one`'s answer; an Error returned is the key's failure, kept; one thrown fails the batch. */
  protected abstract value(answer: A, key: K): V | Error;

  /** A rejection of `one` as that key's own failure, kept (as `many` reports an item that failed); undefined: not. */
  protected failed(_error: unknown): Error | undefined {
    return undefined;
  }

  /** The key's value, loaded with every other key asked for in the same batch window. */
  load(key: K): Promise<V> {
    const batch = this.current();
    const cacheKey = this.key(key);
    const cached = cacheKey === this.firstKey ? this.first : this.cache?.get(cacheKey);
    if (cached) {
      return new Promise<V>((resolve) => {
        (batch.hits ??= []).push(resolve, cached);
      });
    }
    const promise = new Promise<V>((resolve, reject) => batch.add(key, resolve as Settle, reject));
    if (this.first === undefined) {
      this.firstKey = cacheKey;
      this.first = promise;
    } else (this.cache ??= new Map()).set(cacheKey, promise);
    return promise;
  }

  /** The open batch, or a new one whose dispatch is queued as DataLoader queues it. */
  private current(): Batch<K> {
    let batch = this.batch;
    if (!batch) {
      batch = this.batch = new Batch<K>(this);
      afterPromiseJobs(batch);
    }
    return batch;
  }

  /** @internal Sends a batch whose window closed (afterPromiseJobs). */
  dispatch(batch: Batch<K>): void {
    // Loads made while this batch is sent (by `one` or `many` themselves) open the next one.
    if (this.batch === batch) this.batch = undefined;
    const { keys } = batch;
    if (!keys) resolveHits(batch);
    else if (keys.length === 1) this.dispatchOne(batch, keys[0]);
    else this.dispatchMany(batch, keys);
  }

  private dispatchOne(batch: Batch<K>, key: K): void {
    const [resolve, reject] = batch.settlers!;
    let answer: Promise<A> | Error;
    try {
      answer = this.one(key);
    } catch (error) {
      return this.fail(batch, error);
    }
    if (answer instanceof Error) {
      resolveHits(batch);
      return reject(answer);
    }
    void answer.then(
      (a) => {
        let value: V | Error;
        try {
          value = this.value(a, key);
        } catch (error) {
          // As a batch function that throws: the batch failed.
          return this.fail(batch, error);
        }
        resolveHits(batch);
        if (value instanceof Error) reject(value);
        else resolve(value);
      },
      (error: unknown) => {
        const own = this.failed(error);
        if (!own) return this.fail(batch, error);
        resolveHits(batch);
        reject(own);
      },
    );
  }

  private dispatchMany(batch: Batch<K>, keys: K[]): void {
    let values: Promise<ReadonlyArray<V | Error>>;
    try {
      values = this.many(keys);
    } catch (error) {
      return this.fail(batch, error);
    }
    void values.then(
      (list) => {
        if (list.length !== keys.length) {
          return this.fail(
            batch,
            new TypeError(
              `A batch of ${keys.length} keys was answered with ${list.length} values: many() must answer each key, in order.`,
            ),
          );
        }
        resolveHits(batch);
        const settlers = batch.settlers!;
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
    const keys = batch.keys ?? [];
    const settlers = batch.settlers!;
    for (let i = 0; i < keys.length; i++) {
      const cacheKey = this.key(keys[i]);
      if (cacheKey === this.firstKey) this.firstKey = this.first = undefined;
      else this.cache?.delete(cacheKey);
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

function dispatch(batch: Batch<unknown>): void {
  batch.loader.dispatch(batch);
}

/**
 * DataLoader's batch window: a `process.nextTick` queued from a promise job runs after every promise job queued before
 * it, however long their chains, so loads made anywhere in the current run of resolvers join the batch.
 */
function afterPromiseJobs(batch: Batch<unknown>): void {
  void resolved.then(() => process.nextTick(dispatch, batch));
}
