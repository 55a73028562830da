import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../src/observability/metrics.js';
import { BREAKER_TIMEOUTS } from '../../src/state/connection.js';
import { createSharedState, type RedisState } from '../../src/state/index.js';
import { startRedis, type TestRedis } from '../support/redis.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.close());

/** Sum of a counter's values whose labels pass `keep`. */
async function total(
  metric: { get(): Promise<{ values: Array<{ value: number; labels: Record<string, unknown> }> }> },
  keep: (labels: Record<string, unknown>) => boolean = () => true,
) {
  return (await metric.get()).values.filter((v) => keep(v.labels)).reduce((sum, v) => sum + v.value, 0);
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a Redis that hangs (SIGSTOP: the connection stays open, nothing answers)', () => {
  it('is noticed after the first timeouts: later uses take their fallback without sending a command, and one probe closes the circuit after SIGCONT', async () => {
    const metrics = new GatewayMetrics();
    const state = (await createSharedState({
      redis: { url: redis.url, keyPrefix: `hang:${randomUUID()}:`, commandTimeoutMs: 200 },
      replicas: 2,
      metrics,
      log: pino({ level: 'silent' }),
    })) as RedisState;
    const cache = state.cache<{ v: number }>('titles', { ttlMs: 60_000, max: 100 });
    await cache.set('a', { v: 1 });
    expect(state.status()).toEqual({ store: 'redis', status: 'ready' });
    const sent = async () =>
      (await total(metrics.redisCommandDuration as never)) +
      (await total(metrics.redisCommandErrors, (l) => l.reason !== 'circuit_open'));
    const sentBefore = await sent();

    redis.pause();
    try {
      // The first uses wait out the command timeout and open the circuit.
      for (let i = 0; i < BREAKER_TIMEOUTS; i++) expect(await cache.get(`miss-${i}`)).toBeUndefined();
      expect(state.connection.circuitOpen).toBe(true);
      expect(state.status().status).toBe('down');
      const fallbacksBefore = await total(metrics.sharedStateFallbacks);
      const probesBefore = await total(metrics.redisProbes);

      // 200 more uses during the hang: every one falls back, none is sent (only the probes are).
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => cache.get(`during-${i}`)));
      expect(answers.every((a) => a === undefined)).toBe(true);
      expect(await total(metrics.sharedStateFallbacks)).toBe(fallbacksBefore + 200);
      expect(await total(metrics.redisCommandErrors, (l) => l.reason === 'circuit_open')).toBe(200);
      const probes = (await total(metrics.redisProbes)) - probesBefore;
      expect(await sent()).toBe(sentBefore + BREAKER_TIMEOUTS + probes);
    } finally {
      redis.resume();
    }

    await until(() => !state.connection.circuitOpen, 'a probe to close the circuit');
    expect(state.status()).toEqual({ store: 'redis', status: 'ready' });
    const errorsAfter = await total(metrics.redisCommandErrors);
    expect(await cache.get('after')).toBeUndefined();
    expect(await total(metrics.redisCommandErrors)).toBe(errorsAfter);
    await state.close();
  });
});
