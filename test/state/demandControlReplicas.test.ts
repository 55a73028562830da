import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_MOVIES } from '../../src/sandbox/omdb/knownTitles.js';
import { startReplicas, type ReplicaCluster } from '../support/replicas.js';
import { wsClient } from '../support/ws.js';

/**
 * Demand control across replicas on one Redis: one client's cost budget (CLIENT_COST_PER_MINUTE) and its caps
 * (CLIENT_MAX_SUBSCRIPTIONS) hold for the cluster, not per replica. The client is the address, 127.0.0.1, for all.
 */
let cluster: ReplicaCluster;
beforeAll(async () => {
  cluster = await startReplicas({
    count: 3,
    env: { CLIENT_COST_PER_MINUTE: '100', CLIENT_MAX_SUBSCRIPTIONS: '5', RESPONSE_CACHE_MAX_BYTES: '0' },
  });
}, 120_000);
afterAll(() => cluster?.close(), 60_000);

/** One title lookup: 1 object and 1 upstream request, a cost of 11 (each a distinct title: no request is shared). */
const LOOKUP = 'query ($id: ID!) { title(imdbId: $id) { imdbId } }';
const IDS = KNOWN_MOVIES.slice(0, 30).map((m) => m.id);
const TICKS = 'subscription { serverTime(intervalMs: 60000, count: 2) }';

describe('demand control on three replicas', () => {
  it("admits one client's operations on every replica together up to its CLIENT_COST_PER_MINUTE, and refuses the rest with Retry-After", async () => {
    const answers = await Promise.all(IDS.map((id, i) => cluster.query(i % 3, LOOKUP, { id })));
    const admitted = answers.filter((a) => a.status === 200 && !a.body.errors);
    const refused = answers.filter((a) => a.body.errors?.[0]?.extensions?.code === 'RATE_LIMITED');
    expect(admitted[0].body.data.title.imdbId).toMatch(/^tt/);
    // 9 × 11 = 99 fit in 100; the bucket refills 100 a minute, so a burst that lasts a fraction of a second adds none.
    expect(admitted).toHaveLength(9);
    expect(refused).toHaveLength(21);
    expect(refused[0].status).toBe(429);
    expect(refused[0].body.errors![0].extensions).toMatchObject({
      limit: 'CLIENT_COST_PER_MINUTE',
      max: 100,
      cost: 11,
    });
    expect(refused[0].body.errors![0].extensions!.retryAfterSeconds).toBeGreaterThan(0);
    // Every replica refused some: the budget is the cluster's.
    expect(new Set(answers.map((a, i) => (a.status === 429 ? i % 3 : -1)).filter((r) => r >= 0)).size).toBe(3);
    expect(cluster.upstreamRequests('omdb').filter((r) => /[?&]i=tt/.test(r.url))).toHaveLength(9);
    expect(refused[0].headers.get('retry-after')).toBe(
      String(refused[0].body.errors![0].extensions!.retryAfterSeconds),
    );
  }, 60_000);

  it('holds one client to CLIENT_MAX_SUBSCRIPTIONS=5 across two replicas, and lets one more in once one ends', async () => {
    const clients: Client[] = [0, 1].map((i) => wsClient(`${cluster.origins[i].replace('http', 'ws')}/graphql`));
    const outcomes: Array<Promise<'refused' | 'ended'>> = [];
    const started: Array<{ cancel: () => void }> = [];
    try {
      for (let i = 0; i < 8; i++) {
        let cancel = () => {};
        const outcome = new Promise<'refused' | 'ended'>((resolve) => {
          cancel = clients[i % 2].subscribe(
            { query: TICKS },
            {
              // A RATE_LIMITED refusal is the operation's one result, then `complete`.
              next: (r) => r.errors && resolve(JSON.stringify(r.errors).includes('RATE_LIMITED') ? 'refused' : 'ended'),
              error: (e) => resolve(JSON.stringify(e).includes('RATE_LIMITED') ? 'refused' : 'ended'),
              complete: () => resolve('ended'),
            },
          );
        });
        outcomes.push(outcome);
        started.push({ cancel });
        // One at a time, so that which ones are refused is deterministic: the 6th, 7th and 8th. The next goes once this
        // one is refused or has started (each replica's gateway_graphql_subscriptions_started_total, summed).
        let answered = false;
        void outcome.then(() => (answered = true));
        await until(async () => answered || (await startedOn([0, 1])) >= Math.min(i + 1, 5));
      }
      const settled = await Promise.all(outcomes.slice(5).map((o) => o));
      expect(settled).toEqual(['refused', 'refused', 'refused']);
      started[0].cancel();
      await outcomes[0].catch(() => undefined);
      // Its lease is released on the replica that held it: a new one fits, on the other replica.
      let again: 'refused' | 'ended' | 'open' = 'refused';
      for (let attempt = 0; attempt < 20 && again === 'refused'; attempt++) {
        await new Promise((r) => setTimeout(r, 100));
        // Open once it has started on replica 1 (its count of started subscriptions grows), unless refused first.
        const before = await startedOn([1]);
        let answer: 'refused' | 'ended' | undefined;
        const cancel = clients[1].subscribe(
          { query: TICKS },
          {
            next: (r) =>
              void (r.errors && (answer = JSON.stringify(r.errors).includes('RATE_LIMITED') ? 'refused' : 'ended')),
            error: (e) => void (answer = JSON.stringify(e).includes('RATE_LIMITED') ? 'refused' : 'ended'),
            complete: () => void (answer ??= 'ended'),
          },
        );
        started.push({ cancel });
        await until(async () => answer !== undefined || (await startedOn([1])) > before);
        again = answer ?? 'open';
      }
      expect(again).toBe('open');
    } finally {
      started.forEach((s) => s.cancel());
      await Promise.all(clients.map((c) => c.dispose()));
    }
  }, 60_000);
});

/** Subscriptions started on these replicas so far, from their /metrics. */
async function startedOn(replicas: number[]): Promise<number> {
  const texts = await Promise.all(replicas.map(async (r) => (await fetch(`${cluster.origins[r]}/metrics`)).text()));
  return texts.reduce(
    (sum, text) => sum + Number(/gateway_graphql_subscriptions_started_total (\d+)/.exec(text)?.[1] ?? 0),
    0,
  );
}

/** Polls until `check` holds, failing after 20 s. */
async function until(check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
