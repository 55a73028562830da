import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_MOVIES } from '../../src/sandbox/omdb/knownTitles.js';
import { startReplicas, type ReplicaCluster } from '../support/replicas.js';

/**
 * Three gateway processes on one sandbox and one Redis share the OMDb quota, the title cache, chat requests per
 * minute and the Graph token: the limits hold for the cluster, not per replica.
 */
let cluster: ReplicaCluster;
beforeAll(async () => {
  // What the title cache and the quota do (a title held by every replica's own copy) is specified without the response
  // cache, which would answer repeats before the OMDb client sees them (test/pipeline/rules/responseCache.test.ts has its own).
  cluster = await startReplicas({
    count: 3,
    env: { OMDB_DAILY_QUOTA: '10', DEEPSEEK_RPM: '6', RESPONSE_CACHE_MAX_BYTES: '0' },
  });
}, 120_000);
afterAll(() => cluster?.close(), 60_000);

const TITLE = 'query ($id: ID!) { title(imdbId: $id) { imdbId title year } }';
const IDS = KNOWN_MOVIES.slice(0, 30).map((m) => m.id);
/** Replica that looked up each of IDS, and whether it got the title. */
const served = new Map<string, { replica: number; ok: boolean }>();

describe('three replicas on one Redis', () => {
  it('report Redis as their shared state in /readyz and /metrics', async () => {
    for (const ready of await cluster.readiness())
      expect(ready.sharedState).toEqual({ store: 'redis', status: 'ready' });
    const metrics = await (await fetch(`${cluster.origins[0]}/metrics`)).text();
    expect(metrics).toContain('gateway_redis_up 1');
    expect(metrics).toContain('# TYPE gateway_redis_command_duration_seconds histogram');
    expect(metrics).toContain('# TYPE gateway_redis_command_errors_total counter');
  });

  it('with OMDB_DAILY_QUOTA=10, 30 distinct title lookups round-robin send exactly 10 OMDb requests; the other 20 are refused without one', async () => {
    const answers = await Promise.all(IDS.map((id, i) => cluster.query(i % 3, TITLE, { id })));
    answers.forEach((a, i) => served.set(IDS[i], { replica: i % 3, ok: !!a.body.data?.title }));
    const ok = answers.filter((a) => a.body.data?.title);
    const refused = answers.filter((a) => a.body.errors?.[0]?.extensions?.code === 'UPSTREAM_QUOTA_EXHAUSTED');
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(20);
    expect(refused[0].body.errors![0].message).toContain('OMDb quota of 10 requests per UTC day');
    const requests = cluster.upstreamRequests('omdb');
    expect(requests).toHaveLength(10);
    // Each request asked for a title that one of the successful lookups returned: none was sent twice.
    const asked = requests.map((r) => new URL(r.url, 'http://x').searchParams.get('i'));
    expect(new Set(asked)).toEqual(new Set(ok.map((a) => a.body.data.title.imdbId)));
  });

  it('serves a title fetched through one replica from the two others with no further OMDb request (quota spent or not)', async () => {
    const [id, { replica: fetchedBy }] = [...served].find(([, s]) => s.ok)!;
    const before = cluster.upstreamRequests('omdb').length;
    for (const replica of [0, 1, 2].filter((r) => r !== fetchedBy)) {
      const answer = await cluster.query(replica, TITLE, { id });
      expect(answer.body.errors).toBeUndefined();
      expect(answer.body.data.title.imdbId).toBe(id);
    }
    expect(cluster.upstreamRequests('omdb')).toHaveLength(before);
  });

  it('with DEEPSEEK_RPM=6, 18 completions spread over the replicas reach the upstream at most 6 times in any 60 s window', async () => {
    const completion =
      'mutation { createChatCompletion(input: { provider: "deepseek", model: "deepseek-flash", messages: [{ role: USER, content: "Say hi" }] }) { content } }';
    const answers = await Promise.all(Array.from({ length: 18 }, (_, i) => cluster.query(i % 3, completion)));
    // Chat calls only: each replica also read deepseek's GET /models at start-up.
    const sent = cluster.upstreamRequests('deepseek').filter((r) => r.url.endsWith('/chat/completions'));
    const times = sent.map((r) => Date.parse(r.at)).sort((a, b) => a - b);
    for (const start of times)
      expect(times.filter((t) => t >= start && t < start + 60_000).length).toBeLessThanOrEqual(6);
    expect(sent).toHaveLength(6);
    expect(answers.filter((a) => a.body.data?.createChatCompletion?.content)).toHaveLength(6);
    // Beyond the limit the answer comes at once: the next slot is a minute away, past CHAT_RATE_LIMIT_WAIT_MS.
    const limited = answers.filter((a) => a.body.errors?.[0]?.extensions?.code === 'UPSTREAM_RATE_LIMITED');
    expect(limited).toHaveLength(12);
    expect(limited[0].body.errors![0].message).toContain('at most 6 requests per minute to deepseek (DEEPSEEK_RPM)');
  });

  it('requests one Graph application token for the 3 replicas', async () => {
    const health = '{ admin { serviceAnnouncement { healthOverviews(first: 2) { nodes { id status } } } } }';
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => cluster.query(i % 3, health)));
    for (const a of answers) expect(a.body.errors).toBeUndefined();
    expect(cluster.upstreamRequests('login')).toHaveLength(1);
    const bearers = new Set(cluster.upstreamRequests('graph').map((r) => r.headers.authorization));
    expect(bearers.size).toBe(1);
  });

  it('keeps answering while Redis is stopped and restarted under load, then the quota again, restored into the emptied Redis', async () => {
    // Every replica holds this one: one fetched it, the two others took it from Redis in the test before.
    const [cached] = [...served].find(([, s]) => s.ok)!;
    const omdbBefore = cluster.upstreamRequests('omdb').length;
    let done = 0;
    const results: Array<{ ok: boolean; code?: string }> = [];
    // Three clients, one per replica, 30 lookups each of a title every replica holds; bounded in count.
    const load = Promise.all(
      [0, 1, 2].map(async (replica) => {
        for (let n = 0; n < 30; n++) {
          const a = await cluster.query(replica, TITLE, { id: cached });
          results.push({ ok: a.body.data?.title?.imdbId === cached, code: a.body.errors?.[0]?.extensions?.code });
          done++;
        }
      }),
    );
    await until(() => done >= 10);
    await cluster.redis.stop();
    const uncached = IDS.find((id) => !served.get(id)!.ok)!;
    // Redis down: 0 remained of the shared quota, so each replica's share is 0 — refused at once, nothing sent.
    const refused = await cluster.query(1, TITLE, { id: uncached });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_QUOTA_EXHAUSTED');
    for (const ready of await cluster.readiness())
      expect(ready.sharedState).toEqual({ store: 'redis', status: 'down' });
    await until(() => done >= 50);
    await cluster.redis.start();
    await load;
    expect(results).toHaveLength(90);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(cluster.upstreamRequests('omdb')).toHaveLength(omdbBefore);

    await until(async () => (await cluster.readiness()).every((r) => r.sharedState.status === 'ready'), 20_000);
    const metrics = await (await fetch(`${cluster.origins[1]}/metrics`)).text();
    expect(metrics).toMatch(/gateway_redis_command_duration_seconds_count\{command="quota.reserve"\} [1-9]/);
    expect(metrics).toMatch(/gateway_redis_command_errors_total\{command="[a-z.]+",reason="[a-z]+"\} [1-9]/);
    expect(metrics).toMatch(/gateway_shared_state_fallbacks_total\{use="quota"\} [1-9]/);
    // The restarted Redis is empty, but the replicas write the day back: the quota stays spent on every replica.
    const refusedAfter = await Promise.all([0, 1, 2].map((r) => cluster.query(r, TITLE, { id: uncached })));
    for (const a of refusedAfter) expect(a.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_QUOTA_EXHAUSTED');
    expect(cluster.upstreamRequests('omdb')).toHaveLength(omdbBefore);
  }, 90_000);
});

/** Polls until `check` holds, failing after `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
