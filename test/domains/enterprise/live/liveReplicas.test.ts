import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startReplicas, type ReplicaCluster } from '../../../support/replicas.js';
import { wsClient } from '../../../support/ws.js';

/**
 * Live service health on two gateway processes sharing one Redis: one replica holds the leader lease and polls for
 * both, its changes reach every subscriber on either replica once through Redis pub/sub, and a replica that takes the
 * lease over (the leader's subscribers left, or it died) carries on from the last poll's checkpoint.
 */
const INTERVAL_MS = 1_000;
let cluster: ReplicaCluster;
const clients: Client[] = [];

beforeAll(async () => {
  cluster = await startReplicas({ count: 2, env: { GRAPH_POLL_INTERVAL_MS: String(INTERVAL_MS) } });
}, 120_000);
afterAll(async () => {
  for (const c of clients.splice(0)) await c.dispose();
  await cluster?.close();
}, 60_000);

const HEALTH = `subscription Health($services: [ID!]) {
  serviceHealthChanged(services: $services) { kind previousStatus serviceHealth { id status } issue { id isResolved } }
}`;

/** One subscription on one replica; its events as `KIND previous→status`. */
class Subscription {
  readonly events: string[] = [];
  readonly errors: unknown[] = [];
  private readonly dispose: () => void;
  constructor(replica: number, variables?: Record<string, unknown>) {
    const client = wsClient(`${cluster.origins[replica].replace('http:', 'ws:')}/graphql`);
    clients.push(client);
    this.dispose = client.subscribe<any>(
      { query: HEALTH, variables },
      {
        next: (r) => {
          if (r.errors) return void this.errors.push(r.errors);
          const c = r.data.serviceHealthChanged;
          this.events.push(
            `${c.kind} ${c.previousStatus}→${c.issue ? (c.issue.isResolved ? 'resolved' : 'open') : c.serviceHealth.status}`,
          );
        },
        error: (e) => this.errors.push(e),
        complete: () => undefined,
      },
    );
  }
  close(): void {
    this.dispose();
  }
}

const until = (check: () => unknown, timeout = 30_000) => vi.waitFor(check, { timeout, interval: 50 });
const healthPolls = () =>
  cluster.upstreamRequests('graph').filter((r) => r.url.includes('/admin/serviceAnnouncement/healthOverviews?'));

async function metric(replica: number, pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${cluster.origins[replica]}/metrics`)).text();
  return Number(pattern.exec(text)?.[1] ?? 0);
}
const subscriptionsOn = (replica: number) =>
  metric(replica, /gateway_live_subscriptions\{subscription="serviceHealthChanged"\} (\d+)/);
const pollsBy = (replica: number) => metric(replica, /gateway_live_polls_total\{feed="health",outcome="ok"\} (\d+)/);

/** Waits until each replica has its subscriptions open and two polls have run since, so every replica listens. */
async function settled(counts: number[]): Promise<void> {
  await until(async () => expect(await Promise.all(counts.map((_, i) => subscriptionsOn(i)))).toEqual(counts));
  const before = healthPolls().length;
  await until(() => expect(healthPolls().length).toBeGreaterThanOrEqual(before + 2));
}

async function statusOf(replica: number, id: string): Promise<string> {
  const r = await cluster.query(
    replica,
    `query S($id: ID!) { admin { serviceAnnouncement { healthOverview(id: $id) { status } } } }`,
    { id },
  );
  return r.body.data.admin.serviceAnnouncement.healthOverview.status;
}

async function setStatus(replica: number, id: string, status: string): Promise<void> {
  const r = await cluster.query(
    replica,
    `mutation U($id: ID!, $status: ServiceHealthStatus!) { updateServiceHealth(id: $id, input: { status: $status }) { id } }`,
    { id, status },
  );
  expect(r.body.errors).toBeUndefined();
}

async function incident(path: string, body: unknown): Promise<any> {
  const res = await fetch(`${cluster.sandbox.origin}/_sandbox/graph/${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

/** The replica whose poll counter moves: the leader. */
async function leader(): Promise<number> {
  const before = await Promise.all([pollsBy(0), pollsBy(1)]);
  const polls = healthPolls().length;
  await until(() => expect(healthPolls().length).toBeGreaterThan(polls + 1));
  const after = await Promise.all([pollsBy(0), pollsBy(1)]);
  const moved = [0, 1].filter((i) => after[i] > before[i]);
  expect(moved).toHaveLength(1);
  return moved[0];
}

describe('live service health on two replicas sharing Redis', () => {
  it('polls once per interval for the cluster, and every subscriber on both replicas gets each change of an incident exactly once', async () => {
    const subs = [0, 1].flatMap((replica) => [
      new Subscription(replica, { services: ['Exchange'] }),
      new Subscription(replica),
      new Subscription(replica, { services: ['Exchange'] }),
    ]);
    const elsewhere = [
      new Subscription(0, { services: ['SharePoint'] }),
      new Subscription(1, { services: ['SharePoint'] }),
    ];
    await settled([4, 4]);
    const pollsBefore = healthPolls().length;
    const before = await statusOf(0, 'Exchange');

    const { issueId } = await incident('incident', { service: 'Exchange' });
    for (const s of subs) await until(() => expect(s.events).toHaveLength(2));
    await incident(`incident/${issueId}/next`, {});
    for (const s of subs) await until(() => expect(s.events).toHaveLength(4));
    await incident(`incident/${issueId}/next`, {});
    for (const s of subs) await until(() => expect(s.events).toHaveLength(6));
    // Two more polls: nothing arrives twice.
    const polled = healthPolls().length;
    await until(() => expect(healthPolls().length).toBeGreaterThanOrEqual(polled + 2));

    const expected = [
      `STATUS_CHANGED ${before}→SERVICE_DEGRADATION`,
      'ISSUE_OPENED null→open',
      'STATUS_CHANGED SERVICE_DEGRADATION→RESTORING_SERVICE',
      'ISSUE_UPDATED INVESTIGATING→open',
      'STATUS_CHANGED RESTORING_SERVICE→SERVICE_OPERATIONAL',
      'ISSUE_RESOLVED RESTORING_SERVICE→resolved',
    ];
    for (const s of subs) expect([s.events, s.errors]).toEqual([expected, []]);
    for (const s of elsewhere) expect(s.events).toEqual([]);

    // One poller: all polls come from one replica, each an interval or more after the one before (load only delays).
    const polls = healthPolls().slice(pollsBefore);
    const counts = await Promise.all([pollsBy(0), pollsBy(1)]);
    expect(counts.filter((n) => n > 0)).toHaveLength(1);
    expect(counts[0] + counts[1]).toBe(healthPolls().length);
    const gaps = polls.slice(1).map((p, i) => Date.parse(p.at) - Date.parse(polls[i].at));
    expect(gaps.filter((gap) => gap < INTERVAL_MS - 50)).toEqual([]);
    for (const s of [...subs, ...elsewhere]) s.close();
    await until(async () => expect([await subscriptionsOn(0), await subscriptionsOn(1)]).toEqual([0, 0]));
  }, 120_000);

  it("hands polling over when the leader's subscribers leave, and again when the leader dies, reporting the changes made between two leaders' polls", async () => {
    const subs = [0, 1].map((replica) => [
      new Subscription(replica, { services: ['Planner'] }),
      new Subscription(replica, { services: ['Planner'] }),
    ]);
    await settled([2, 2]);
    const first = await leader();
    const other = 1 - first;
    const before = await statusOf(other, 'Planner');

    // The leader's subscribers leave: it releases the lease; a change made before the other replica's first poll
    // is still reported, from the first leader's checkpoint.
    for (const s of subs[first]) s.close();
    await until(async () => expect(await subscriptionsOn(first)).toBe(0));
    await setStatus(other, 'Planner', 'EXTENDED_RECOVERY');
    for (const s of subs[other])
      await until(() => expect(s.events).toEqual([`STATUS_CHANGED ${before}→EXTENDED_RECOVERY`]));
    expect(await leader()).toBe(other);

    // Subscribers on both again; the leader dies without releasing: after its lease lapses the survivor polls.
    const back = [new Subscription(first, { services: ['Planner'] })];
    const open = [0, 0];
    open[first] = 1;
    open[other] = 2;
    await settled(open);
    cluster.replicas[other].child.kill('SIGKILL');
    await cluster.replicas[other].exited;
    await setStatus(first, 'Planner', 'SERVICE_OPERATIONAL');
    await until(() => expect(back[0].events).toEqual(['STATUS_CHANGED EXTENDED_RECOVERY→SERVICE_OPERATIONAL']));
    const polls = healthPolls().length;
    await until(() => expect(healthPolls().length).toBeGreaterThanOrEqual(polls + 2));
    expect(back[0].events).toHaveLength(1);
    expect(await pollsBy(first)).toBeGreaterThan(0);
    back[0].close();
  }, 120_000);
});
