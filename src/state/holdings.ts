import type { RedisConnection, ScriptCall } from './connection.js';
import type { FallbackPolicy } from './fallbackPolicy.js';

/** One share held; `release()` gives it back (once, however often it is called). */
export interface HeldShare {
  release(): void;
}

/**
 * What clients hold at once across the replicas (open subscriptions, chat streams, sockets: the `CLIENT_MAX_*` caps),
 * each share a lease: a live replica keeps its leases, a replica that dies loses them within `ttlMs`.
 */
export interface SharedHoldings {
  /** Takes one share of `kind` for `client` when the cluster holds fewer than `max`; undefined when it holds `max`. */
  acquire(kind: string, client: string, max: number): Promise<HeldShare | undefined>;
  /** How many shares of `kind` `client` holds across the cluster (as far as this replica can tell). */
  count(kind: string, client: string): Promise<number>;
}

export interface SharedHoldingsOptions {
  /** How long a lease outlives its replica: the renewal runs every third of it. @default 30000 */
  ttlMs?: number;
  /** @default Date.now */
  now?: () => number;
}

/** The shares of this process. */
export class MemoryHoldings implements SharedHoldings {
  private readonly held = new Map<string, number>();

  acquire(kind: string, client: string, max: number): Promise<HeldShare | undefined> {
    const key = `${kind}\n${client}`;
    const n = this.held.get(key) ?? 0;
    if (n >= max) return Promise.resolve(undefined);
    this.held.set(key, n + 1);
    let released = false;
    return Promise.resolve({
      release: () => {
        if (released) return;
        released = true;
        const left = (this.held.get(key) ?? 1) - 1;
        if (left > 0) this.held.set(key, left);
        else this.held.delete(key);
      },
    });
  }

  count(kind: string, client: string): Promise<number> {
    return Promise.resolve(this.held.get(`${kind}\n${client}`) ?? 0);
  }
}

/** Drops lapsed leases, then adds one unless `max` are held. KEYS[1]; ARGV: now, max, lease end, member. */
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3] - ARGV[1])
return 1`;
/**
 * Extends (or writes again, into a Redis that restarted empty) leases of this replica. ARGV: lease end, TTL, then
 * (key, member) pairs, the keys with their prefix (a variable number of sets, so not as KEYS).
 */
const RENEW = `
for i = 3, #ARGV, 2 do
  redis.call('ZADD', ARGV[i], ARGV[1], ARGV[i + 1])
  redis.call('PEXPIRE', ARGV[i], ARGV[2])
end
return #ARGV`;

/** Leases renewed in one script call. */
const RENEW_BATCH = 500;

/**
 * The cluster's shares in Redis: a sorted set per kind and client, `<prefix>holdings:<name>:<kind>:<client>`, whose
 * members are leases (`<replica>:<n>`) scored by when they lapse. Taking one is one Lua step (drop the lapsed, count,
 * add); this replica renews all of its own every `ttlMs / 3` (which also writes them back into a Redis that restarted
 * empty), and removes each as it is released. A replica that dies stops renewing: its leases lapse within `ttlMs`.
 *
 * While Redis fails, a replica holds at most its share `max / GATEWAY_REPLICAS` of each client's cap (rounded down)
 * on its own; the shares it took meanwhile join the cluster's count at the next renewal.
 */
export class RedisHoldings implements SharedHoldings {
  private readonly acquireScript: ScriptCall<number>;
  private readonly renewScript: ScriptCall<number>;
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** This replica's leases: member → its set's key. */
  private readonly own = new Map<string, string>();
  private sequence = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    private readonly replicaId: string,
    private readonly fallback: FallbackPolicy,
    options: SharedHoldingsOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.now = options.now ?? Date.now;
    this.acquireScript = redis.script('holdings.acquire', ACQUIRE, 1);
    this.renewScript = redis.script('holdings.renew', RENEW, 0);
    this.timer = setInterval(() => void this.renew(), Math.max(1, Math.floor(this.ttlMs / 3))).unref();
  }

  async acquire(kind: string, client: string, max: number): Promise<HeldShare | undefined> {
    const key = this.key(kind, client);
    const member = `${this.replicaId}:${++this.sequence}`;
    try {
      if ((await this.acquireScript([key], [this.now(), max, this.now() + this.ttlMs, member])) !== 1) return undefined;
    } catch {
      this.fallback.used('holdings');
      if (this.ownCount(key) >= this.fallback.share(max)) return undefined;
    }
    this.own.set(member, key);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.own.delete(member);
        this.redis.run('holdings.release', (r) => r.zrem(key, member)).catch(() => this.fallback.used('holdings'));
      },
    };
  }

  async count(kind: string, client: string): Promise<number> {
    const key = this.key(kind, client);
    try {
      return await this.redis.run('holdings.count', (r) => r.zcount(key, `(${this.now()}`, '+inf'));
    } catch {
      this.fallback.used('holdings');
      return this.ownCount(key);
    }
  }

  /** Extends this replica's leases (the timer; a test may call it). */
  async renew(): Promise<void> {
    const entries = [...this.own];
    const until = this.now() + this.ttlMs;
    for (let i = 0; i < entries.length; i += RENEW_BATCH) {
      const batch = entries.slice(i, i + RENEW_BATCH);
      await this.renewScript(
        [],
        [until, this.ttlMs, ...batch.flatMap(([member, key]) => [this.redis.keyPrefix + key, member])],
      ).catch(() => this.fallback.used('holdings'));
    }
  }

  /** Stops renewing and gives back every lease this replica holds (on close). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const byKey = new Map<string, string[]>();
    for (const [member, key] of this.own) byKey.set(key, [...(byKey.get(key) ?? []), member]);
    this.own.clear();
    await Promise.all(
      [...byKey].map(([key, members]) =>
        this.redis.run('holdings.release', (r) => r.zrem(key, ...members)).catch(() => undefined),
      ),
    );
  }

  private ownCount(key: string): number {
    let n = 0;
    for (const k of this.own.values()) if (k === key) n++;
    return n;
  }

  private key(kind: string, client: string): string {
    return `holdings:${this.name}:${kind}:${client}`;
  }
}
