import type { RedisConnection, ScriptCall } from './connection.js';
import type { FallbackPolicy } from './fallback.js';

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
}

export interface LeaderLeaseOptions {
  /** How long the lease lasts without a renewal. */
  ttlMs: number;
  /**
   * What `acquire` and `renew` answer while the shared store fails: `lead` (every replica works on its own, work is
   * duplicated rather than stopped) or `follow` (nobody works until it is back). @default 'lead'
   */
  whenUnavailable?: 'lead' | 'follow';
  /** @default Date.now */
  now?: () => number;
}

/** The in-process leases of one process, by name: holders in this process compete for them. */
export class MemoryLeases {
  private readonly leases = new Map<string, { holder: string; until: number }>();

  lease(name: string, holder: string, options: LeaderLeaseOptions): LeaderLease {
    const now = options.now ?? Date.now;
    const leases = this.leases;
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

/** The shared lease: `<prefix>lease:<name>` holds the holder's identity and expires with the lease. */
export class RedisLeaderLease implements LeaderLease {
  private readonly acquireScript: ScriptCall<number>;
  private readonly renewScript: ScriptCall<number>;
  private readonly releaseScript: ScriptCall<number>;
  private readonly key: string;

  constructor(
    redis: RedisConnection,
    name: string,
    readonly holder: string,
    private readonly fallback: FallbackPolicy,
    private readonly options: LeaderLeaseOptions,
  ) {
    this.key = `lease:${name}`;
    this.acquireScript = redis.script('lease.acquire', ACQUIRE, 1);
    this.renewScript = redis.script('lease.renew', RENEW, 1);
    this.releaseScript = redis.script('lease.release', RELEASE, 1);
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

  private async decide(script: ScriptCall<number>): Promise<boolean> {
    try {
      return (await script([this.key], [this.holder, this.options.ttlMs])) === 1;
    } catch {
      this.fallback.used('lease');
      return (this.options.whenUnavailable ?? 'lead') === 'lead';
    }
  }
}
