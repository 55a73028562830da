import { LRUCache } from 'lru-cache';
import type { RedisConnection } from './connection.js';
import type { FallbackPolicy } from './fallbackPolicy.js';

/**
 * Answers kept for a time to live, e.g. OMDb titles. Each replica keeps its own copy of what it used (an LRU), so a
 * hot entry costs no round trip; the Redis cache shares every entry between replicas, so an answer fetched once is
 * never fetched again by another replica while it lives.
 */
export interface SharedCache<V> {
  /** True when entries come from a store other replicas write too (then {@link prefetch} can add some). */
  readonly shared: boolean;
  /** This replica's copy, synchronously (estimators read it); `touch: false` leaves its recency alone. */
  local(key: string, touch?: boolean): V | undefined;
  /** This replica's copy, else the shared store's. */
  get(key: string): Promise<V | undefined>;
  /** Keeps `value` for `ttlMs` (the cache's TTL by default), here and in the shared store. */
  set(key: string, value: V, ttlMs?: number): Promise<void>;
  /** Copies the shared entries of `keys` into this replica's copy in one round trip, so {@link local} can answer. */
  prefetch(keys: readonly string[]): Promise<void>;
}

export interface SharedCacheOptions {
  /** Entries this replica keeps at most (least recently used go first). */
  max: number;
  /** How long an entry lives. */
  ttlMs: number;
}

/** The in-process cache: a TTL-bounded LRU. */
export class MemoryCache<V extends object> implements SharedCache<V> {
  readonly shared: boolean = false;
  protected readonly lru: LRUCache<string, V>;

  constructor(protected readonly options: SharedCacheOptions) {
    this.lru = new LRUCache<string, V>({ max: options.max, ttl: options.ttlMs });
  }

  local(key: string, touch = true): V | undefined {
    return touch ? this.lru.get(key) : this.lru.peek(key);
  }

  get(key: string): Promise<V | undefined> {
    return Promise.resolve(this.local(key));
  }

  set(key: string, value: V, ttlMs = this.options.ttlMs): Promise<void> {
    this.lru.set(key, value, { ttl: ttlMs });
    return Promise.resolve();
  }

  prefetch(_keys: readonly string[]): Promise<void> {
    return Promise.resolve();
  }
}

/** One shared entry: the value and when it expires (so a replica's copy expires with it). */
interface Stored<V> {
  e: number;
  v: V;
}

/**
 * The shared cache: entries in Redis as JSON strings (`<prefix>cache:<name>:<key>`) with Redis expiring them, in
 * front of them this replica's LRU. When Redis fails the cache degrades to this replica's copy alone: a miss is
 * fetched upstream as without Redis, nothing waits.
 */
export class RedisCache<V extends object> extends MemoryCache<V> {
  override readonly shared = true;

  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    private readonly fallback: FallbackPolicy,
    options: SharedCacheOptions,
    private readonly now: () => number = Date.now,
  ) {
    super(options);
  }

  override async get(key: string): Promise<V | undefined> {
    const mine = this.local(key);
    if (mine) return mine;
    try {
      const text = await this.redis.run('cache.get', (r) => r.get(this.key(key)));
      return text ? this.keep(key, text) : undefined;
    } catch {
      this.fallback.used('cache');
      return undefined;
    }
  }

  override async set(key: string, value: V, ttlMs = this.options.ttlMs): Promise<void> {
    await super.set(key, value, ttlMs);
    const stored: Stored<V> = { e: this.now() + ttlMs, v: value };
    try {
      await this.redis.run('cache.set', (r) => r.set(this.key(key), JSON.stringify(stored), 'PX', ttlMs));
    } catch {
      this.fallback.used('cache');
    }
  }

  override async prefetch(keys: readonly string[]): Promise<void> {
    const missing = [...new Set(keys)].filter((k) => !this.lru.has(k));
    if (!missing.length) return;
    try {
      const texts = await this.redis.run('cache.prefetch', (r) => r.mget(missing.map((k) => this.key(k))));
      texts.forEach((text, i) => text && this.keep(missing[i], text));
    } catch {
      this.fallback.used('cache');
    }
  }

  private key(key: string): string {
    return `cache:${this.name}:${key}`;
  }

  /** Takes a shared entry into this replica's copy for what is left of its life. */
  private keep(key: string, text: string): V | undefined {
    let stored: Stored<V>;
    try {
      stored = JSON.parse(text) as Stored<V>;
    } catch {
      return undefined;
    }
    const ttl = stored.e - this.now();
    if (ttl <= 0 || typeof stored.v !== 'object' || stored.v === null) return undefined;
    this.lru.set(key, stored.v, { ttl });
    return stored.v;
  }
}
