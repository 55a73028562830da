/**
 * Shared state: what several replicas of the gateway must agree on (the OMDb daily quota, chat requests per minute,
 * the title cache, the Graph application token, whole responses, a leader lease, a fan-out channel, daily counters, chat documents). One interface per concern, each
 * with an in-process implementation (the default: one replica, zero configuration) and a Redis one (`REDIS_URL`),
 * both run through the same test suite (test/state/sharedState.test.ts). Server, domains and upstream clients import
 * this module; it imports none of them.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { RedisConfig } from '../config/env.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import { MemoryClientBudgets, RedisClientBudgets, type ClientBudgets, type ClientBudgetsOptions } from './budgets.js';
import { MemoryCache, RedisCache, type SharedCache, type SharedCacheOptions } from './cache.js';
import { MemoryChannels, RedisChannels, type FanOut } from './channel.js';
import { MemoryDailyCounters, RedisDailyCounters, type DailyCounters, type DailyCountersOptions } from './counters.js';
import { MemoryDocumentStore, RedisDocumentStore, type DocumentStore, type DocumentStoreOptions } from './documents.js';
import { RedisConnection, type SharedStateStatus } from './connection.js';
import {
  MemoryResponseStore,
  RedisResponseStore,
  type ResponseStore,
  type ResponseStoreOptions,
} from './responseStore.js';
import { FallbackPolicy } from './fallbackPolicy.js';
import { MemoryHoldings, RedisHoldings, type SharedHoldings, type SharedHoldingsOptions } from './holdings.js';
import { MemoryLeases, RedisLeaderLease, type LeaderLease, type LeaderLeaseOptions } from './lease.js';
import { MemoryDailyQuota, RedisDailyQuota, type DailyQuota, type DailyQuotaOptions } from './quota.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter, type RateLimiterOptions } from './rateLimit.js';
import { MemorySharedValue, RedisSharedValue, type SharedValue } from './sharedValue.js';

export type { BudgetVerdict, ClientBudgets, ClientBudgetsOptions } from './budgets.js';
export type { SharedCache, SharedCacheOptions } from './cache.js';
export type { HeldShare, SharedHoldings, SharedHoldingsOptions } from './holdings.js';
export type { FanOut } from './channel.js';
export type { Counts, DailyCounters, DailyCountersOptions } from './counters.js';
export type {
  AddOutcome,
  CancelOutcome,
  DocumentStore,
  DocumentStoreOptions,
  ProviderUsage,
  StoredDocument,
} from './documents.js';
export type { SharedStateStatus } from './connection.js';
export type { LeaderLease, LeaderLeaseOptions } from './lease.js';
export type { DailyQuota, DailyQuotaOptions, QuotaReservation } from './quota.js';
export type { RateLimiter, RateLimiterOptions, RateVerdict } from './rateLimit.js';
export type { Expiring, SharedValue } from './sharedValue.js';
export type { ResponseStore, ResponseStoreOptions } from './responseStore.js';

/**
 * The shared state of one gateway process. Each factory names a thing (`omdb`, `deepseek`, …); replicas that use the
 * same name share it. Within one process, the same name gives the same object.
 */
export interface SharedState {
  /** This process's identity among the replicas (lease holders and rate-limit slots carry it). */
  readonly replicaId: string;
  /** What `/readyz` reports. */
  status(): SharedStateStatus;
  dailyQuota(name: string, options: DailyQuotaOptions): DailyQuota;
  rateLimiter(name: string, options: RateLimiterOptions): RateLimiter;
  cache<V extends object>(name: string, options: SharedCacheOptions): SharedCache<V>;
  sharedValue<T>(name: string): SharedValue<T>;
  /** A new holder of the lease `name` (each call is a distinct candidate). */
  leaderLease(name: string, options: LeaderLeaseOptions): LeaderLease;
  channel<M>(name: string): FanOut<M>;
  dailyCounters(name: string, options?: DailyCountersOptions): DailyCounters;
  /** Whole responses with tags (the response cache). */
  responseStore(name: string, options: ResponseStoreOptions): ResponseStore;
  /** Chat documents: records, the texts the gateway extracted, usage per provider. */
  documents(name: string, options: DocumentStoreOptions): DocumentStore;
  /** What each client may spend per minute and per day (demand control). */
  clientBudgets(name: string, options: ClientBudgetsOptions): ClientBudgets;
  /** What clients hold at once across the replicas (the `CLIENT_MAX_*` caps). */
  holdings(name: string, options?: SharedHoldingsOptions): SharedHoldings;
  close(): Promise<void>;
}

/** One object per name and kind, made on first use. */
class Registry {
  private readonly made = new Map<string, unknown>();
  once<T>(kind: string, name: string, make: () => T): T {
    const key = `${kind}:${name}`;
    if (!this.made.has(key)) this.made.set(key, make());
    return this.made.get(key) as T;
  }
}

/** Everything in this process: exactly the gateway's behaviour without Redis. */
export class MemoryState implements SharedState {
  readonly replicaId = randomUUID();
  private readonly registry = new Registry();
  private readonly leases = new MemoryLeases();
  private readonly channels = new MemoryChannels();

  status(): SharedStateStatus {
    return { store: 'memory', status: 'ready' };
  }
  dailyQuota(name: string, options: DailyQuotaOptions): DailyQuota {
    return this.registry.once('quota', name, () => new MemoryDailyQuota(options));
  }
  rateLimiter(name: string, options: RateLimiterOptions): RateLimiter {
    return this.registry.once('ratelimit', name, () => new MemoryRateLimiter(options));
  }
  cache<V extends object>(name: string, options: SharedCacheOptions): SharedCache<V> {
    return this.registry.once('cache', name, () => new MemoryCache<V>(options));
  }
  sharedValue<T>(name: string): SharedValue<T> {
    return this.registry.once('value', name, () => new MemorySharedValue<T>());
  }
  leaderLease(name: string, options: LeaderLeaseOptions): LeaderLease {
    return this.leases.lease(name, randomUUID(), options);
  }
  channel<M>(name: string): FanOut<M> {
    return this.channels.channel<M>(name);
  }
  dailyCounters(name: string, options?: DailyCountersOptions): DailyCounters {
    return this.registry.once('counters', name, () => new MemoryDailyCounters(options));
  }
  responseStore(name: string, options: ResponseStoreOptions): ResponseStore {
    return this.registry.once('responses', name, () => new MemoryResponseStore(options));
  }
  documents(name: string, options: DocumentStoreOptions): DocumentStore {
    return this.registry.once('documents', name, () => new MemoryDocumentStore(options));
  }
  clientBudgets(name: string, options: ClientBudgetsOptions): ClientBudgets {
    return this.registry.once('budgets', name, () => new MemoryClientBudgets(options));
  }
  holdings(name: string): SharedHoldings {
    return this.registry.once('holdings', name, () => new MemoryHoldings());
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

export interface RedisStateOptions extends RedisConfig {
  /** GATEWAY_REPLICAS: the divisor of limits while Redis fails. */
  replicas: number;
  metrics: GatewayMetrics;
  log: Logger;
}

/** Everything in one Redis (or Valkey) shared by the replicas, with the per-use fallback of each concern. */
export class RedisState implements SharedState {
  readonly replicaId = randomUUID();
  readonly connection: RedisConnection;
  private readonly rebuildMs: number;
  private readonly registry = new Registry();
  private readonly fallback: FallbackPolicy;
  private readonly channels: RedisChannels;
  private readonly quotas: RedisDailyQuota[] = [];
  private readonly limiters: RedisRateLimiter[] = [];
  private readonly budgets: RedisClientBudgets[] = [];
  private readonly held: RedisHoldings[] = [];

  constructor(options: RedisStateOptions) {
    this.connection = new RedisConnection(options);
    // Long enough for every replica to reconnect (ioredis retries at most 2 s apart) and put back its claims.
    this.rebuildMs = Math.max(3_000, options.commandTimeoutMs * 10);
    this.fallback = new FallbackPolicy(options.replicas, options.metrics);
    this.channels = new RedisChannels(this.connection, this.fallback, options.commandTimeoutMs);
  }

  status(): SharedStateStatus {
    return this.connection.status();
  }
  dailyQuota(name: string, options: DailyQuotaOptions): DailyQuota {
    return this.registry.once('quota', name, () => {
      const quota = new RedisDailyQuota(this.connection, name, this.replicaId, this.fallback, {
        rebuildMs: this.rebuildMs,
        ...options,
      });
      this.quotas.push(quota);
      return quota;
    });
  }
  rateLimiter(name: string, options: RateLimiterOptions): RateLimiter {
    return this.registry.once('ratelimit', name, () => {
      const limiter = new RedisRateLimiter(this.connection, name, this.replicaId, this.fallback, options);
      this.limiters.push(limiter);
      return limiter;
    });
  }
  cache<V extends object>(name: string, options: SharedCacheOptions): SharedCache<V> {
    return this.registry.once('cache', name, () => new RedisCache<V>(this.connection, name, this.fallback, options));
  }
  sharedValue<T>(name: string): SharedValue<T> {
    return this.registry.once(
      'value',
      name,
      () => new RedisSharedValue<T>(this.connection, name, this.replicaId, this.fallback),
    );
  }
  leaderLease(name: string, options: LeaderLeaseOptions): LeaderLease {
    return new RedisLeaderLease(this.connection, name, `${this.replicaId}:${randomUUID()}`, this.fallback, options);
  }
  channel<M>(name: string): FanOut<M> {
    return this.registry.once('channel', name, () => this.channels.channel<M>(name));
  }
  dailyCounters(name: string, options?: DailyCountersOptions): DailyCounters {
    return this.registry.once(
      'counters',
      name,
      () => new RedisDailyCounters(this.connection, name, this.fallback, options),
    );
  }
  responseStore(name: string, options: ResponseStoreOptions): ResponseStore {
    return this.registry.once(
      'responses',
      name,
      () => new RedisResponseStore(this.connection, name, this.fallback, options),
    );
  }
  documents(name: string, options: DocumentStoreOptions): DocumentStore {
    return this.registry.once(
      'documents',
      name,
      () => new RedisDocumentStore(this.connection, name, this.fallback, options),
    );
  }
  clientBudgets(name: string, options: ClientBudgetsOptions): ClientBudgets {
    return this.registry.once('budgets', name, () => {
      const budgets = new RedisClientBudgets(this.connection, name, this.fallback, options);
      this.budgets.push(budgets);
      return budgets;
    });
  }
  holdings(name: string, options?: SharedHoldingsOptions): SharedHoldings {
    return this.registry.once('holdings', name, () => {
      const holdings = new RedisHoldings(this.connection, name, this.replicaId, this.fallback, options);
      this.held.push(holdings);
      return holdings;
    });
  }
  /**
   * Gives back the quota and rate-limit slots this replica holds unspent and the shares its clients hold, writes the
   * budgets' last corrections, then closes the connection.
   */
  async close(): Promise<void> {
    await Promise.all([...this.quotas, ...this.limiters].map((held) => held.release()));
    await Promise.all([...this.budgets.map((b) => b.flush()), ...this.held.map((h) => h.close())]);
    return this.connection.close();
  }
}

/**
 * The shared state `REDIS_URL` asks for: Redis, connected (waiting up to a few command timeouts; a Redis that is not
 * there yet leaves the gateway on its fallback until it is), or this process alone.
 */
export async function createSharedState(options: {
  redis?: RedisConfig;
  replicas: number;
  metrics: GatewayMetrics;
  log: Logger;
}): Promise<SharedState> {
  if (!options.redis) return new MemoryState();
  const state = new RedisState({
    ...options.redis,
    replicas: options.replicas,
    metrics: options.metrics,
    log: options.log,
  });
  await state.connection.connect(Math.max(2_000, options.redis.commandTimeoutMs * 4));
  if (state.status().status !== 'ready') {
    options.log.warn(
      { store: 'redis' },
      'redis is not reachable at start-up: running on per-replica limits until it is',
    );
  }
  return state;
}
