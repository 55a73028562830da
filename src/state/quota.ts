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

const DAY_MS = 86_400_000;
let lastDay = { index: NaN, text: '' };
/** `2026-11-23` for a time in ms; the last day's text is kept, since every quota check asks for it. */
const utcDay = (ms: number): string => {
  const index = Math.floor(ms / DAY_MS);
  if (index !== lastDay.index) lastDay = { index, text: new Date(index * DAY_MS).toISOString().slice(0, 10) };
  return lastDay.text;
};

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

/**
 * The day's count is a hash of per-replica counts (`<replica id>` → units it took), summed on every call. With each
 * call a replica sends the counts it knows — its own (units taken through Redis, or on its own while Redis failed)
 * and the others' as it last saw them — and a smaller count in Redis is raised to it first: an outage's units join
 * the shared count, and a Redis that restarted empty gets the whole day back from the first replica that calls,
 * idempotently. ARGV: n, limit, ttl, replica, force ('1': retries already sent, taken even past the limit), then
 * field/count pairs. n = 0 only restores and reads. Answers { granted 0/1, remaining, the hash as field/count pairs }.
 */
const RESERVE = `
local key, replica = KEYS[1], ARGV[4]
local n, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
for i = 6, #ARGV, 2 do
  if tonumber(redis.call('HGET', key, ARGV[i]) or '0') < tonumber(ARGV[i + 1]) then redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
end
local used = 0
for _, v in ipairs(redis.call('HVALS', key)) do used = used + tonumber(v) end
local granted = 0
if used + n <= limit or ARGV[5] == '1' then
  redis.call('HINCRBY', key, replica, n)
  used, granted = used + n, 1
end
redis.call('PEXPIRE', key, ARGV[3])
return {granted, math.max(0, limit - used), redis.call('HGETALL', key)}`;

/** The upstream said its limit is reached: a field that fills what the replicas left of the limit. */
const EXHAUST = `
local used = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do used = used + tonumber(v) end
if used < tonumber(ARGV[1]) then redis.call('HINCRBY', KEYS[1], '!upstream', tonumber(ARGV[1]) - used) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 0`;

/** The count of the day outlives it by this much, so a replica whose clock runs late still finds it. */
const KEY_GRACE_MS = 3_600_000;

/**
 * The shared quota: one Redis hash per quota per UTC day (`<prefix>quota:<name>:<yyyy-mm-dd>`, a count per
 * replica), reserved by one Lua script, so concurrent replicas cannot both take the last unit.
 *
 * When Redis fails, each replica may take only its share of what was left (`remaining / GATEWAY_REPLICAS`, the
 * configured limit when nothing was seen yet), so the replicas together still stay within the limit. Each replica
 * keeps the day's counts it knows and sends them with every call: what it took meanwhile joins the shared count once
 * Redis answers again, and a Redis that comes back empty gets the day back from the first replica that calls. A unit
 * whose reply was lost (a timeout after Redis counted it) is not counted twice: Redis is raised to a replica's
 * count, never added to.
 */
export class RedisDailyQuota implements DailyQuota {
  readonly limit: number;
  private readonly now: () => number;
  private readonly onChange: (remaining: number) => void;
  private lastRemaining: number | undefined;
  private readonly reserveScript: ScriptCall<[number, number, string[]]>;
  private readonly exhaustScript: ScriptCall<number>;
  /** The counts of `day` as this replica knows them: its own (through Redis or on its own), the others' as last seen. */
  private counts = { day: '', byReplica: new Map<string, number>() };
  private outage: { day: string; quota: MemoryDailyQuota } | undefined;

  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    private readonly replicaId: string,
    private readonly fallback: FallbackPolicy,
    options: DailyQuotaOptions,
  ) {
    this.limit = options.limit;
    this.now = options.now ?? Date.now;
    this.onChange = options.onChange ?? (() => undefined);
    this.onChange(this.limit);
    this.reserveScript = redis.script<[number, number, string[]]>('quota.reserve', RESERVE, 1);
    this.exhaustScript = redis.script<number>('quota.exhaust', EXHAUST, 1);
    // Back from an outage or a restart: write the day's counts back at once, not at this replica's next request,
    // so the other replicas see the units it took on its own as soon as it can reach Redis.
    redis.onSession(() => {
      const now = this.now();
      if (this.today(now).size === 0) return;
      this.call(now, 0, false).then(([, remaining]) => this.seen(remaining), () => undefined);
    });
  }

  async reserve(n = 1): Promise<QuotaReservation> {
    const now = this.now();
    try {
      const [granted, remaining] = await this.call(now, n, false);
      return { granted: granted === 1, remaining: this.seen(remaining) };
    } catch {
      const reservation = await this.outageQuota(now).quota.reserve(n);
      if (reservation.granted) this.took(now, n);
      return reservation;
    }
  }

  async add(n: number): Promise<void> {
    const now = this.now();
    try {
      const [, remaining] = await this.call(now, n, true);
      this.seen(remaining);
    } catch {
      await this.outageQuota(now).quota.add(n);
      this.took(now, n);
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
      const [, remaining] = await this.call(now, 0, false);
      return this.seen(remaining);
    } catch {
      return this.outageQuota(now).quota.left();
    }
  }

  secondsUntilReset(): number {
    return secondsUntilMidnight(this.now());
  }

  /** One script call carrying the counts this replica knows; on success the outage (if any) is over. */
  private async call(now: number, n: number, force: boolean): Promise<[number, number]> {
    const counts = this.today(now);
    const known = [...counts].flat();
    const [granted, remaining, hash] = await this.reserveScript([this.key(now)], [n, this.limit, this.keyTtl(now), this.replicaId, force ? '1' : '0', ...known]);
    for (let i = 0; i < hash.length; i += 2) counts.set(hash[i], Math.max(counts.get(hash[i]) ?? 0, Number(hash[i + 1])));
    this.outage = undefined;
    return [granted, remaining];
  }

  private took(now: number, n: number): void {
    const counts = this.today(now);
    counts.set(this.replicaId, (counts.get(this.replicaId) ?? 0) + n);
  }

  private today(now: number): Map<string, number> {
    const day = utcDay(now);
    if (this.counts.day !== day) this.counts = { day, byReplica: new Map() };
    return this.counts.byReplica;
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
      this.outage = { day, quota: new MemoryDailyQuota({ limit: share, now: this.now, onChange: this.onChange }) };
    }
    this.fallback.used('quota');
    return this.outage;
  }
}
