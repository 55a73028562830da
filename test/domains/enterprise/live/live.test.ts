import { once } from 'node:events';
import { WebSocket } from 'ws';
import type { Client } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../../src/config/env.js';
import { enterpriseExamples } from '../../../../src/domains/enterprise/index.js';
import type { LiveHealth } from '../../../../src/domains/enterprise/live/feed.js';
import { startGateway } from '../../../../src/app/gateway.js';
import { MemoryState } from '../../../../src/state/index.js';
import type { PollReport } from '../../../../src/domains/enterprise/live/poller.js';
import { LogCapture, startTestGateway, type TestGateway } from '../../../support/gateway.js';
import { exampleOperation } from '../../../support/examples.js';
import { ManualClock } from '../../../support/pollClock.js';
import { wsClient } from '../../../support/ws.js';
import { graphCalls, resetSandbox } from '../../../support/graphRequests.js';

/** One subscription's payloads, in arrival order. */
class Subscription<T = any> {
  readonly events: T[] = [];
  readonly errors: unknown[] = [];
  private readonly dispose: () => void;

  constructor(client: Client, query: string, variables?: Record<string, unknown>) {
    this.dispose = client.subscribe<T>(
      { query, variables },
      {
        next: (r) => (r.errors ? this.errors.push(r.errors) : this.events.push(r.data as T)),
        error: (e) => this.errors.push(e),
        complete: () => undefined,
      },
    );
  }
  close(): void {
    this.dispose();
  }
}

const HEALTH = `subscription Health($services: [ID!]) {
  serviceHealthChanged(services: $services) { kind previousStatus detectedAt serviceHealth { id service status } issue { id status isResolved } }
}`;
const MESSAGES = `subscription Messages($services: [ID!]) { serviceMessagePosted(services: $services) { id lastModifiedDateTime services } }`;

const isHealthPoll = (call: string) => call.startsWith('GET /admin/serviceAnnouncement/healthOverviews?');
const isMessagesPoll = (call: string) => call.startsWith('GET /admin/serviceAnnouncement/messages?');

let gw: TestGateway;
let live: LiveHealth;
const clock = new ManualClock();
const clients: Client[] = [];

function client(): Client {
  const c = wsClient(gw.gateway.wsUrl);
  clients.push(c);
  return c;
}

/** Waits until `count` subscriptions are open and the baseline poll is done (the next poll is scheduled). */
async function joined(count: number): Promise<void> {
  await vi.waitFor(
    () => {
      expect(live.subscriberCount).toBe(count);
      expect(live.poller.scheduled).toBe(true);
    },
    { timeout: 15_000, interval: 20 },
  );
}

/** One polling interval passes: the poll runs and reports. */
async function pollOnce(): Promise<PollReport> {
  const report = once(live.poller, 'poll');
  clock.fire();
  return ((await report) as [PollReport])[0];
}

async function mutate(query: string): Promise<void> {
  const r = await gw.query(query);
  expect(r.body.errors).toBeUndefined();
}

async function sandboxControl<T = any>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${gw.sandbox.origin}/_sandbox/${path}`, { method: 'POST', body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

/** A service's status as the gateway reads it now. */
async function statusOf(id: string): Promise<string> {
  const r = await gw.query(
    `query S($id: ID!) { admin { serviceAnnouncement { healthOverview(id: $id) { status } } } }`,
    { id },
  );
  return r.body.data.admin.serviceAnnouncement.healthOverview.status;
}

const until = (check: () => void) => vi.waitFor(check, { timeout: 15_000, interval: 20 });

/** A graphql-transport-ws connection spoken by hand, keeping every `next` message's text as it came. */
async function rawSocket(
  url: string,
): Promise<{ received: string[]; subscribe(id: string, query: string, variables?: unknown): void; close(): void }> {
  const ws = new WebSocket(url, 'graphql-transport-ws');
  const received: string[] = [];
  await once(ws, 'open');
  ws.send(JSON.stringify({ type: 'connection_init' }));
  await new Promise<void>((resolve) =>
    ws.on('message', (data: Buffer) => {
      const text = data.toString();
      if (text === '{"type":"connection_ack"}') return resolve();
      received.push(text);
    }),
  );
  return {
    received,
    subscribe: (id, query, variables) =>
      ws.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } })),
    close: () => ws.close(),
  };
}

beforeAll(async () => {
  gw = await startTestGateway({ GRAPH_POLL_INTERVAL_MS: '60000' }, {}, { domains: { liveHealth: { clock } } });
  live = gw.gateway.services.domains.liveHealth;
});
afterAll(() => gw?.close());
beforeEach(() => resetSandbox(gw));
afterEach(async () => {
  for (const c of clients.splice(0)) await c.dispose();
  await until(() => expect(live.subscriberCount).toBe(0));
});

describe('one shared poll for every live subscriber', () => {
  it('100 subscribers over three polling intervals cause three health polls and three messages polls, and none after the last one leaves', async () => {
    const sockets = [client(), client(), client(), client()];
    const subs = Array.from(
      { length: 100 },
      (_, i) => new Subscription(sockets[i % 4], i % 5 === 0 ? MESSAGES : HEALTH),
    );
    await joined(100);
    expect((await pollOnce()).outcome).toBe('ok');
    expect((await pollOnce()).outcome).toBe('ok');

    const calls = graphCalls(gw);
    expect(calls.filter(isHealthPoll)).toEqual(
      Array(3).fill(
        'GET /admin/serviceAnnouncement/healthOverviews?$select=id,service,status&$expand=issues($select=id,status,isResolved,lastModifiedDateTime)',
      ),
    );
    expect(calls.filter(isMessagesPoll)).toEqual(
      Array(3).fill(
        'GET /admin/serviceAnnouncement/messages?$select=id,lastModifiedDateTime,services&$top=50&$orderby=lastModifiedDateTime desc',
      ),
    );
    expect(calls).toHaveLength(6);
    // Nothing changed upstream, so nobody heard anything: the baseline is not replayed.
    for (const s of subs) expect([s.events, s.errors]).toEqual([[], []]);

    const metrics = await (await fetch(`${gw.gateway.origin}/metrics`)).text();
    expect(metrics).toContain('gateway_live_subscriptions{subscription="serviceHealthChanged"} 80');
    expect(metrics).toContain('gateway_live_subscriptions{subscription="serviceMessagePosted"} 20');
    expect(metrics).toMatch(/gateway_live_polls_total\{feed="health",outcome="ok"\} [1-9]/);

    for (const s of subs) s.close();
    await until(() => expect(live.subscriberCount).toBe(0));
    expect(live.poller.scheduled).toBe(false);
    expect(clock.waiting).toBe(0);
    expect(graphCalls(gw)).toHaveLength(6);
  });
});

describe('serviceHealthChanged', () => {
  it('delivers a status change made through updateServiceHealth to every matching subscriber at the next poll, and to none outside its filter', async () => {
    const socket = client();
    const exchange = [1, 2, 3].map(() => new Subscription(socket, HEALTH, { services: ['Exchange'] }));
    const byName = new Subscription(client(), HEALTH, { services: ['exchange online'] });
    const everything = new Subscription(client(), HEALTH);
    const sharePoint = [1, 2].map(() => new Subscription(socket, HEALTH, { services: ['SharePoint'] }));
    await joined(7);

    const before = await statusOf('Exchange');
    await mutate('mutation { updateServiceHealth(id: "Exchange", input: { status: SERVICE_DEGRADATION }) { id } }');
    gw.clearUpstreamRequests();
    expect(await pollOnce()).toMatchObject({ outcome: 'ok', changes: 1 });
    for (const s of [...exchange, byName, everything]) {
      await until(() => expect(s.events).toHaveLength(1));
      expect(s.events[0].serviceHealthChanged).toMatchObject({
        kind: 'STATUS_CHANGED',
        previousStatus: before,
        serviceHealth: { id: 'Exchange', service: 'Exchange Online', status: 'SERVICE_DEGRADATION' },
        issue: null,
      });
    }
    // The payload asked only for what the poll read: no request beyond the poll itself.
    expect(graphCalls(gw).filter((c) => !isHealthPoll(c))).toEqual([]);

    // SharePoint's subscribers hear first of SharePoint's change: the Exchange one never reached them.
    await mutate('mutation { updateServiceHealth(id: "SharePoint", input: { status: INVESTIGATING }) { id } }');
    await pollOnce();
    for (const s of sharePoint) {
      await until(() => expect(s.events).toHaveLength(1));
      expect(s.events[0].serviceHealthChanged.serviceHealth.id).toBe('SharePoint');
    }
    await until(() => expect(everything.events).toHaveLength(2));
    for (const s of [...exchange, byName]) expect(s.events).toHaveLength(1);
  });

  it('follows a scripted incident from opened through updated to resolved, loading fields beyond the poll once per poll for all subscribers', async () => {
    const query = `subscription { serviceHealthChanged(services: ["Exchange"]) {
      kind previousStatus serviceHealth { status } issue { id title status isResolved posts { description { content } } } } }`;
    const socket = client();
    const subs = [1, 2, 3, 4, 5].map(() => new Subscription(socket, query));
    await joined(5);

    const before = await statusOf('Exchange');
    const incident = await sandboxControl<{ issueId: string; next: string }>('graph/incident', { service: 'Exchange' });
    const seen: Array<[string, string | null, number]> = [];
    for (let step = 0; step < 3; step++) {
      if (step > 0) await sandboxControl(`graph/incident/${incident.issueId}/next`, {});
      gw.clearUpstreamRequests();
      await pollOnce();
      for (const s of subs) await until(() => expect(s.events).toHaveLength(2 * (step + 1)));
      // One GET of the issue with the union of what the subscribers select, shared by all five.
      expect(graphCalls(gw).filter((c) => !isHealthPoll(c))).toEqual([
        `GET /admin/serviceAnnouncement/issues/${incident.issueId}?$select=id,title,status,isResolved,posts`,
      ]);
    }
    for (const e of subs[0].events) {
      const c = e.serviceHealthChanged;
      seen.push([c.kind, c.previousStatus, c.issue?.posts.length ?? 0]);
    }
    expect(seen).toEqual([
      ['STATUS_CHANGED', before, 0],
      ['ISSUE_OPENED', null, 1],
      ['STATUS_CHANGED', 'SERVICE_DEGRADATION', 0],
      ['ISSUE_UPDATED', 'INVESTIGATING', 2],
      ['STATUS_CHANGED', 'RESTORING_SERVICE', 0],
      ['ISSUE_RESOLVED', 'RESTORING_SERVICE', 3],
    ]);
    const resolved = subs[0].events[5].serviceHealthChanged;
    expect(resolved.issue).toMatchObject({
      id: incident.issueId,
      status: 'SERVICE_RESTORED',
      isResolved: true,
      title: 'Users may be unable to access Exchange Online',
    });
    for (const s of subs) expect(s.events).toEqual(subs[0].events);
  });

  it('keeps its subscribers through a 429, waits at least Retry-After, and reports the change with the next successful poll', async () => {
    const sub = new Subscription(client(), HEALTH, { services: ['microsoftteams'] });
    await joined(1);
    const res = await fetch(`${gw.sandbox.origin}/_sandbox/faults`, {
      method: 'POST',
      body: JSON.stringify({ upstream: 'graph', status: 429, retryAfter: 90, match: 'healthOverviews?' }),
    });
    expect(res.status).toBe(200);
    await mutate(
      'mutation { updateServiceHealth(id: "microsoftteams", input: { status: SERVICE_INTERRUPTION }) { id } }',
    );
    gw.clearUpstreamRequests();

    expect(await pollOnce()).toMatchObject({ outcome: 'rate_limited', changes: 0, nextDelayMs: 90_000 });
    expect(clock.delay).toBe(90_000);
    // One request, no retries inside the poll: the poller's own schedule is the retry.
    expect(gw.upstreamRequests('graph').map((r) => r.status)).toEqual([429]);
    expect(live.subscriberCount).toBe(1);
    expect(sub.events).toEqual([]);

    expect(await pollOnce()).toMatchObject({ outcome: 'ok', changes: 1, nextDelayMs: 60_000 });
    await until(() => expect(sub.events).toHaveLength(1));
    expect(sub.events[0].serviceHealthChanged).toMatchObject({
      kind: 'STATUS_CHANGED',
      serviceHealth: { id: 'microsoftteams', status: 'SERVICE_INTERRUPTION' },
    });
    expect(sub.errors).toEqual([]);
    const metrics = await (await fetch(`${gw.gateway.origin}/metrics`)).text();
    expect(metrics).toMatch(/gateway_live_polls_total\{feed="health",outcome="rate_limited"\} 1/);
    expect(metrics).toMatch(/gateway_live_changes_total\{kind="STATUS_CHANGED"\} [1-9]/);
  });

  it('sends a subscriber who joins later only the changes after it joined', async () => {
    const early = new Subscription(client(), HEALTH, { services: ['Planner'] });
    await joined(1);
    await mutate('mutation { updateServiceHealth(id: "Planner", input: { status: VERIFYING_SERVICE }) { id } }');
    await pollOnce();
    await until(() => expect(early.events).toHaveLength(1));

    const late = new Subscription(client(), HEALTH, { services: ['Planner'] });
    await joined(2);
    await mutate(
      'mutation { updateServiceHealth(id: "Planner", input: { status: POST_INCIDENT_REVIEW_PUBLISHED }) { id } }',
    );
    await pollOnce();
    await until(() => expect(early.events).toHaveLength(2));
    await until(() => expect(late.events).toHaveLength(1));
    expect(late.events[0].serviceHealthChanged).toMatchObject({
      previousStatus: 'VERIFYING_SERVICE',
      serviceHealth: { status: 'POST_INCIDENT_REVIEW_PUBLISHED' },
    });
  });

  it("runs its GraphiQL tab: Degrade's change reaches LiveHealth", async () => {
    const [subscription, mutation] = ['LiveHealth', 'Degrade'].map(
      (name) => exampleOperation(name, enterpriseExamples).query,
    );
    const sub = new Subscription(client(), subscription);
    await joined(1);
    await mutate(mutation);
    await pollOnce();
    await until(() => expect(sub.events).toHaveLength(1));
    expect(sub.events[0].serviceHealthChanged).toMatchObject({
      kind: 'STATUS_CHANGED',
      serviceHealth: { id: 'Exchange', status: 'SERVICE_DEGRADATION' },
      issue: null,
    });
  });

  it('refuses a bad services filter before any upstream request', async () => {
    const c = client();
    for (const [services, text] of [
      [[], 'an empty list matches no service'],
      [[' '], 'is not a service id or name'],
    ] as const) {
      const sub = new Subscription(c, HEALTH, { services });
      await until(() => expect(sub.errors).toHaveLength(1));
      expect(sub.errors[0]).toEqual([
        expect.objectContaining({
          message: expect.stringContaining(text),
          extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
        }),
      ]);
    }
    expect(gw.upstreamRequests('graph')).toEqual([]);
    expect(live.subscriberCount).toBe(0);
  });
});

describe('serviceMessagePosted', () => {
  it('delivers new and updated message center posts to the subscribers whose services they name', async () => {
    const query = `subscription M($services: [ID!]) { serviceMessagePosted(services: $services) { id title services lastModifiedDateTime } }`;
    const byId = new Subscription(client(), query, { services: ['Exchange'] });
    const everything = new Subscription(client(), query);
    const other = new Subscription(client(), query, { services: ['SharePoint'] });
    await joined(3);

    const posted = await sandboxControl<{ id: string }>('graph/messages', {
      title: 'Exchange: new retention defaults',
      services: ['Exchange Online'],
    });
    gw.clearUpstreamRequests();
    expect(await pollOnce()).toMatchObject({ outcome: 'ok', changes: 1 });
    for (const s of [byId, everything]) {
      await until(() => expect(s.events).toHaveLength(1));
      expect(s.events[0].serviceMessagePosted).toMatchObject({
        id: posted.id,
        title: 'Exchange: new retention defaults',
        services: ['Exchange Online'],
      });
    }
    // `title` is beyond what the poll reads: one GET for all subscribers.
    expect(graphCalls(gw).filter((c) => !isHealthPoll(c) && !isMessagesPoll(c))).toEqual([
      `GET /admin/serviceAnnouncement/messages/${posted.id}?$select=id,title,services,lastModifiedDateTime`,
    ]);

    await sandboxControl('graph/messages', {
      id: posted.id,
      title: '(Updated) Exchange: new retention defaults',
      services: ['Exchange Online', 'SharePoint Online'],
    });
    await pollOnce();
    for (const s of [byId, everything, other]) {
      await until(() =>
        expect(s.events.at(-1)?.serviceMessagePosted.title).toBe('(Updated) Exchange: new retention defaults'),
      );
    }
    expect([byId.events.length, everything.events.length, other.events.length]).toEqual([2, 2, 1]);
  });
});

describe('live service health with real timers', () => {
  let real: TestGateway;
  beforeAll(async () => {
    real = await startTestGateway({ GRAPH_POLL_INTERVAL_MS: '100' });
  });
  afterAll(() => real?.close());

  it('streams an incident the sandbox steps through on its own timer', async () => {
    const c = wsClient(real.gateway.wsUrl);
    const sub = new Subscription(
      c,
      `subscription { serviceHealthChanged(services: ["Intune"]) { kind issue { id } } }`,
    );
    const live = real.gateway.services.domains.liveHealth;
    // The baseline poll is done once the next one is scheduled.
    await until(() => expect([live.poller.pollCount > 0, live.poller.scheduled]).toEqual([true, true]));
    const res = await fetch(`${real.sandbox.origin}/_sandbox/graph/incident`, {
      method: 'POST',
      body: JSON.stringify({ service: 'Intune', intervalMs: 250 }),
    });
    const { issueId } = (await res.json()) as { issueId: string };
    await vi.waitFor(() => expect(sub.events.map((e) => e.serviceHealthChanged.kind)).toContain('ISSUE_RESOLVED'), {
      timeout: 20_000,
      interval: 50,
    });
    const issueKinds = sub.events.filter((e) => e.serviceHealthChanged.issue).map((e) => e.serviceHealthChanged.kind);
    // A slow poll on a loaded machine may see two steps at once; the order and the ends never change.
    expect([
      ['ISSUE_OPENED', 'ISSUE_UPDATED', 'ISSUE_RESOLVED'],
      ['ISSUE_OPENED', 'ISSUE_RESOLVED'],
    ]).toContainEqual(issueKinds);
    expect(sub.events.every((e) => !e.serviceHealthChanged.issue || e.serviceHealthChanged.issue.id === issueId)).toBe(
      true,
    );
    await c.dispose();
    await until(() => expect(live.poller.scheduled).toBe(false));
    const after = real.upstreamRequests('graph').length;
    await new Promise((r) => setTimeout(r, 400));
    expect(real.upstreamRequests('graph')).toHaveLength(after);
  });
});

/** Two gateways in this process over one `MemoryState`, as Redis is for replicas in several (liveReplicas.test.ts). */
async function withTwoReplicas(
  run: (pair: {
    first: TestGateway;
    replicas: LiveHealth[];
    clocks: ManualClock[];
    sockets: Client[];
  }) => Promise<void>,
): Promise<void> {
  const state = new MemoryState();
  const clocks = [new ManualClock(), new ManualClock()];
  const first = await startTestGateway(
    { GRAPH_POLL_INTERVAL_MS: '60000' },
    {},
    { domains: { liveHealth: { state, clock: clocks[0] } } },
  );
  const second = await startGateway({
    config: loadConfig({ PORT: '0', LOG_LEVEL: 'warn', GRAPH_POLL_INTERVAL_MS: '60000' }),
    sandbox: first.sandbox,
    logDestination: new LogCapture(),
    domains: { liveHealth: { state, clock: clocks[1] } },
  });
  const replicas = [first.gateway, second].map((g) => g.services.domains.liveHealth);
  const sockets = [wsClient(first.gateway.wsUrl), wsClient(second.wsUrl)];
  try {
    await run({ first, replicas, clocks, sockets });
  } finally {
    for (const s of sockets) await s.dispose();
    await second.close();
    await first.close();
  }
}

describe('two replicas sharing a leader lease and a change bus', () => {
  it('poll once per interval in total, every subscriber on either replica gets each change once, and a new leader misses no change', async () => {
    await withTwoReplicas(async ({ first, replicas, clocks, sockets }) => {
      // The first replica's subscribers come first, so it takes the lease.
      const onFirst = [1, 2].map(() => new Subscription(sockets[0], HEALTH, { services: ['Yammer'] }));
      await until(() => expect(replicas[0].poller.pollCount).toBe(1));
      const onSecond = [1, 2].map(() => new Subscription(sockets[1], HEALTH, { services: ['Yammer'] }));
      const subs = [onFirst[0], onSecond[0], onFirst[1], onSecond[1]];
      await until(() => replicas.forEach((r) => expect(r.poller.scheduled).toBe(true)));
      const tick = async (replica: number) => {
        const report = once(replicas[replica].poller, 'poll');
        clocks[replica].fire();
        if (replica === 0) await report;
        else await until(() => expect(clocks[1].waiting).toBe(1));
      };

      await first.query('mutation { updateServiceHealth(id: "Yammer", input: { status: FALSE_POSITIVE }) { id } }');
      await tick(1);
      await tick(0);
      for (const s of subs) await until(() => expect(s.events).toHaveLength(1));
      expect(graphCalls(first).filter(isHealthPoll)).toHaveLength(2);
      expect([replicas[0].poller.pollCount, replicas[1].poller.pollCount]).toEqual([2, 0]);

      // The leader's subscribers leave: the other replica takes the lease over and carries on from the leader's last
      // poll (the lease's checkpoint), so the change made between the two leaders' polls is reported too.
      subs[0].close();
      subs[2].close();
      await until(() => expect(replicas[0].poller.scheduled).toBe(false));
      await first.query(
        'mutation { updateServiceHealth(id: "Yammer", input: { status: INVESTIGATION_SUSPENDED }) { id } }',
      );
      await tick(1);
      await until(() => expect(replicas[1].poller.pollCount).toBe(1));
      await first.query(
        'mutation { updateServiceHealth(id: "Yammer", input: { status: SERVICE_OPERATIONAL }) { id } }',
      );
      await tick(1);
      await until(() => expect(subs[1].events).toHaveLength(3));
      expect(
        subs[1].events
          .slice(1)
          .map((e) => [e.serviceHealthChanged.previousStatus, e.serviceHealthChanged.serviceHealth.status]),
      ).toEqual([
        ['FALSE_POSITIVE', 'INVESTIGATION_SUSPENDED'],
        ['INVESTIGATION_SUSPENDED', 'SERVICE_OPERATIONAL'],
      ]);
      expect(subs[3].events).toEqual(subs[1].events);
      expect(subs[0].events).toHaveLength(1);
      expect(graphCalls(first).filter(isHealthPoll)).toHaveLength(4);
    });
  });
});

describe('two replicas: message posts wanted by a follower only', () => {
  it("has the leader poll messages for the follower's subscribers, which get each new post once", async () => {
    await withTwoReplicas(async ({ first, replicas, clocks, sockets }) => {
      await resetSandbox(first);
      // The first poll done, not only begun (pollCount counts a poll as it starts): a follower that subscribes while
      // its health read is in flight has that same poll read messages too.
      const polled = once(replicas[0].poller, 'poll');
      new Subscription(sockets[0], HEALTH);
      await polled;
      expect(replicas[0].poller.pollCount).toBe(1);
      expect(graphCalls(first).filter(isMessagesPoll)).toHaveLength(0);
      const posts = new Subscription(sockets[1], MESSAGES);
      await until(() => expect(clocks[1].waiting).toBe(1));
      const tick = async () => {
        // The leader schedules its next poll after it has handled the last one: on a loaded machine, later than this.
        await until(() => expect(clocks[0].waiting).toBe(1));
        const report = once(replicas[0].poller, 'poll');
        clocks[0].fire();
        await report;
      };
      await tick();
      expect(graphCalls(first).filter(isMessagesPoll)).toHaveLength(1);
      const res = await fetch(`${first.sandbox.origin}/_sandbox/graph/messages`, {
        method: 'POST',
        body: JSON.stringify({ title: 'Teams: new meeting defaults', services: ['Microsoft Teams'] }),
      });
      const posted = (await res.json()) as { id: string };
      await tick();
      await until(() => expect(posts.events).toHaveLength(1));
      expect(posts.events[0].serviceMessagePosted.id).toBe(posted.id);
      await tick();
      expect(posts.events).toHaveLength(1);
      expect(replicas[1].poller.pollCount).toBe(0);
    });
  });
});

describe('a gateway with delegated permissions only', () => {
  it("refuses live subscriptions, which poll with the gateway's own token, naming the variables to set", async () => {
    const delegated = await startTestGateway({ GRAPH_BASE_URL: 'http://127.0.0.1:9/graph' });
    const c = wsClient(delegated.gateway.wsUrl, { Authorization: 'Bearer caller-token-123456' });
    try {
      const sub = new Subscription(c, MESSAGES);
      await until(() => expect(sub.errors).toHaveLength(1));
      expect(sub.errors[0]).toEqual([
        expect.objectContaining({
          message: expect.stringContaining('GRAPH_CLIENT_SECRET'),
          extensions: expect.objectContaining({ code: 'UNAUTHENTICATED' }),
        }),
      ]);
      expect(delegated.gateway.services.domains.liveHealth.poller.pollCount).toBe(0);
    } finally {
      await c.dispose();
      await delegated.close();
    }
  });
});

describe('GRAPH_POLL_INTERVAL_MS', () => {
  it('must be at least 5000 against Microsoft Graph, and may be lower against the sandbox', () => {
    expect(() => loadConfig({ GRAPH_BASE_URL: 'https://graph.microsoft.com', GRAPH_POLL_INTERVAL_MS: '1000' })).toThrow(
      'GRAPH_POLL_INTERVAL_MS: must be at least 5000 against Microsoft Graph (https://graph.microsoft.com), got 1000; lower values are for the sandbox only',
    );
    expect(() => loadConfig({ GRAPH_POLL_INTERVAL_MS: 'soon' })).toThrow(
      /GRAPH_POLL_INTERVAL_MS: must be a whole number/,
    );
    expect(loadConfig({}).graph.pollIntervalMs).toBe(60_000);
    expect(loadConfig({ GRAPH_POLL_INTERVAL_MS: '200' }).graph.pollIntervalMs).toBe(200);
    expect(
      loadConfig({ GRAPH_BASE_URL: 'http://127.0.0.1:4010/graph', GRAPH_POLL_INTERVAL_MS: '200' }).graph.pollIntervalMs,
    ).toBe(200);
  });
});

describe('serviceHealthChanged to many subscribers', () => {
  it('sends a change to every subscriber of the same selection and variables as one text, the bytes graphql-ws would write, and to a different selection its own', async () => {
    // Raw graphql-transport-ws connections, to see the bytes: two sockets, subscriptions of two selections.
    const sockets = await Promise.all([rawSocket(gw.gateway.wsUrl), rawSocket(gw.gateway.wsUrl)]);
    const NARROW = 'subscription Narrow { serviceHealthChanged { kind serviceHealth { id } } }';
    for (const [i, socket] of sockets.entries()) {
      for (const n of [1, 2, 3]) socket.subscribe(`s${i}-${n}`, HEALTH, { services: ['Exchange'] });
      socket.subscribe(`narrow${i}`, NARROW);
    }
    const viaClient = new Subscription(client(), HEALTH, { services: ['Exchange'] });
    await joined(9);

    await mutate('mutation { updateServiceHealth(id: "Exchange", input: { status: SERVICE_DEGRADATION }) { id } }');
    await pollOnce();
    await until(() => expect(sockets.map((s) => s.received.length)).toEqual([4, 4]));
    await until(() => expect(viaClient.events).toHaveLength(1));
    const byId = new Map(
      sockets.flatMap((s) => s.received).map((text) => [(JSON.parse(text) as { id: string }).id, text]),
    );
    const payloadOf = (id: string) => byId.get(id)!.slice(`{"id":"${id}","type":"next","payload":`.length, -1);
    const wide = payloadOf('s0-1');
    for (const id of ['s0-2', 's0-3', 's1-1', 's1-2', 's1-3'])
      expect(byId.get(id)).toBe(`{"id":"${id}","type":"next","payload":${wide}}`);
    // Each carries its subscription's cost, as every answer does: the feed reads Graph once for all, so no request.
    const cost = (structure: number) => ({
      cost: { estimated: structure, actual: structure, upstreamRequestsEstimated: 0, upstreamRequests: 0 },
    });
    expect(JSON.parse(wide)).toEqual({ data: viaClient.events[0], extensions: cost(expect.any(Number) as never) });
    expect(JSON.parse(payloadOf('narrow0'))).toEqual({
      data: { serviceHealthChanged: { kind: 'STATUS_CHANGED', serviceHealth: { id: 'Exchange' } } },
      extensions: cost(2),
    });
    expect(payloadOf('narrow1')).toBe(payloadOf('narrow0'));
    for (const socket of sockets) socket.close();
  });
});
