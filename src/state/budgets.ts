import type { RedisConnection, ScriptCall } from './connection.js';
import type { FallbackPolicy } from './fallbackPolicy.js';

/** Which budget refused, and how long until the amount would fit. */
export type BudgetVerdict = { ok: true } | { ok: false; limit: 'perMinute' | 'perDay'; retryAfterMs: number };

/**
 * What each client may spend (demand control's cost): at most `perMinute` in any minute, as a bucket that holds a
 * minute's worth and refills continuously (GCRA: one timestamp per client, so a cost of any size is one step), and
 * at most `perDay` per UTC day. Every replica spends from the same budgets.
 */
export interface ClientBudgets {
  /** Takes `amount` from `client`'s budgets when both have it, else nothing, telling which refused and for how long. */
  spend(client: string, amount: number): Promise<BudgetVerdict>;
  /** Corrects what `client` spent after the fact (an operation that cost more or less than it took): may be negative. */
  adjust(client: string, delta: number): void;
}

export interface ClientBudgetsOptions {
  /** 0: no limit per minute. */
  perMinute: number;
  /** 0: no limit per day. */
  perDay: number;
  /** @default Date.now */
  now?: () => number;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Clients kept in process before the idle ones (bucket full, no spend today) are dropped. */
const MAX_IDLE_CLIENTS = 10_000;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayEnd = (ms: number) => (Math.floor(ms / DAY_MS) + 1) * DAY_MS;

interface Book {
  /** The bucket's theoretical arrival time: when it is full again. */
  tat: number;
  day: string;
  spent: number;
}

/** The in-process budgets: the clients of this process. */
export class MemoryClientBudgets implements ClientBudgets {
  private readonly books = new Map<string, Book>();
  private readonly unitMs: number;
  private readonly now: () => number;

  constructor(private readonly options: ClientBudgetsOptions) {
    this.unitMs = options.perMinute > 0 ? MINUTE_MS / options.perMinute : 0;
    this.now = options.now ?? Date.now;
  }

  spend(client: string, amount: number): Promise<BudgetVerdict> {
    return Promise.resolve(this.spendNow(client, amount));
  }

  /** Synchronously, for the Redis budgets' outage book. */
  spendNow(client: string, amount: number): BudgetVerdict {
    const now = this.now();
    const book = this.book(client, now);
    const start = Math.max(book.tat, now);
    const { perMinute, perDay } = this.options;
    if (perMinute > 0 && start + amount * this.unitMs - now > MINUTE_MS)
      return { ok: false, limit: 'perMinute', retryAfterMs: Math.ceil(start + amount * this.unitMs - now - MINUTE_MS) };
    if (perDay > 0 && book.spent + amount > perDay)
      return { ok: false, limit: 'perDay', retryAfterMs: dayEnd(now) - now };
    book.tat = start + amount * this.unitMs;
    book.spent += amount;
    return { ok: true };
  }

  adjust(client: string, delta: number): void {
    const book = this.book(client, this.now());
    book.tat += delta * this.unitMs;
    book.spent = Math.max(0, book.spent + delta);
  }

  private book(client: string, now: number): Book {
    const day = dayOf(now);
    let book = this.books.get(client);
    if (!book) {
      if (this.books.size >= MAX_IDLE_CLIENTS) this.forgetIdle(now, day);
      this.books.set(client, (book = { tat: now, day, spent: 0 }));
    } else if (book.day !== day) {
      book.day = day;
      book.spent = 0;
    }
    return book;
  }

  private forgetIdle(now: number, day: string): void {
    for (const [client, book] of this.books)
      if (book.tat <= now && (book.day !== day || book.spent === 0)) this.books.delete(client);
  }
}

/**
 * One step: earlier corrections first (`delta`), then the bucket and the day's spend, all or nothing. KEYS[1] the
 * client's hash (`tat`, `day`, `spent`); ARGV: now, amount, perMinute, perDay, day, end of day (ms), delta. An amount
 * of 0 only applies the delta. Answers { granted 0/1, wait ms, 1 minute / 2 day }.
 */
const SPEND = `
local now, amount, perMinute, perDay = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local day, dayEnd, delta = ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7])
local h = redis.call('HMGET', KEYS[1], 'tat', 'day', 'spent')
local tat = tonumber(h[1]) or now
local spent = 0
if h[2] == day then spent = tonumber(h[3]) or 0 end
local unit = 0
if perMinute > 0 then unit = 60000 / perMinute end
tat = tat + delta * unit
spent = math.max(0, spent + delta)
local start = math.max(tat, now)
local granted, wait, which = 1, 0, 0
if perMinute > 0 and start + amount * unit - now > 60000 then
  granted, wait, which = 0, start + amount * unit - now - 60000, 1
elseif perDay > 0 and spent + amount > perDay then
  granted, wait, which = 0, dayEnd - now, 2
else
  tat = start + amount * unit
  spent = spent + amount
end
redis.call('HSET', KEYS[1], 'tat', string.format('%.3f', tat), 'day', day, 'spent', spent)
redis.call('PEXPIRE', KEYS[1], math.floor(math.max(dayEnd, tat + 60000) - now) + 1)
return {granted, math.ceil(wait), which}`;

/** How often corrections no spend carried are written. */
const FLUSH_MS = 1_000;

/**
 * The shared budgets: one hash per client, `<prefix>budget:<name>:<client>` (`tat`, `day`, `spent`; expires when the
 * bucket is full again and the day is over), taken from by one Lua script per operation. Corrections after an
 * operation ({@link adjust}) ride with the client's next spend, or are written within a second.
 *
 * While Redis fails, each replica spends from budgets of its own of `limit / GATEWAY_REPLICAS` (the replicas together
 * stay within the limits) and keeps what it spent as corrections that the next command that succeeds writes, so the
 * day's spend is whole again once Redis answers.
 */
export class RedisClientBudgets implements ClientBudgets {
  private readonly script: ScriptCall<[number, number, number]>;
  private readonly fallbackBudgets: MemoryClientBudgets;
  private readonly now: () => number;
  /** Corrections not written yet, by client. */
  private readonly pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    redis: RedisConnection,
    private readonly name: string,
    private readonly fallback: FallbackPolicy,
    private readonly options: ClientBudgetsOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.script = redis.script('budget.spend', SPEND, 1);
    this.fallbackBudgets = new MemoryClientBudgets({
      ...options,
      perMinute: options.perMinute && fallback.share(options.perMinute),
      perDay: options.perDay && fallback.share(options.perDay),
    });
  }

  async spend(client: string, amount: number): Promise<BudgetVerdict> {
    const delta = this.take(client);
    try {
      const [granted, wait, which] = await this.step(client, amount, delta);
      return granted === 1
        ? { ok: true }
        : { ok: false, limit: which === 2 ? 'perDay' : 'perMinute', retryAfterMs: wait };
    } catch {
      this.fallback.used('budget');
      this.adjust(client, delta);
      // A share of 0 (a limit smaller than the replicas) allows nothing while Redis fails.
      const verdict = this.fallbackBudgets.spendNow(client, amount);
      if (verdict.ok) this.adjust(client, amount);
      return verdict;
    }
  }

  adjust(client: string, delta: number): void {
    if (delta === 0) return;
    this.pending.set(client, (this.pending.get(client) ?? 0) + delta);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes every pending correction (the timer; on close). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const clients = [...this.pending.keys()];
    await Promise.all(
      clients.map(async (client) => {
        const delta = this.take(client);
        await this.step(client, 0, delta).catch(() => {
          this.fallback.used('budget');
          this.adjust(client, delta);
        });
      }),
    );
  }

  private take(client: string): number {
    const delta = this.pending.get(client) ?? 0;
    this.pending.delete(client);
    return delta;
  }

  private step(client: string, amount: number, delta: number): Promise<[number, number, number]> {
    const now = this.now();
    return this.script(
      [`budget:${this.name}:${client}`],
      [now, amount, this.options.perMinute, this.options.perDay, dayOf(now), dayEnd(now), delta],
    );
  }
}
