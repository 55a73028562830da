import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { GatewayMetrics } from '../../src/observability/metrics.js';
import { createSharedState, type SharedState } from '../../src/state/index.js';
import { startRedis, type TestRedis } from './redis.js';

/**
 * A real Redis for one test file (started before its tests, stopped after), and Redis shared states on it that are
 * closed after each test. `states(n)` gives n replicas' states under one fresh key prefix: an empty Redis, in effect.
 */
export function useRedisStates(): {
  redis: () => TestRedis;
  states: (n: number, prefix?: string) => Promise<SharedState[]>;
} {
  let redis: TestRedis;
  const opened: SharedState[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis?.close());
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  return {
    redis: () => redis,
    async states(n, prefix = `test:${randomUUID()}:`) {
      const states = await Promise.all(
        Array.from({ length: n }, () =>
          createSharedState({
            redis: { url: redis.url, keyPrefix: prefix, commandTimeoutMs: 500 },
            replicas: n,
            metrics: new GatewayMetrics(),
            log: pino({ level: 'silent' }),
          }),
        ),
      );
      opened.push(...states);
      return states;
    },
  };
}
