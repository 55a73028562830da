import { sleep } from '../streams/sleep.js';
import type { RedisConnection, ScriptCall } from './connection.js';
import type { FallbackPolicy } from './fallbackPolicy.js';

export type RateVerdict = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * A client-side sliding-window limiter: no more than `perMinute` requests to an upstream in any 60 s, the way
 * providers count. A request that would exceed it waits in line when its slot frees within `maxWaitMs`, else is
 * refused at once with the time its slot would free, so callers learn when to retry instead of piling up.
 */
export interface RateLimiter {
  readonly perMinute: number;
  /** Takes a slot, waiting for it when allowed; the signal withdraws a waiting request (and frees its slot). */
  acquire(signal?: AbortSignal): Promise<RateVerdict>;
}

/** Options of one {@link RateLimiter}. */
export interface RateLimiterOptions {
  /** Requests allowed in any 60-second window. */
  perMinute: number;
  /** Longest a request waits for a free slot before it is refused. @default 2000 */
  maxWaitMs?: number;
  /** @default Date.now */
  now?: () => number;
}

export const WINDOW_MS = 60_000;

/** The in-process limiter: the slots of this process. */
export class MemoryRateLimiter implements RateLimiter {
  readonly perMinute: number;
  /** Start times granted or reserved, ascending; a reservation in the future is a request waiting in line. */
  private slots: number[] = [];
  private readonly maxWaitMs: number;
  private readonly now: () => number;

  constructor(options: RateLimiterOptions) {
    this.perMinute = options.perMinute;
    this.maxWaitMs = options.maxWaitMs ?? 2_000;
    this.now = options.now ?? Date.now;
  }

  /** Like {@link acquire}, also telling the slot's time. */
  async take(signal?: AbortSignal): Promise<RateVerdict & { at?: number }> {
    const now = this.now();
    // A share of 0 (fewer requests per minute than replicas) allows nothing.
    if (this.perMinute === 0) return { ok: false, retryAfterMs: WINDOW_MS };
    while (this.slots.length && this.slots[0] <= now - WINDOW_MS) this.slots.shift();
    const limit = this.perMinute;
    const at = this.slots.length < limit ? now : this.slots[this.slots.length - limit] + WINDOW_MS;
    const wait = at - now;
    if (wait > this.maxWaitMs) return { ok: false, retryAfterMs: wait };
    this.slots.push(at);
    if (wait > 0) {
      try {
        await sleep(wait, signal);
      } catch (error) {
        const i = this.slots.lastIndexOf(at);
        if (i !== -1) this.slots.splice(i, 1);
        throw error;
      }
    }
    return { ok: true, at };
  }

  async acquire(signal?: AbortSignal): Promise<RateVerdict> {
    const verdict = await this.take(signal);
    return verdict.ok ? { ok: true } : verdict;
  }
}

/**
 * The same window in one Redis sorted set per limiter (`<prefix>ratelimit:<name>`, scores = slot times), decided by
 * one Lua script: drop slots older than the window, then grant now, reserve the slot that frees within `maxWait`, or
 * refuse with the wait. ARGV: now, limit, window, max wait, lease ms, slots wanted (k), k members, then this replica's
 * own slots of the window (time, member), written again first: slots lost when Redis restarted empty.
 *
 * A grant now takes up to k free slots: with k > 1 they are a lease, scored `now + lease ms`, so each counts in the
 * window from now until a minute after the last moment this replica may spend it; the replica spends them without
 * asking again. Answers { granted 0/1, wait, slots granted }.
 */
const ACQUIRE = `
local key = KEYS[1]
local now, limit, window, maxWait = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local leaseMs, k = tonumber(ARGV[5]), tonumber(ARGV[6])
for i = 7 + k, #ARGV, 2 do redis.call('ZADD', key, ARGV[i], ARGV[i + 1]) end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local n = redis.call('ZCARD', key)
local granted = 1
local at = now
if n < limit and k > 1 then
  granted = math.min(k, limit - n)
  for i = 1, granted do redis.call('ZADD', key, now + leaseMs, ARGV[6 + i]) end
else
  if n >= limit then at = tonumber(redis.call('ZRANGE', key, n - limit, n - limit, 'WITHSCORES')[2]) + window end
  if at - now > maxWait then return {0, at - now, 0} end
  redis.call('ZADD', key, at, ARGV[7])
end
local last = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', key, math.max(1, last - now) + window)
return {1, at - now, granted}`;

/** How long a leased slot may wait to be spent (it counts in the window until a minute after). */
const LEASE_MS = 10_000;
/** What a caller refused while Redis fails is told to wait: Redis is probed that often. */
const OUTAGE_RETRY_MS = 1_000;

/**
 * The shared limiter: every replica takes its slots from one window in Redis, so `perMinute` holds for the whole
 * cluster. Where a replica's share is more than a few requests a minute, it takes its slots as a lease of several
 * ({@link leaseSize}), spent without a round trip for up to {@link LEASE_MS}; when Redis fails it spends only the
 * leased slots it holds (none when its share is too small to lease: refused), so no order of faults lets the
 * cluster send more than `perMinute` in any minute. Each replica remembers its own slots of the last minute, leased
 * ones included, and writes them again (ZADD of the same members: idempotent) when the connection to Redis was
 * re-established: a Redis that came back empty gets every live replica's slots back. Unspent leased slots are
 * removed when the replica closes, or count until a minute after their lease ran out.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly perMinute: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;
  private readonly script: ScriptCall<[number, number, number]>;
  /** Slots per claim: 1 (no lease) unless a replica's share of a minute is at least 8. */
  private readonly leaseSize: number;
  /** This replica's slots (time and member) in the window, granted through Redis, spent or leased. */
  private own: Array<[number, string]> = [];
  /** Leased slots not spent yet: their members, and the last moment each may be spent. */
  private held: Array<{ member: string; until: number }> = [];
  /** The connection's session when Redis last took every slot of {@link own}. */
  private syncedSession = -1;
  private sequence = 0;

  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    private readonly replicaId: string,
    private readonly fallback: FallbackPolicy,
    options: RateLimiterOptions,
  ) {
    this.perMinute = options.perMinute;
    this.maxWaitMs = options.maxWaitMs ?? 2_000;
    this.now = options.now ?? Date.now;
    this.script = redis.script('ratelimit.acquire', ACQUIRE, 1);
    this.leaseSize = Math.max(1, Math.floor(fallback.share(options.perMinute) / 4));
  }

  async acquire(signal?: AbortSignal): Promise<RateVerdict> {
    const now = this.now();
    this.own = this.own.filter(([at]) => at > now - WINDOW_MS);
    this.held = this.held.filter((slot) => slot.until > now);
    // A leased slot: no round trip.
    if (this.held.shift()) return { ok: true };
    const members = Array.from({ length: this.leaseSize }, () => this.member());
    const member = members[0];
    const session = this.redis.session;
    const due = session !== this.syncedSession;
    const resend = due ? this.own.flat() : [];
    let granted: number;
    let wait: number;
    let slots: number;
    try {
      [granted, wait, slots] = await this.script(
        [`ratelimit:${this.name}`],
        [now, this.perMinute, WINDOW_MS, this.maxWaitMs, LEASE_MS, members.length, ...members, ...resend],
      );
      if (due) this.syncedSession = session;
    } catch {
      // Redis fails: only slots this replica holds may be spent, and it holds none.
      this.fallback.used('ratelimit');
      return { ok: false, retryAfterMs: OUTAGE_RETRY_MS };
    }
    if (granted !== 1) return { ok: false, retryAfterMs: wait };
    if (slots > 1) {
      for (const m of members.slice(0, slots)) this.own.push([now + LEASE_MS, m]);
      for (const m of members.slice(1, slots)) this.held.push({ member: m, until: now + LEASE_MS });
      return { ok: true };
    }
    const slot: [number, string] = [now + wait, member];
    this.own.push(slot);
    if (wait > 0) {
      try {
        await sleep(wait, signal);
      } catch (error) {
        this.own = this.own.filter((s) => s !== slot);
        await this.redis
          .run('ratelimit.release', (r) => r.zrem(`ratelimit:${this.name}`, member))
          .catch(() => undefined);
        throw error;
      }
    }
    return { ok: true };
  }

  /** Removes the leased slots not spent (on close), so the other replicas can have them. */
  async release(): Promise<void> {
    const unspent = this.held.splice(0).map((slot) => slot.member);
    if (unspent.length)
      await this.redis
        .run('ratelimit.release', (r) => r.zrem(`ratelimit:${this.name}`, ...unspent))
        .catch(() => undefined);
  }

  private member(): string {
    return `${this.replicaId}:${++this.sequence}`;
  }
}
