import { setTimeout as delay } from 'node:timers/promises';
import type { RedisConnection, ScriptCall } from './connection.js';
import type { FallbackPolicy } from './fallback.js';

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

  /** Like {@link acquire}, also telling the slot's time (the Redis limiter records its fallback slots). */
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
 * refuse with the wait. ARGV after the fifth are this replica's own slots of the window (time, member), written again
 * first: slots granted during an outage, or lost when Redis restarted empty.
 */
const ACQUIRE = `
local key = KEYS[1]
local now, limit, window, maxWait = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
for i = 6, #ARGV, 2 do redis.call('ZADD', key, ARGV[i], ARGV[i + 1]) end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local n = redis.call('ZCARD', key)
local at = now
if n >= limit then at = tonumber(redis.call('ZRANGE', key, n - limit, n - limit, 'WITHSCORES')[2]) + window end
local wait = at - now
if wait > maxWait then return {0, wait} end
redis.call('ZADD', key, at, ARGV[5])
local last = tonumber(redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')[2])
redis.call('PEXPIRE', key, math.max(1, last - now) + window)
return {1, wait}`;

/**
 * The shared limiter: every replica takes its slots from one window in Redis, so `perMinute` holds for the whole
 * cluster. When Redis fails, this replica limits itself to its share (`perMinute / GATEWAY_REPLICAS`). Each replica
 * remembers its own slots of the last minute and writes them again (ZADD of the same members: idempotent) after it
 * granted slots on its own, or when the connection to Redis was re-established: the outage's slots join the shared
 * window, and a Redis that came back empty gets every live replica's slots back.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly perMinute: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;
  private readonly script: ScriptCall<[number, number]>;
  private readonly outage: MemoryRateLimiter;
  /** This replica's slots (time and member) of the last minute, granted through Redis or on its own. */
  private own: Array<[number, string]> = [];
  /** Slots granted on the fallback so far, and how many of them Redis has taken. */
  private fallbackGrants = 0;
  private recordedGrants = 0;
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
    this.outage = new MemoryRateLimiter({ ...options, perMinute: fallback.share(options.perMinute) });
  }

  async acquire(signal?: AbortSignal): Promise<RateVerdict> {
    const now = this.now();
    const member = this.member();
    this.own = this.own.filter(([at]) => at > now - WINDOW_MS);
    const session = this.redis.session;
    const grants = this.fallbackGrants;
    const due = grants !== this.recordedGrants || session !== this.syncedSession;
    const resend = due ? this.own.flat() : [];
    let granted: number;
    let wait: number;
    try {
      [granted, wait] = await this.script([`ratelimit:${this.name}`], [now, this.perMinute, WINDOW_MS, this.maxWaitMs, member, ...resend]);
      if (due) {
        this.recordedGrants = grants;
        this.syncedSession = session;
      }
    } catch {
      this.fallback.used('ratelimit');
      const verdict = await this.outage.take(signal);
      if (!verdict.ok) return verdict;
      this.own.push([verdict.at!, this.member()]);
      this.fallbackGrants++;
      return { ok: true };
    }
    if (granted !== 1) return { ok: false, retryAfterMs: wait };
    const slot: [number, string] = [now + wait, member];
    this.own.push(slot);
    if (wait > 0) {
      try {
        await sleep(wait, signal);
      } catch (error) {
        this.own = this.own.filter((s) => s !== slot);
        await this.redis.run('ratelimit.release', (r) => r.zrem(`ratelimit:${this.name}`, member)).catch(() => undefined);
        throw error;
      }
    }
    return { ok: true };
  }

  private member(): string {
    return `${this.replicaId}:${++this.sequence}`;
  }
}

/** Resolves after `ms`, or rejects with the signal's own reason (not Node's AbortError) when it aborts first. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch((error: unknown) => {
    throw signal?.aborted ? signal.reason : error;
  });
}
