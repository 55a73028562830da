import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayMetrics } from '../observability/metrics.js';

/** Options of one {@link RedisConnection}. */
export interface RedisConnectionOptions {
  /** `redis://[user:password@]host:port/db`, or `rediss://…` for TLS. */
  url: string;
  /** Put before every key and channel, so several gateways (or other apps) can share one Redis. @default 'gateway:' */
  keyPrefix: string;
  /** Longest one command may take before it counts as failed and the caller falls back. @default 500 */
  commandTimeoutMs: number;
  metrics: GatewayMetrics;
  log: Logger;
}

/** A Lua script bound to its keys' and arguments' values. */
export type ScriptCall<T> = (keys: readonly string[], args: ReadonlyArray<string | number>) => Promise<T>;

/** Why a command failed, as the error metric labels it; `circuit_open`: not sent, Redis is known to hang. */
export type RedisFailure = 'timeout' | 'unavailable' | 'error' | 'circuit_open';

/** What `/readyz` reports about the shared store. */
export interface SharedStateStatus {
  store: 'memory' | 'redis';
  /** `ready`: commands go to Redis; `down`: the per-replica fallback policy is in force. */
  status: 'ready' | 'down';
}

/**
 * ioredis, loaded with the first connection: a gateway without `REDIS_URL` does not carry it (≈ 7 MB of resident
 * memory on Node 24 with yaml, bench/PROFILE.md "Eleventh pass").
 */
const loadRedis = () => (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;

/** How often a Redis that stays down is reported again. */
const REPEAT_WARNING_MS = 30_000;

/**
 * Consecutive timed-out commands that open the circuit. One slow command (a large MGET) is not a hang; two in a row
 * with nothing answered between them are, and the third waits for nothing.
 */
export const BREAKER_TIMEOUTS = 2;

/** The error of a command refused because the circuit is open: the caller takes its fallback at once. */
export class RedisCircuitOpenError extends Error {
  constructor() {
    super('Redis is not answering (circuit open): the command was not sent');
    this.name = 'RedisCircuitOpenError';
  }
}

/**
 * The gateway's Redis connection (ioredis): every command is bounded by a timeout, timed and counted in
 * `/metrics`, and fails at once while the connection is down (no offline queue), so callers fall back instead of
 * waiting. The client reconnects on its own; the first success after an outage logs the recovery.
 *
 * A Redis that hangs (stopped, swapping, a network that drops packets) keeps its TCP connection, so ioredis sees no
 * outage and every command would wait out the command timeout. A circuit breaker notices instead: after
 * {@link BREAKER_TIMEOUTS} timeouts in a row it opens, and every command fails at once without being sent (reason
 * `circuit_open`), so each use takes its fallback in microseconds. While open, one `PING` at a time probes Redis (one
 * command timeout each, then a pause of the same length); the first that answers closes the circuit and runs the
 * session listeners, which write back what the replica did on its own.
 */
export class RedisConnection {
  readonly client: Redis;
  readonly keyPrefix: string;
  private subscriber: Redis | undefined;
  private up = false;
  private warnedAt = 0;
  private failures = 0;
  private closing = false;
  /** Timeouts since the last answer. */
  private timeouts = 0;
  /** Open: Redis hangs; commands are refused unsent until a probe answers. */
  private open = false;
  private probeTimer: NodeJS.Timeout | undefined;
  /**
   * How many times the connection became ready: a new session may be a Redis that restarted and lost its data, so
   * users that can restore what they know (the rate limiters' own slots) do so once per session.
   */
  session = 0;
  private readonly sessionListeners: Array<() => void> = [];

  constructor(private readonly options: RedisConnectionOptions) {
    this.keyPrefix = options.keyPrefix;
    this.client = new (loadRedis())(options.url, {
      keyPrefix: options.keyPrefix,
      commandTimeout: options.commandTimeoutMs,
      connectTimeout: Math.max(1_000, options.commandTimeoutMs * 4),
      // A command while disconnected fails at once: the caller's fallback answers, nothing queues up.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2_000),
      lazyConnect: true,
    });
    options.metrics.redisUp.set(0);
    this.client.on('ready', () => {
      this.session++;
      this.markUp();
      this.closeCircuit(false);
      for (const listener of this.sessionListeners) listener();
    });
    this.client.on('error', (error: Error) => this.markDown('unavailable', error));
    this.client.on('close', () => this.markDown('unavailable', new Error('connection closed')));
  }

  /** Connects, waiting at most `ms`; a Redis that is not there yet leaves the gateway on its fallback until it is. */
  async connect(ms: number): Promise<void> {
    const connected = this.client.connect().catch(() => undefined);
    await Promise.race([connected, new Promise((resolve) => setTimeout(resolve, ms).unref())]);
  }

  /** Calls `listener` each time the connection becomes ready (again): the moment to write back what Redis may lack. */
  onSession(listener: () => void): void {
    this.sessionListeners.push(listener);
  }

  status(): SharedStateStatus {
    return { store: 'redis', status: this.up && !this.open ? 'ready' : 'down' };
  }

  /** Whether the circuit is open: Redis hangs and commands are refused unsent. */
  get circuitOpen(): boolean {
    return this.open;
  }

  /**
   * Runs one command (or script, or pipeline) against Redis, timed under `name`. Rejects when Redis is down, slow
   * or answers with an error; the caller applies its failure policy.
   */
  async run<T>(name: string, command: (redis: Redis) => Promise<T>): Promise<T> {
    if (this.open) {
      this.options.metrics.redisCommandErrors.inc({ command: name, reason: 'circuit_open' });
      throw new RedisCircuitOpenError();
    }
    const started = performance.now();
    try {
      const result = await command(this.client);
      this.options.metrics.redisCommandDuration.observe({ command: name }, (performance.now() - started) / 1000);
      this.timeouts = 0;
      this.markUp();
      return result;
    } catch (error) {
      const reason = failureOf(error);
      this.options.metrics.redisCommandErrors.inc({ command: name, reason });
      this.markDown(reason, error as Error, name);
      if (reason === 'timeout' && ++this.timeouts >= BREAKER_TIMEOUTS) this.openCircuit();
      throw error;
    }
  }

  /**
   * A Lua script as one timed command: sent once, then run by its SHA (ioredis resends the text when Redis lost
   * it). Keys get the key prefix like any other key.
   */
  script<T>(name: string, lua: string, numberOfKeys: number): ScriptCall<T> {
    const command = `gateway_${name.replace(/\W/g, '_')}`;
    if (!(command in this.client)) this.client.defineCommand(command, { lua, numberOfKeys });
    return (keys, args) =>
      this.run(name, (r) =>
        (r as unknown as Record<string, (...a: Array<string | number>) => Promise<T>>)[command](...keys, ...args),
      );
  }

  /** A second connection in subscriber mode (Redis requires one for SUBSCRIBE), created on first use. */
  subscriberConnection(): Redis {
    if (!this.subscriber) {
      // Channels carry no key prefix in Redis; callers add it themselves.
      this.subscriber = this.client.duplicate({ keyPrefix: '', enableOfflineQueue: true, lazyConnect: false });
      this.subscriber.on('error', () => undefined);
    }
    return this.subscriber;
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.probeTimer);
    await Promise.allSettled([this.client.quit(), this.subscriber?.quit()]);
    this.client.disconnect();
    this.subscriber?.disconnect();
  }

  private openCircuit(): void {
    if (this.open || this.closing) return;
    this.open = true;
    this.options.metrics.redisUp.set(0);
    this.options.log.warn(
      { store: 'redis', timeouts: this.timeouts },
      'redis does not answer: circuit open, every use takes its fallback at once until a probe answers',
    );
    this.scheduleProbe();
  }

  /** One PING after a pause of one command timeout; it answers (close) or times out (probe again). */
  private scheduleProbe(): void {
    this.probeTimer = setTimeout(() => {
      this.options.metrics.redisProbes.inc();
      this.client.ping().then(
        () => this.closeCircuit(true),
        () => {
          if (this.open && !this.closing) this.scheduleProbe();
        },
      );
    }, this.options.commandTimeoutMs);
    this.probeTimer.unref();
  }

  /** `resumed`: Redis answered on the same connection, so nothing else tells the users to write back. */
  private closeCircuit(resumed: boolean): void {
    if (!this.open) return;
    this.open = false;
    this.timeouts = 0;
    clearTimeout(this.probeTimer);
    this.markUp();
    this.options.log.info({ store: 'redis' }, 'redis answers again: circuit closed');
    if (resumed) for (const listener of this.sessionListeners) listener();
  }

  private markUp(): void {
    if (!this.up && !this.open) {
      this.up = true;
      this.options.metrics.redisUp.set(1);
    }
    if (this.warnedAt === 0) return;
    this.warnedAt = 0;
    this.options.log.info(
      { store: 'redis', failures: this.failures },
      'redis is back: shared quota, rate limits and cache are in force again',
    );
    this.failures = 0;
  }

  private markDown(reason: RedisFailure, error: Error, command?: string): void {
    if (this.closing) return;
    this.failures++;
    const now = Date.now();
    // A slow command does not mean the connection is gone; only a closed one is "down" for /readyz.
    if (reason === 'unavailable' && this.up) {
      this.up = false;
      this.options.metrics.redisUp.set(0);
    }
    if (now - this.warnedAt < REPEAT_WARNING_MS) return;
    this.warnedAt = now;
    this.options.log.warn(
      { store: 'redis', reason, command, err: error.message, failures: this.failures },
      'redis unavailable or slow: quota and rate limits fall back to per-replica shares (limit / GATEWAY_REPLICAS), the cache to this replica',
    );
  }
}

function failureOf(error: unknown): RedisFailure {
  const message = (error as Error)?.message ?? '';
  if (/timed? ?out/i.test(message)) return 'timeout';
  if (/writeable|closed|connect|ECONN|EPIPE|ETIMEDOUT|ENOTFOUND/i.test(message)) return 'unavailable';
  return 'error';
}
