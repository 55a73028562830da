import { LRUCache } from 'lru-cache';
import type { RedisConnection, ScriptCall } from './connection.js';
import type { FallbackPolicy } from './fallbackPolicy.js';

/**
 * Whole GraphQL responses (their JSON text) kept for their `maxAge`, each tagged (with the domains it read) so a write
 * drops every answer it may have changed. Bounded by bytes: past `maxBytes` the oldest answers go first.
 */
export interface ResponseStore {
  /** The answer kept under `key`; `tags` are those it was stored with (a replica's own copy of it is tagged alike). */
  get(key: string, tags: readonly string[]): Promise<string | undefined>;
  set(key: string, body: string, ttlMs: number, tags: readonly string[]): Promise<void>;
  /** Drops every answer tagged with one of `tags`. */
  invalidate(tags: readonly string[]): Promise<void>;
}

export interface ResponseStoreOptions {
  /** Bytes of answers kept at most (RESPONSE_CACHE_MAX_BYTES). */
  maxBytes: number;
}

interface Entry {
  body: string;
  tags: readonly string[];
}

/** One replica's answers: an LRU bounded by bytes, with an index from tag to keys. */
export class MemoryResponseStore implements ResponseStore {
  private readonly tagged = new Map<string, Set<string>>();
  private readonly lru: LRUCache<string, Entry>;

  constructor(options: ResponseStoreOptions) {
    this.lru = new LRUCache<string, Entry>({
      maxSize: options.maxBytes,
      sizeCalculation: (entry, key) => Math.max(1, key.length + entry.body.length),
      dispose: (entry, key) => {
        for (const tag of entry.tags) {
          const keys = this.tagged.get(tag);
          keys?.delete(key);
          if (keys?.size === 0) this.tagged.delete(tag);
        }
      },
    });
  }

  get(key: string, _tags?: readonly string[]): Promise<string | undefined> {
    return Promise.resolve(this.lru.get(key)?.body);
  }

  set(key: string, body: string, ttlMs: number, tags: readonly string[]): Promise<void> {
    this.lru.set(key, { body, tags }, { ttl: ttlMs });
    if (this.lru.has(key)) {
      for (const tag of tags) {
        let keys = this.tagged.get(tag);
        if (!keys) this.tagged.set(tag, (keys = new Set()));
        keys.add(key);
      }
    }
    return Promise.resolve();
  }

  invalidate(tags: readonly string[]): Promise<void> {
    for (const tag of tags) for (const key of [...(this.tagged.get(tag) ?? [])]) this.lru.delete(key);
    return Promise.resolve();
  }
}

/**
 * KEYS: the entry, the insertion-order index (sorted set), the sizes (hash), the byte total. ARGV: body, ttl ms, max
 * bytes, insertion order, then the tag sets' keys (prefixed already: a script's key count is fixed). Stores the entry, tags it, then drops the oldest entries until
 * the total fits (an entry that expired on its own is still counted until its turn comes: the bound errs low).
 */
const SET = `
local size = string.len(ARGV[1])
local ttl = tonumber(ARGV[2])
local old = redis.call('HGET', KEYS[3], KEYS[1])
if old then redis.call('DECRBY', KEYS[4], old) end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('HSET', KEYS[3], KEYS[1], size)
redis.call('ZADD', KEYS[2], ARGV[4], KEYS[1])
local total = redis.call('INCRBY', KEYS[4], size)
for i = 5, #ARGV do
  redis.call('SADD', ARGV[i], KEYS[1])
  if redis.call('PTTL', ARGV[i]) < ttl then redis.call('PEXPIRE', ARGV[i], ttl) end
end
while total > tonumber(ARGV[3]) do
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  if #oldest == 0 then break end
  local k = oldest[1]
  local s = tonumber(redis.call('HGET', KEYS[3], k) or '0')
  redis.call('HDEL', KEYS[3], k)
  redis.call('DEL', k)
  total = redis.call('DECRBY', KEYS[4], s)
end
return total
`;

/** KEYS: the index, the sizes, the byte total; ARGV: the tag sets' keys. Drops every entry of those tags. */
const INVALIDATE = `
for i = 1, #ARGV do
  for _, k in ipairs(redis.call('SMEMBERS', ARGV[i])) do
    redis.call('DEL', k)
    redis.call('ZREM', KEYS[1], k)
    local s = redis.call('HGET', KEYS[2], k)
    if s then
      redis.call('HDEL', KEYS[2], k)
      redis.call('DECRBY', KEYS[3], s)
    end
  end
  redis.call('DEL', ARGV[i])
end
return 0
`;

/**
 * Answers shared by every replica: `response:<name>:entry:<key>` (the JSON text, PX its maxAge), the index, sizes and
 * byte total that bound them, and `response:<name>:tag:<tag>` sets. Reads go to Redis, so a write on one replica is
 * seen by the next read on any other. Each replica also keeps a copy of what it stored or read, answered only while
 * Redis fails (as the title cache does): then an answer may outlive a write made on another replica, for its maxAge
 * at most.
 */
export class RedisResponseStore implements ResponseStore {
  private readonly setScript: ScriptCall<number>;
  private readonly invalidateScript: ScriptCall<number>;
  private readonly local: MemoryResponseStore;
  private sequence = 0;

  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    private readonly fallback: FallbackPolicy,
    private readonly options: ResponseStoreOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.setScript = redis.script<number>('response.set', SET, 4);
    this.invalidateScript = redis.script<number>('response.invalidate', INVALIDATE, 3);
    this.local = new MemoryResponseStore(options);
  }

  async get(key: string, tags: readonly string[]): Promise<string | undefined> {
    const entry = this.key('entry', key);
    try {
      const [[, body], [, ttl]] = (await this.redis.run('response.get', (r) =>
        r.multi().get(entry).pttl(entry).exec(),
      )) as [[unknown, string | null], [unknown, number]];
      if (body && ttl > 0) await this.local.set(key, body, ttl, tags);
      return body ?? undefined;
    } catch {
      this.fallback.used('responseCache');
      return this.local.get(key);
    }
  }

  async set(key: string, body: string, ttlMs: number, tags: readonly string[]): Promise<void> {
    if (body.length > this.options.maxBytes) return;
    // Insertion order across replicas: the clock, with a per-replica sequence breaking ties.
    const order = this.now() * 1000 + (this.sequence++ % 1000);
    await this.local.set(key, body, ttlMs, tags);
    try {
      await this.setScript(
        [this.key('entry', key), this.key('index'), this.key('sizes'), this.key('bytes')],
        [body, Math.max(1, Math.round(ttlMs)), this.options.maxBytes, order, ...this.tagKeys(tags)],
      );
    } catch {
      this.fallback.used('responseCache');
    }
  }

  async invalidate(tags: readonly string[]): Promise<void> {
    if (!tags.length) return;
    await this.local.invalidate(tags);
    try {
      await this.invalidateScript([this.key('index'), this.key('sizes'), this.key('bytes')], this.tagKeys(tags));
    } catch {
      this.fallback.used('responseCache');
    }
  }

  /** Tag sets' keys as Redis names them (with the key prefix, which ioredis adds to KEYS only). */
  private tagKeys(tags: readonly string[]): string[] {
    return tags.map((t) => `${this.redis.keyPrefix}${this.key('tag', t)}`);
  }

  private key(kind: 'entry' | 'tag' | 'index' | 'sizes' | 'bytes', id?: string): string {
    return id === undefined ? `response:${this.name}:${kind}` : `response:${this.name}:${kind}:${id}`;
  }
}
