import type { RedisConnection, ScriptCall } from './connection.js';
import type { FallbackPolicy } from './fallbackPolicy.js';

/** Counter name → value, of one entry on one day. */
export type Counts = Record<string, number>;

/**
 * Named counters per entry per UTC day, e.g. the tokens and requests of each chat provider and model: every replica
 * adds to the same day's counts, and reads the cluster's.
 */
export interface DailyCounters {
  /** Adds each of `amounts` to `entry`'s counter of that name on `day` (`YYYY-MM-DD`), all of them at once. */
  add(day: string, entry: string, amounts: Readonly<Counts>): Promise<void>;
  /**
   * The day's counts, by entry. With `forLimit`, while the shared store fails, what this replica added since counts
   * `GATEWAY_REPLICAS` times (as if every replica spent like it), so replicas that each stop at a limit stay within it
   * together; without it, the counts are the last ones read plus this replica's own since.
   */
  read(day: string, options?: { forLimit?: boolean }): Promise<Map<string, Counts>>;
}

export interface DailyCountersOptions {
  /** Days kept: in process the newest days that saw additions, in Redis each day's hash lives this long after its last addition. @default 62 */
  keepDays?: number;
}

const DAY_MS = 86_400_000;
/** Between entry and counter name in a Redis hash field: counter names may not hold it, entries may. */
const SEPARATOR = '#';

/** Counter names are the caller's own words, never user input: a bad one is a programming error. */
function checkNames(amounts: Readonly<Counts>): void {
  // `for … in` (here and in addInto), not Object.keys/entries: their arrays were 1.2 KB of a chat stream's garbage.
  for (const counter in amounts) {
    if (counter.includes(SEPARATOR))
      throw new Error(`counter name ${JSON.stringify(counter)} holds "${SEPARATOR}"; use another name`);
  }
}

function addInto(counts: Counts, amounts: Readonly<Counts>, times = 1): void {
  for (const name in amounts) counts[name] = (counts[name] ?? 0) + amounts[name] * times;
}

/** Entry → counts of one day, copied (callers may keep and change what they read). */
function copy(day: ReadonlyMap<string, Counts> | undefined): Map<string, Counts> {
  return new Map([...(day ?? [])].map(([entry, counts]) => [entry, { ...counts }]));
}

/** The in-process counters: the newest `keepDays` days that saw additions, so a long-running gateway stays bounded. */
export class MemoryDailyCounters implements DailyCounters {
  private readonly days = new Map<string, Map<string, Counts>>();
  private readonly keepDays: number;

  constructor(options: DailyCountersOptions = {}) {
    this.keepDays = options.keepDays ?? 62;
  }

  add(day: string, entry: string, amounts: Readonly<Counts>): Promise<void> {
    try {
      checkNames(amounts);
    } catch (error) {
      return Promise.reject(error);
    }
    this.addNow(day, entry, amounts);
    return Promise.resolve();
  }

  read(day: string): Promise<Map<string, Counts>> {
    return Promise.resolve(copy(this.days.get(day)));
  }

  /** Synchronously, for the Redis counters' outage book. */
  addNow(day: string, entry: string, amounts: Readonly<Counts>): void {
    let entries = this.days.get(day);
    if (!entries) {
      this.days.set(day, (entries = new Map()));
      const days = [...this.days.keys()].sort();
      for (const old of days.slice(0, Math.max(0, days.length - this.keepDays))) this.days.delete(old);
    }
    let counts = entries.get(entry);
    if (!counts) entries.set(entry, (counts = {}));
    addInto(counts, amounts);
  }

  /** Takes everything out (the Redis counters hand it to Redis). */
  drain(): Map<string, Map<string, Counts>> {
    const all = new Map(this.days);
    this.days.clear();
    return all;
  }

  dayOf(day: string): ReadonlyMap<string, Counts> | undefined {
    return this.days.get(day);
  }
}

/** HINCRBY of every (field, amount) pair in one step, then the key's expiry. */
const ADD = `
for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 0`;

/**
 * The shared counters: one hash per day, `<prefix>counters:<name>:<yyyy-mm-dd>`, with a field `<entry>#<counter>` per
 * counter, raised by one Lua script (all HINCRBYs of one addition and the expiry at once), read by HGETALL.
 *
 * When Redis fails, additions are kept in this replica and handed to Redis by the next command that succeeds, so
 * nothing is lost; reads answer the last counts this replica read plus its own since (see {@link DailyCounters.read}
 * for limits).
 */
export class RedisDailyCounters implements DailyCounters {
  private readonly addScript: ScriptCall<number>;
  private readonly keepMs: number;
  /** Additions Redis has not taken yet. */
  private readonly pending: MemoryDailyCounters;
  /** The counts of each day as Redis last answered them. */
  private readonly lastRead = new Map<string, Map<string, Counts>>();

  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    private readonly fallback: FallbackPolicy,
    options: DailyCountersOptions = {},
  ) {
    this.keepMs = (options.keepDays ?? 62) * DAY_MS;
    this.pending = new MemoryDailyCounters(options);
    this.addScript = redis.script<number>('counters.add', ADD, 1);
  }

  async add(day: string, entry: string, amounts: Readonly<Counts>): Promise<void> {
    checkNames(amounts);
    try {
      await this.settle();
      await this.send(day, new Map([[entry, { ...amounts }]]));
    } catch {
      this.fallback.used('counters');
      this.pending.addNow(day, entry, amounts);
    }
  }

  async read(day: string, options: { forLimit?: boolean } = {}): Promise<Map<string, Counts>> {
    try {
      await this.settle();
      const hash = await this.redis.run('counters.read', (r) => r.hgetall(this.key(day)));
      const counts = new Map<string, Counts>();
      for (const [field, value] of Object.entries(hash)) {
        const at = field.lastIndexOf(SEPARATOR);
        const entry = field.slice(0, at);
        let row = counts.get(entry);
        if (!row) counts.set(entry, (row = {}));
        row[field.slice(at + 1)] = Number(value);
      }
      this.lastRead.set(day, copy(counts));
      return counts;
    } catch {
      this.fallback.used('counters');
      const counts = copy(this.lastRead.get(day));
      const times = options.forLimit ? this.fallback.replicas : 1;
      for (const [entry, mine] of this.pending.dayOf(day) ?? []) {
        let row = counts.get(entry);
        if (!row) counts.set(entry, (row = {}));
        addInto(row, mine, times);
      }
      return counts;
    }
  }

  private key(day: string): string {
    return `counters:${this.name}:${day}`;
  }

  private async send(day: string, entries: ReadonlyMap<string, Counts>): Promise<void> {
    const args: Array<string | number> = [this.keepMs];
    for (const [entry, counts] of entries)
      for (const [counter, amount] of Object.entries(counts)) args.push(`${entry}${SEPARATOR}${counter}`, amount);
    await this.addScript([this.key(day)], args);
  }

  /** Redis answers again: what this replica counted meanwhile joins the shared counts (taken out first, so concurrent calls do not add it twice). */
  private async settle(): Promise<void> {
    const days = this.pending.drain();
    for (const [day, entries] of days) {
      try {
        await this.send(day, entries);
        days.delete(day);
      } catch (error) {
        for (const [d, e] of days) for (const [entry, counts] of e) this.pending.addNow(d, entry, counts);
        throw error;
      }
    }
  }
}
