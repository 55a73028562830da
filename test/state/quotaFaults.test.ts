import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicas, type ReplicaCluster } from '../support/replicas.js';

/**
 * The OMDb quota through every kind of Redis fault in a row, on three gateway processes: the replicas hold slices
 * of the day's quota ahead (src/state/quota.ts), so whatever Redis does, OMDb never sees more than the quota.
 */
const QUOTA = 30;
const TITLE = 'query ($id: ID!) { title(imdbId: $id) { imdbId } }';
/** 90 distinct ids: each lookup is one OMDb request or none (unknown ids still cost one, as on OMDb). */
const IDS = Array.from({ length: 90 }, (_, i) => `tt${9_100_000 + i}`);

let cluster: ReplicaCluster;
beforeAll(async () => {
  cluster = await startReplicas({
    count: 3,
    env: { OMDB_DAILY_QUOTA: String(QUOTA), REDIS_COMMAND_TIMEOUT_MS: '200' },
    sandbox: { omdbDailyQuota: 1_000 },
  });
}, 120_000);
afterAll(() => cluster?.close(), 60_000);

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const allReady = () =>
  until(
    async () => (await cluster.readiness()).every((r) => r.sharedState.status === 'ready'),
    'every replica to see Redis ready',
  );

describe('the OMDb quota across Redis up, killed, restarted empty, stopped and continued', () => {
  it(`lets OMDb see at most ${QUOTA} of 90 distinct lookups, and serves every one it sent`, async () => {
    let next = 0;
    const outcomes: Array<{ phase: string; served: boolean; code?: string }> = [];
    // 6 lookups in each phase but the last, so every fault meets a quota that is not spent yet.
    /** `rounds` × 3 lookups, round-robin over the replicas, 3 at a time. */
    const phase = async (name: string, rounds = 2) => {
      for (let round = 0; round < rounds; round++) {
        const answers = await Promise.all([0, 1, 2].map((r) => cluster.query(r, TITLE, { id: IDS[next++] })));
        for (const a of answers)
          outcomes.push({ phase: name, served: !a.body.errors, code: a.body.errors?.[0]?.extensions?.code });
      }
    };
    const sentSoFar: Record<string, number> = {};
    const mark = (name: string) => (sentSoFar[name] = cluster.upstreamRequests('omdb').length);

    await phase('up');
    mark('up');
    await cluster.redis.stop();
    await phase('killed');
    mark('killed');
    await cluster.redis.start();
    await allReady();
    await phase('restarted empty');
    mark('restarted empty');
    cluster.redis.pause();
    try {
      await phase('stopped');
      mark('stopped');
    } finally {
      cluster.redis.resume();
    }
    await allReady();
    // The rest: 66 lookups, more than what the quota has left.
    await phase('continued', 22);
    mark('continued');

    const sent = cluster.upstreamRequests('omdb');
    const served = outcomes.filter((o) => o.served).length;
    // Only quota refusals; every lookup that was not refused went to OMDb exactly once, and nothing else did.
    expect(outcomes.filter((o) => !o.served && o.code !== 'UPSTREAM_QUOTA_EXHAUSTED')).toEqual([]);
    expect(new Set(sent.map((r) => new URL(r.url, 'http://x').searchParams.get('i'))).size).toBe(sent.length);
    expect(served).toBe(sent.length);
    expect(sent.length).toBeLessThanOrEqual(QUOTA);
    // Redis answers again and every replica asked in the last phase: the whole quota is spent, none of it idle.
    expect(sent.length).toBe(QUOTA);
    console.info(
      `[quota faults] OMDb requests after each phase: ${JSON.stringify(sentSoFar)}; served ${served} of ${outcomes.length}, quota ${QUOTA}`,
    );
  }, 120_000);
});
