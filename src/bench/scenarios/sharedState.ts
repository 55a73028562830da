import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved } from '../lib/load.js';
import { REDIS_SERVER, startRedisProc } from '../lib/redis.js';
import type { Results, Sizes } from '../lib/results.js';
import { startGatewayProc, type GraphQLProc, type SandboxProc } from '../lib/stack.js';
import { singleTitleQuery } from '../operations.js';
import { forgetRecord, graphqlTarget } from './throughput.js';

export const SCENARIO_SHARED_STATE = '6. Shared state in Redis';

/**
 * What Redis adds to a title lookup: the same gateway build with shared state in process and in a local Redis
 * (REDIS_URL), measured interleaved in one run. Uncached (OMDB_CACHE_MAX=0): every lookup spends a quota unit, from the
 * slice the replica holds ahead (src/state/quota.ts), so only the lookup that claims the next slice makes a round
 * trip. Cached: a hit in the replica's own copy, no round trip. The goal: Redis adds at most 10 % to the uncached p50.
 */
export async function runSharedState(
  results: Results,
  sb: SandboxProc,
  sizes: Sizes,
  running?: { gateway: GraphQLProc; cached: GraphQLProc },
): Promise<void> {
  if (!existsSync(REDIS_SERVER)) {
    results.note(SCENARIO_SHARED_STATE, `skipped: no ${REDIS_SERVER} (apt-get install redis-server)`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'bench-redis-'));
  const redis = await startRedisProc(dir);
  try {
    const shared = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'bench:' };
    // In-process twins of their own, started with the Redis ones so both sides are equally fresh; `running` (--tiny
    // only) saves their start-up.
    const [memory, viaRedis, memoryCached, viaRedisCached] = await Promise.all([
      running?.gateway ?? startGatewayProc(sb.origin, { OMDB_CACHE_MAX: '0' }),
      startGatewayProc(sb.origin, { OMDB_CACHE_MAX: '0', ...shared }),
      running?.cached ?? startGatewayProc(sb.origin),
      startGatewayProc(sb.origin, shared),
    ]);
    const started = running ? [viaRedis, viaRedisCached] : [memory, viaRedis, memoryCached, viaRedisCached];
    const pids = (g: typeof memory) => [g.proc.pid, sb.proc.pid];
    const pairs = [
      {
        label: 'uncached title lookup (quota reserved per lookup)',
        a: memory,
        b: viaRedis,
        goalRatio: UNCACHED_GOAL_RATIO,
      },
      { label: 'cached title lookup', a: memoryCached, b: viaRedisCached, goalRatio: undefined },
    ];
    for (const { label, a, b, goalRatio } of pairs) {
      const f = await interleaved(
        {
          memory: graphqlTarget(a.url, singleTitleQuery, pids(a)),
          redis: graphqlTarget(b.url, singleTitleQuery, pids(b)),
        },
        sizes.rounds,
        sizes.loadSeconds,
        sizes.connections,
        forgetRecord(sb),
        sizes.warmUp,
      );
      const name = `${SCENARIO_SHARED_STATE}: ${label}`;
      const baselineName = 'same gateway, shared state in process';
      const goal =
        goalRatio === undefined ? {} : { goal: `ratio <= ${goalRatio}`, met: f.redis.p50 <= f.memory.p50 * goalRatio };
      results.add({
        name,
        metric: 'latency p50',
        unit: 'ms',
        gateway: f.redis.p50,
        baseline: f.memory.p50,
        baselineName,
        ...goal,
      });
      results.add({
        name,
        metric: 'latency p99',
        unit: 'ms',
        gateway: f.redis.p99,
        baseline: f.memory.p99,
        baselineName,
      });
      results.add({
        name,
        metric: 'added latency p50 (Redis − in process)',
        unit: 'ms',
        gateway: round(f.redis.p50 - f.memory.p50),
        baseline: 0,
        baselineName,
      });
      results.add({
        name,
        metric: 'added latency p99 (Redis − in process)',
        unit: 'ms',
        gateway: round(f.redis.p99 - f.memory.p99),
        baseline: 0,
        baselineName,
      });
    }
    await Promise.all(started.map((g) => g.proc.stop()));
    results.note(
      SCENARIO_SHARED_STATE,
      `Four gateway processes on one sandbox and one local redis-server (${REDIS_SERVER}, no persistence): in process vs REDIS_URL, with the cache off (every lookup reserves a unit of the shared OMDb quota) and on (hits served from the replica's own copy). ${sizes.connections} connections.`,
    );
  } finally {
    await redis.proc.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
/** Uncached title lookup p50 through Redis over in process. */
const UNCACHED_GOAL_RATIO = 1.1;
