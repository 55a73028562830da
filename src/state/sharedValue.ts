import { setTimeout as delay } from 'node:timers/promises';
import type { RedisConnection, ScriptCall } from './connection.js';
import type { FallbackPolicy } from './fallbackPolicy.js';

/** A value and how long it stays good. */
export interface Expiring<T> {
  value: T;
  ttlMs: number;
}

/**
 * A value that is costly or rationed to make and good for a while, e.g. the Graph application token: made once and
 * reused while it is good, by every caller of this process (one in flight at a time) and, with Redis, by every
 * replica (one token request per cluster).
 */
export interface SharedValue<T> {
  /** The current value; `create` makes one when there is none (its errors reach every caller waiting on it). */
  get(create: () => Promise<Expiring<T>>): Promise<T>;
  /** The value this process holds while it is good, else undefined: `get` without a promise when nothing is made. */
  peek(): T | undefined;
}

interface Held<T> {
  value: T;
  until: number;
}

/** The in-process value: kept here, concurrent callers share one `create`. */
export class MemorySharedValue<T> implements SharedValue<T> {
  protected held: Held<T> | undefined;
  private pending: Promise<T> | undefined;

  constructor(protected readonly now: () => number = Date.now) {}

  get(create: () => Promise<Expiring<T>>): Promise<T> {
    if (this.held && this.now() < this.held.until) return Promise.resolve(this.held.value);
    this.pending ??= this.obtain(create).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  peek(): T | undefined {
    return this.held && this.now() < this.held.until ? this.held.value : undefined;
  }

  protected async obtain(create: () => Promise<Expiring<T>>): Promise<T> {
    return this.keep(await create());
  }

  protected keep(made: Expiring<T>): T {
    this.held = { value: made.value, until: this.now() + made.ttlMs };
    return made.value;
  }
}

/** How long a replica making the value holds the lock: longer than one `create` normally takes. */
const LOCK_MS = 10_000;
const POLL_MS = 50;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * The shared value: `<prefix>value:<name>` holds it (JSON, expiring with it). A replica that finds none takes the lock
 * `<prefix>value:<name>:lock` (SET NX PX) and makes it; the others poll until it appears, so one `create` runs per
 * cluster. A lock holder that dies frees the lock after {@link LOCK_MS}. When Redis fails, the replica makes its own.
 */
export class RedisSharedValue<T> extends MemorySharedValue<T> {
  private readonly release: ScriptCall<number>;

  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    private readonly replicaId: string,
    private readonly fallback: FallbackPolicy,
    now?: () => number,
  ) {
    super(now);
    this.release = redis.script('value.unlock', RELEASE, 1);
  }

  protected override async obtain(create: () => Promise<Expiring<T>>): Promise<T> {
    const key = `value:${this.name}`;
    const lock = `${key}:lock`;
    const deadline = this.now() + LOCK_MS + 1_000;
    try {
      for (;;) {
        const found = this.parse(await this.redis.run('value.get', (r) => r.get(key)));
        if (found) return this.keep(found);
        const locked = await this.redis.run('value.lock', (r) => r.set(lock, this.replicaId, 'PX', LOCK_MS, 'NX'));
        if (locked === 'OK') break;
        if (this.now() > deadline) throw new Error(`the replica holding ${lock} made no value in ${LOCK_MS} ms`);
        await delay(POLL_MS);
      }
    } catch {
      this.fallback.used('token');
      return this.keep(await create());
    }
    try {
      // Another replica may have stored it between our read and our lock.
      const meanwhile = this.parse(await this.redis.run('value.get', (r) => r.get(key)).catch(() => null));
      if (meanwhile) return this.keep(meanwhile);
      const made = await create();
      const stored = JSON.stringify({ e: this.now() + made.ttlMs, v: made.value });
      await this.redis
        .run('value.set', (r) => r.set(key, stored, 'PX', Math.max(1, made.ttlMs)))
        .catch(() => this.fallback.used('token'));
      return this.keep(made);
    } finally {
      await this.release([lock], [this.replicaId]).catch(() => undefined);
    }
  }

  private parse(text: string | null): Expiring<T> | undefined {
    if (!text) return undefined;
    try {
      const stored = JSON.parse(text) as { e: number; v: T };
      const ttlMs = stored.e - this.now();
      return ttlMs > 0 ? { value: stored.v, ttlMs } : undefined;
    } catch {
      return undefined;
    }
  }
}
