import { randomUUID } from 'node:crypto';
import type { RedisConnection, ScriptCall } from './connection.js';
import type { FallbackPolicy } from './fallbackPolicy.js';

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
  /**
   * `reserve(n)` decided without a round trip when this replica can (in process always; with Redis when the slice it
   * holds covers `n`), else undefined and nothing taken: then `reserve`. No promise per request sent.
   */
  reserveHere(n?: number): QuotaReservation | undefined;
  /** Counts requests sent beyond the units reserved (retries), so the count stays true. */
  add(n: number): Promise<void>;
  /** The upstream said its limit is reached: nothing more until the next UTC day. */
  exhaust(): Promise<void>;
  /**
   * What remains today. With `enough`, the caller is about to spend that many and only asks whether they remain: a
   * quota held ahead in slices answers from the slice this replica holds when it covers them (no round trip), else
   * claims them in the same step that counts what remains.
   */
  remaining(enough?: number): Promise<number>;
  /**
   * `remaining(enough)` when this replica can answer it without a round trip (in process always; with Redis when the
   * slice it holds covers `enough`), else undefined: a caller that then calls `remaining` makes no promise per check.
   */
  remainingHere(enough: number): number | undefined;
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
    return Promise.resolve(this.reserveHere(n));
  }

  reserveHere(n = 1): QuotaReservation {
    if (this.left() < n) return { granted: false, remaining: this.left() };
    this.used += n;
    this.onChange(this.left());
    return { granted: true, remaining: this.left() };
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

  remaining(_enough?: number): Promise<number> {
    return Promise.resolve(this.left());
  }

  remainingHere(_enough: number): number {
    return this.left();
  }

  secondsUntilReset(): number {
    return secondsUntilMidnight(this.now());
  }
}

/**
 * One step on the day's books, a hash of what each replica holds (`<replica id>` → units claimed today, spent or not;
 * `!upstream` → what OMDb's own "limit reached" filled). KEYS: the hash, the replicas whose claims a rebuild still
 * waits for, those that put theirs back, the generation. ARGV: limit, ttl, replica, target (the total this replica
 * wants to hold), mode ('claim': raised towards target as far as the limit allows, and not at all unless it reaches
 * least; 'force': raised even past it, for requests already sent; 'set': lowered to target, giving back what was not
 * spent), own (what this replica knows it holds: never less is kept), rebuild ms, the generation the caller knows (''
 * when none), a new generation in case there is none, least (a claim that cannot reach it is not granted at all),
 * then the others' claims as the caller last saw them.
 *
 * The generation is made when Redis has none: a caller that knew another one is talking to a Redis that restarted
 * empty, so its view of the others' claims is merged in (never lowering one), and no claim is granted until every
 * replica in that view has put its own claim back (or `rebuild ms` passed: one that died puts nothing back), so
 * nobody claims units that only seem free. Answers { granted 0/1, what this replica holds, the hash, the generation }.
 */
const STEP = `
local key, pending, confirmed, replica, mode = KEYS[1], KEYS[2], KEYS[3], ARGV[3], ARGV[5]
local limit, target, own = tonumber(ARGV[1]), tonumber(ARGV[4]), tonumber(ARGV[6])
local generation = redis.call('GET', KEYS[4])
if not generation then generation = ARGV[9] end
redis.call('SET', KEYS[4], generation, 'PX', 259200000)
if ARGV[8] ~= '' and ARGV[8] ~= generation then
  for i = 11, #ARGV, 2 do
    if tonumber(redis.call('HGET', key, ARGV[i]) or '0') < tonumber(ARGV[i + 1]) then redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
    if string.sub(ARGV[i], 1, 1) ~= '!' and redis.call('SISMEMBER', confirmed, ARGV[i]) == 0 then redis.call('SADD', pending, ARGV[i]) end
  end
  redis.call('SADD', confirmed, replica)
  redis.call('PEXPIRE', confirmed, 2 * tonumber(ARGV[7]))
  redis.call('PEXPIRE', pending, ARGV[7])
end
if redis.call('EXISTS', pending) == 1 then
  redis.call('SREM', pending, replica)
  redis.call('SADD', confirmed, replica)
end
local mine = tonumber(redis.call('HGET', key, replica) or '0')
if mine < own then mine = own end
local hash = redis.call('HGETALL', key)
local used = 0
for i = 1, #hash, 2 do if hash[i] ~= replica then used = used + tonumber(hash[i + 1]) end end
local granted = 1
if mode == 'set' then
  mine = target
elseif mode == 'force' then
  if target > mine then mine = target end
elseif target > mine then
  -- As much of the claim as fits: a slice the others leave no room for shrinks to what is free, but not below least.
  local fits = math.min(target, limit - used)
  if fits > mine and fits >= tonumber(ARGV[10]) and redis.call('EXISTS', pending) == 0 then mine = fits else granted = 0 end
end
if mine > 0 or redis.call('EXISTS', key) == 1 then
  redis.call('HSET', key, replica, mine)
  redis.call('PEXPIRE', key, ARGV[2])
end
return {granted, mine, redis.call('HGETALL', key), generation}`;

/** The upstream said its limit is reached: a field that fills what the replicas left of the limit. */
const EXHAUST = `
local used = 0
for _, v in ipairs(redis.call('HVALS', KEYS[1])) do used = used + tonumber(v) end
if used < tonumber(ARGV[1]) then redis.call('HINCRBY', KEYS[1], '!upstream', tonumber(ARGV[1]) - used) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 0`;

/** The count of the day outlives it by this much, so a replica whose clock runs late still finds it. */
const KEY_GRACE_MS = 3_600_000;

/** A claim takes this share of what is free, split among the replicas: half the pool stays free for the others. */
const SLICE_DIVISOR = 2;

/** This replica's books for one UTC day. */
interface Book {
  day: string;
  /** Units Redis counts for this replica: spent, or held ahead. */
  claimed: number;
  spent: number;
  /** The others' claims (and `!upstream`) as last seen. */
  others: Map<string, number>;
}

export interface RedisDailyQuotaOptions extends DailyQuotaOptions {
  /** How long a Redis that restarted empty grants no claim while the replicas put their books back. @default 5000 */
  rebuildMs?: number;
}

/**
 * The shared quota as leases held ahead: each replica claims a slice of what is free today (half of it divided by
 * GATEWAY_REPLICAS, at least what it needs) in one Lua step, then spends it without asking Redis again; only when its
 * slice is spent does it claim the next. Redis counts claims, not requests, so the replicas together never hold more
 * than the limit, and a replica that cannot reach Redis spends only what it holds: no order of faults lets the
 * cluster send more than the limit. What a replica did not spend it gives back when it closes.
 *
 * Every step is absolute (raise this replica's claim to N), so a reply lost to a timeout (Redis hung, then worked off
 * its queue) counts nothing twice; a replica adopts what Redis says it holds. A Redis that restarted empty is rebuilt
 * from the books of the first replica that calls (its own claim and the others' as last seen) and from each
 * replica's own claim as it comes back, with no claims granted meanwhile (`rebuildMs`).
 *
 * The cost: a unit held idle by one replica is refused on another until the day ends or the holder closes; the idle
 * units are at most the replicas' unspent slices, each at most half of what was free when it was claimed, divided by
 * GATEWAY_REPLICAS (src/state/README.md).
 */
export class RedisDailyQuota implements DailyQuota {
  readonly limit: number;
  private readonly now: () => number;
  private readonly onChange: (remaining: number) => void;
  private readonly rebuildMs: number;
  private readonly stepScript: ScriptCall<[number, number, string[], string]>;
  /** The Redis generation this replica last saw: another one means Redis restarted empty. */
  private generation = '';
  /** Whether the last step reached Redis: the free units count only then. */
  private reachable = false;
  private released = false;
  private readonly exhaustScript: ScriptCall<number>;
  private book: Book = { day: '', claimed: 0, spent: 0, others: new Map() };
  /** The claim in flight, which reservations waiting for units join instead of sending their own. */
  private claiming: Promise<boolean> | undefined;
  /** Units the reservations in the loop want: what the next claim asks for at least. */
  private wanted = 0;

  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    private readonly replicaId: string,
    private readonly fallback: FallbackPolicy,
    options: RedisDailyQuotaOptions,
  ) {
    this.limit = options.limit;
    this.now = options.now ?? Date.now;
    this.onChange = options.onChange ?? (() => undefined);
    this.rebuildMs = options.rebuildMs ?? 5_000;
    this.onChange(this.limit);
    this.stepScript = redis.script<[number, number, string[], string]>('quota.reserve', STEP, 4);
    this.exhaustScript = redis.script<number>('quota.exhaust', EXHAUST, 1);
    // Back from an outage, a hang or a restart: put this replica's books back at once, not at its next claim, so a
    // Redis that restarted empty holds every replica's claim before its rebuild window ends.
    redis.onSession(() => {
      if (this.today().claimed === 0 && this.book.others.size === 0) return;
      this.step(0, 'claim').catch(() => undefined);
    });
  }

  reserveHere(n = 1): QuotaReservation | undefined {
    const book = this.today();
    if (book.claimed - book.spent < n) return undefined;
    book.spent += n;
    return { granted: true, remaining: this.changed() };
  }

  async reserve(n = 1): Promise<QuotaReservation> {
    this.wanted += n;
    try {
      for (let attempts = 0; ; attempts++) {
        const here = this.reserveHere(n);
        if (here) return here;
        // A claim refused, or Redis failing, leaves this replica with what it holds: not enough.
        if (attempts >= 5 || !(await this.claim())) return { granted: false, remaining: this.changed() };
      }
    } finally {
      this.wanted -= n;
    }
  }

  async add(n: number): Promise<void> {
    const book = this.today();
    book.spent += n;
    if (book.spent > book.claimed) {
      // Requests already sent: Redis counts them even past the limit, or gets them with the next step that succeeds.
      await this.step(book.spent, 'force').catch(() => this.fallback.used('quota'));
    }
    this.changed();
  }

  async exhaust(): Promise<void> {
    const book = this.today();
    book.claimed = book.spent;
    book.others.set('!upstream', this.limit);
    this.onChange(0);
    try {
      await this.exhaustScript([this.key()], [this.limit, this.keyTtl()]);
    } catch {
      this.fallback.used('quota');
    }
  }

  remainingHere(enough: number): number | undefined {
    const book = this.today();
    return book.claimed - book.spent < enough ? undefined : this.changed();
  }

  async remaining(enough?: number): Promise<number> {
    if (enough !== undefined) {
      // This replica's own slice covers it: whatever the others hold, at least that much remains, so no round trip.
      // Else the units are claimed now, in the step that reads the books, so the reservations after it find them held.
      const here = this.remainingHere(enough);
      if (here !== undefined) return here;
      await this.claim(enough);
      return this.changed();
    }
    try {
      await this.step(0, 'claim');
    } catch {
      this.fallback.used('quota');
    }
    return this.changed();
  }

  secondsUntilReset(): number {
    return secondsUntilMidnight(this.now());
  }

  /** Gives back what this replica holds and did not spend (on close), so the other replicas can claim it. */
  async release(): Promise<void> {
    this.released = true;
    await this.claiming;
    const book = this.today();
    if (book.claimed <= book.spent) return;
    // Spent no more from here on, whether Redis hears it or not: if it does later (a hang), this replica must not
    // hold units Redis no longer counts for it.
    book.claimed = book.spent;
    await this.step(book.spent, 'set').catch(() => undefined);
  }

  /**
   * One claim for what the waiting reservations lack, at least a slice; true when this replica holds more after it.
   * With `more`, a caller about to spend that many units waits too, and the claim is granted only when it covers them
   * (units it cannot spend would sit idle here while another replica is refused them); waiting reservations take any
   * unit that fits, since each needs only its own.
   */
  private claim(more = 0): Promise<boolean> {
    if (this.released) return Promise.resolve(false);
    if (this.claiming) return this.claiming;
    const book = this.today();
    const own = Math.max(book.claimed, book.spent);
    const held = book.claimed - book.spent;
    const lacking = Math.max(1, this.wanted + more - held);
    const free = this.free();
    const slice = Math.floor(free / (SLICE_DIVISOR * this.fallback.replicas));
    const target = own + Math.max(lacking, Math.min(slice, free));
    const least = own + Math.max(1, more - held);
    const before = book.claimed;
    const claiming = this.step(target, 'claim', least)
      .then(
        () => this.today().claimed > before,
        () => {
          this.fallback.used('quota');
          return false;
        },
      )
      .then((more) => {
        // Cleared before the waiting reservations go on, so the next one that still lacks units sends a new claim.
        this.claiming = undefined;
        return more;
      });
    this.claiming = claiming;
    return claiming;
  }

  /** One STEP call carrying this replica's books; adopts what Redis says this replica holds and the others' claims. */
  private async step(target: number, mode: 'claim' | 'force' | 'set', least = 0): Promise<boolean> {
    const book = this.today();
    const own = mode === 'set' ? 0 : Math.max(book.claimed, book.spent);
    const others = [...book.others].flat();
    const keys = [
      this.key(),
      `${this.key()}:rebuild-pending`,
      `${this.key()}:rebuild-confirmed`,
      `quota:${this.name}:generation`,
    ];
    const [granted, mine, hash, generation] = await this.runStep(keys, [
      this.limit,
      this.keyTtl(),
      this.replicaId,
      target,
      mode,
      own,
      this.rebuildMs,
      this.generation,
      randomUUID(),
      least,
      ...others,
    ]);
    this.generation = generation;
    this.reachable = true;
    if (book !== this.book) return false;
    book.claimed = mode === 'set' ? Math.min(book.claimed, Number(mine)) : Math.max(book.claimed, Number(mine));
    book.others = new Map();
    for (let i = 0; i < hash.length; i += 2)
      if (hash[i] !== this.replicaId) book.others.set(hash[i], Number(hash[i + 1]));
    return granted === 1;
  }

  private async runStep(keys: string[], args: Array<string | number>): Promise<[number, number, string[], string]> {
    try {
      return await this.stepScript(keys, args);
    } catch (error) {
      this.reachable = false;
      throw error;
    }
  }

  /** Units no replica holds, as this replica last saw the books. */
  private free(): number {
    const book = this.today();
    let used = Math.max(book.claimed, book.spent);
    for (const count of book.others.values()) used += count;
    return Math.max(0, this.limit - used);
  }

  /** What this replica can still spend today: its own slice, plus what is free while it reaches Redis. */
  private changed(): number {
    const book = this.today();
    const remaining = Math.max(0, book.claimed - book.spent) + (this.reachable ? this.free() : 0);
    this.onChange(remaining);
    return remaining;
  }

  private today(): Book {
    const day = utcDay(this.now());
    if (this.book.day !== day) this.book = { day, claimed: 0, spent: 0, others: new Map() };
    return this.book;
  }

  private key(): string {
    return `quota:${this.name}:${this.today().day}`;
  }

  private keyTtl(): number {
    return secondsUntilMidnight(this.now()) * 1000 + KEY_GRACE_MS;
  }
}
