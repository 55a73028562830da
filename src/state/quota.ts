import type { RedisConnection, ScriptCall } from './connection.js';
import type { FallbackPolicy } from './fallback.js';

/** What a reservation got: whether the units were granted, and how many remain today after it. */
export interface QuotaReservation {
  granted: boolean;
  remaining: number;
}

/**
 * Units (upstream requests) allowed per UTC day, e.g. OMDb's 1,000 requests a day per key. A caller reserves a unit
 * before each request and never sends without one, so the day's total cannot cross the limit, however many
 * replicas share it.
 */
export interface DailyQuota {
  readonly limit: number;
  /** Takes `n` units atomically when that many remain; nothing is taken otherwise. */
  reserve(n?: number): Promise<QuotaReservation>;
  /** Counts requests sent beyond the units reserved (retries), so the count stays true. */
  add(n: number): Promise<void>;
  /** The upstream said its limit is reached: nothing more until the next UTC day. */
  exhaust(): Promise<void>;
  remaining(): Promise<number>;
  /** Seconds until the quota starts afresh (00:00 UTC). */
  secondsUntilReset(): number;
}

export interface DailyQuotaOptions {
  limit: number;
  /** Told the remaining units after every change (the quota gauge). */
  onChange?: (remaining: number) => void;
  /** @default Date.now */
  now?: () => number;
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function secondsUntilMidnight(now: number): number {
  const midnight = new Date(now);
  midnight.setUTCHours(24, 0, 0, 0);
  return Math.ceil((midnight.getTime() - now) / 1000);
}

/** The in-process quota: one counter in this process. */
export class MemoryDailyQuota implements DailyQuota {
  readonly limit: number;
  private day = '';
  private used = 0;
  private readonly now: () => number;
  private readonly onChange: (remaining: number) => void;

  constructor(options: DailyQuotaOptions) {
    this.limit = options.limit;
    this.now = options.now ?? Date.now;
    this.onChange = options.onChange ?? (() => undefined);
    this.onChange(this.limit);
  }

  private roll(): void {
    const day = utcDay(this.now());
    if (day !== this.day) {
      this.day = day;
      this.used = 0;
    }
  }

  left(): number {
    this.roll();
    return Math.max(0, this.limit - this.used);
  }

  reserve(n = 1): Promise<QuotaReservation> {
    if (this.left() < n) return Promise.resolve({ granted: false, remaining: this.left() });
    this.used += n;
    this.onChange(this.left());
    return Promise.resolve({ granted: true, remaining: this.left() });
  }

  add(n: number): Promise<void> {
    this.roll();
    this.used += n;
    this.onChange(this.left());
    return Promise.resolve();
  }

  exhaust(): Promise<void> {
    this.roll();
    this.used = Math.max(this.used, this.limit);
    this.onChange(0);
    return Promise.resolve();
  }

  remaining(): Promise<number> {
    return Promise.resolve(this.left());
  }

  secondsUntilReset(): number {
    return secondsUntilMidnight(this.now());
  }
}

/** Takes n units when used + n <= limit; answers { granted 0/1, remaining }. The key lives a day past its own. */
const RESERVE = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local n, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
if used + n > limit then return {0, math.max(0, limit - used)} end
used = redis.call('INCRBY', KEYS[1], n)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, math.max(0, limit - used)}`;

const ADD = `
local used = redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return used`;

/** Raises the count to at least the limit. */
const EXHAUST = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 0`;

/** The count of the day outlives it by this much, so a replica whose clock runs late still finds it. */
const KEY_GRACE_MS = 3_600_000;

/**
 * The shared quota: one Redis counter per quota per UTC day (`<prefix>quota:<name>:<yyyy-mm-dd>`), reserved by
 * one Lua script, so concurrent replicas cannot both take the last unit.
 *
 * When Redis fails, each replica may take only its share of what was left (`remaining / GATEWAY_REPLICAS`, the
 * configured limit when nothing was seen yet), so the replicas together still stay within the limit; what it took
 * meanwhile is added to the shared count once Redis answers again.
 */
export class RedisDailyQuota implements DailyQuota {
  readonly limit: number;
  private readonly now: () => number;
  private readonly onChange: (remaining: number) => void;
  private lastRemaining: number | undefined;
  private readonly reserveScript: ScriptCall<[number, number]>;
  private readonly addScript: ScriptCall<number>;
  private readonly exhaustScript: ScriptCall<number>;
  private outage: { day: string; quota: MemoryDailyQuota; taken: number } | undefined;

  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    private readonly fallback: FallbackPolicy,
    options: DailyQuotaOptions,
  ) {
    this.limit = options.limit;
    this.now = options.now ?? Date.now;
    this.onChange = options.onChange ?? (() => undefined);
    this.onChange(this.limit);
    this.reserveScript = redis.script<[number, number]>('quota.reserve', RESERVE, 1);
    this.addScript = redis.script<number>('quota.add', ADD, 1);
    this.exhaustScript = redis.script<number>('quota.exhaust', EXHAUST, 1);
  }

  async reserve(n = 1): Promise<QuotaReservation> {
    const now = this.now();
    try {
      await this.settleOutage();
      const [granted, remaining] = await this.reserveScript([this.key(now)], [n, this.limit, this.keyTtl(now)]);
      return { granted: granted === 1, remaining: this.seen(remaining) };
    } catch {
      const outage = this.outageQuota(now);
      const reservation = await outage.quota.reserve(n);
      if (reservation.granted) outage.taken += n;
      return reservation;
    }
  }

  async add(n: number): Promise<void> {
    const now = this.now();
    try {
      const used = await this.addScript([this.key(now)], [n, this.keyTtl(now)]);
      this.seen(this.limit - used);
    } catch {
      const outage = this.outageQuota(now);
      await outage.quota.add(n);
      outage.taken += n;
    }
  }

  async exhaust(): Promise<void> {
    const now = this.now();
    this.seen(0);
    try {
      await this.exhaustScript([this.key(now)], [this.limit, this.keyTtl(now)]);
    } catch {
      await this.outageQuota(now).quota.exhaust();
    }
  }

  async remaining(): Promise<number> {
    const now = this.now();
    try {
      const used = await this.redis.run('quota.remaining', (r) => r.get(this.key(now)));
      return this.seen(this.limit - Number(used ?? 0));
    } catch {
      return this.outageQuota(now).quota.left();
    }
  }

  secondsUntilReset(): number {
    return secondsUntilMidnight(this.now());
  }

  private key(now: number): string {
    return `quota:${this.name}:${utcDay(now)}`;
  }

  private keyTtl(now: number): number {
    return secondsUntilMidnight(now) * 1000 + KEY_GRACE_MS;
  }

  private seen(remaining: number): number {
    const value = Math.max(0, remaining);
    this.lastRemaining = value;
    this.onChange(value);
    return value;
  }

  /** This replica's share while Redis is down (per UTC day). */
  private outageQuota(now: number) {
    const day = utcDay(now);
    if (!this.outage || this.outage.day !== day) {
      const left = this.outage || this.lastRemaining === undefined ? this.limit : this.lastRemaining;
      const share = this.fallback.share(left);
      this.outage = { day, taken: 0, quota: new MemoryDailyQuota({ limit: share, now: this.now, onChange: this.onChange }) };
    }
    this.fallback.used('quota');
    return this.outage;
  }

  /** Redis is back: what this replica took meanwhile joins the shared count (same day only). */
  private async settleOutage(): Promise<void> {
    const outage = this.outage;
    if (!outage) return;
    // Settled once: concurrent reservations must not add the same units twice.
    this.outage = undefined;
    const now = this.now();
    if (outage.taken === 0 || outage.day !== utcDay(now)) return;
    try {
      await this.addScript([this.key(now)], [outage.taken, this.keyTtl(now)]);
    } catch (error) {
      // Another reservation may have started a new outage meanwhile: these units join it.
      const current = this.outage as typeof outage | undefined;
      if (current) current.taken += outage.taken;
      else this.outage = outage;
      throw error;
    }
  }
}
