import type { RedisConnection, ScriptCall } from './connection.js';
import type { FallbackPolicy } from './fallbackPolicy.js';

/**
 * A lease that at most one holder has at a time, for a time to live, e.g. "the replica that polls Graph for service
 * health". The holder renews it well within the TTL; a holder that dies loses it when the TTL runs out, and another
 * replica's next `acquire` takes over.
 */
export interface LeaderLease {
  /** This holder's identity (unique per lease object). */
  readonly holder: string;
  /** Takes the lease when it is free, or extends it when this holder has it; true when this holder has it now. */
  acquire(): Promise<boolean>;
  /** Extends the lease when this holder still has it; false when it lost it. */
  renew(): Promise<boolean>;
  /** Gives the lease up (only when this holder has it), so another can take it at once. */
  release(): Promise<void>;
  /**
   * Leaves the holder's progress (JSON) for whoever holds the lease next, e.g. the last poll's snapshot, so a new
   * holder carries on where this one stopped. Stored only while this holder has the lease; kept for
   * `checkpointTtlMs`.
   */
  checkpoint(value: unknown): Promise<void>;
  /** The last checkpoint any holder of this lease left (undefined when none lives, or the store fails). */
  lastCheckpoint<T>(): Promise<T | undefined>;
}

export interface LeaderLeaseOptions {
  /** How long the lease lasts without a renewal. */
  ttlMs: number;
  /**
   * What `acquire` and `renew` answer while the shared store fails: `lead` (every replica works on its own, work is
   * duplicated rather than stopped) or `follow` (nobody works until it is back). @default 'lead'
   */
  whenUnavailable?: 'lead' | 'follow';
  /** How long a checkpoint outlives its last write: longer than a dead holder's lease takes to lapse. @default 2 × ttlMs */
  checkpointTtlMs?: number;
  /** @default Date.now */
  now?: () => number;
}

/** The in-process leases of one process, by name: holders in this process compete for them. */
export class MemoryLeases {
  private readonly leases = new Map<string, { holder: string; until: number }>();
  private readonly checkpoints = new Map<string, { json: string; until: number }>();

  lease(name: string, holder: string, options: LeaderLeaseOptions): LeaderLease {
    const now = options.now ?? Date.now;
    const { leases, checkpoints } = this;
    const checkpointTtlMs = options.checkpointTtlMs ?? options.ttlMs * 2;
    const held = () => {
      const lease = leases.get(name);
      return lease && lease.until > now() ? lease : undefined;
    };
    return {
      holder,
      acquire() {
        const lease = held();
        if (lease && lease.holder !== holder) return Promise.resolve(false);
        leases.set(name, { holder, until: now() + options.ttlMs });
        return Promise.resolve(true);
      },
      renew() {
        if (held()?.holder !== holder) return Promise.resolve(false);
        leases.set(name, { holder, until: now() + options.ttlMs });
        return Promise.resolve(true);
      },
      release() {
        if (leases.get(name)?.holder === holder) leases.delete(name);
        return Promise.resolve();
      },
      checkpoint(value) {
        // Copied as JSON, as Redis would: the next holder must not share objects with this one.
        if (held()?.holder === holder)
          checkpoints.set(name, { json: JSON.stringify(value), until: now() + checkpointTtlMs });
        return Promise.resolve();
      },
      lastCheckpoint<T>() {
        const saved = checkpoints.get(name);
        return Promise.resolve(saved && saved.until > now() ? (JSON.parse(saved.json) as T) : undefined);
      },
    };
  }
}

const ACQUIRE = `
local h = redis.call('GET', KEYS[1])
if h and h ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
const CHECKPOINT = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end return 0`;

/**
 * The shared lease: `<prefix>lease:<name>` holds the holder's identity and expires with the lease;
 * `<prefix>lease:<name>:checkpoint` the last checkpoint (JSON), written only by the holder (one compare-and-set
 * script).
 */
export class RedisLeaderLease implements LeaderLease {
  private readonly acquireScript: ScriptCall<number>;
  private readonly renewScript: ScriptCall<number>;
  private readonly releaseScript: ScriptCall<number>;
  private readonly checkpointScript: ScriptCall<unknown>;
  private readonly key: string;

  constructor(
    private readonly redis: RedisConnection,
    name: string,
    readonly holder: string,
    private readonly fallback: FallbackPolicy,
    private readonly options: LeaderLeaseOptions,
  ) {
    this.key = `lease:${name}`;
    this.acquireScript = redis.script('lease.acquire', ACQUIRE, 1);
    this.renewScript = redis.script('lease.renew', RENEW, 1);
    this.releaseScript = redis.script('lease.release', RELEASE, 1);
    this.checkpointScript = redis.script('lease.checkpoint', CHECKPOINT, 2);
  }

  acquire(): Promise<boolean> {
    return this.decide(this.acquireScript);
  }

  renew(): Promise<boolean> {
    return this.decide(this.renewScript);
  }

  async release(): Promise<void> {
    await this.releaseScript([this.key], [this.holder]).catch(() => this.fallback.used('lease'));
  }

  async checkpoint(value: unknown): Promise<void> {
    const ttl = this.options.checkpointTtlMs ?? this.options.ttlMs * 2;
    await this.checkpointScript([this.key, `${this.key}:checkpoint`], [this.holder, JSON.stringify(value), ttl]).catch(
      () => this.fallback.used('lease'),
    );
  }

  async lastCheckpoint<T>(): Promise<T | undefined> {
    try {
      const text = await this.redis.run('lease.lastCheckpoint', (r) => r.get(`${this.key}:checkpoint`));
      return text ? (JSON.parse(text) as T) : undefined;
    } catch {
      this.fallback.used('lease');
      return undefined;
    }
  }

  private async decide(script: ScriptCall<number>): Promise<boolean> {
    try {
      return (await script([this.key], [this.holder, this.options.ttlMs])) === 1;
    } catch {
      this.fallback.used('lease');
      return (this.options.whenUnavailable ?? 'lead') === 'lead';
    }
  }
}
