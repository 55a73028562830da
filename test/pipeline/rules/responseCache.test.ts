import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeBatch } from '../../../src/domains/enterprise/live/changes.js';
import { graphCalls, resetSandbox } from '../../support/graphRequests.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startReplicas } from '../../support/replicas.js';
import { collect, wsClient } from '../../support/ws.js';

const HEALTH = `query Board { admin { serviceAnnouncement { healthOverviews(first: 5) { nodes { id status } } } } }`;
const EXCHANGE = `query Exchange { admin { serviceAnnouncement { healthOverview(id: "Exchange") { id status } } } }`;
const TITLE = `query Alien { title(imdbId: "tt0078748") { imdbId title year } }`;
const PROVIDERS = `{ chatProviders { id models } }`;

async function sandboxToken(g: TestGateway): Promise<string> {
  const form = new URLSearchParams({
    client_id: 'sandbox',
    client_secret: 'sandbox',
    scope: 'https://graph.microsoft.com/.default',
    grant_type: 'client_credentials',
  });
  const res = await fetch(`${g.sandbox.origin}/login/sandbox/oauth2/v2.0/token`, {
    method: 'POST',
    body: form,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Upstream requests one call costs, read from the sandbox's record. */
async function cost(gw: TestGateway, upstream: string, run: () => Promise<unknown>): Promise<number> {
  const before = gw.upstreamRequests(upstream).length;
  await run();
  return gw.upstreamRequests(upstream).length - before;
}

describe('the response cache', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw?.close());
  afterEach(() => resetSandbox(gw));

  it('answers a repeat within maxAge without an upstream request, on HTTP, graphql-ws and GraphQL over SSE alike', async () => {
    const first = await gw.query(HEALTH);
    expect(first.body.errors).toBeUndefined();
    // The same data; its cost says that no upstream request was sent for it.
    const spent = first.body.extensions!.cost;
    const cached = {
      data: first.body.data,
      extensions: {
        cost: {
          estimated: spent.estimated - 10 * spent.upstreamRequestsEstimated,
          actual: spent.actual - 10 * spent.upstreamRequests,
          upstreamRequestsEstimated: 0,
          upstreamRequests: 0,
        },
      },
    };
    expect(await cost(gw, 'graph', async () => expect((await gw.query(HEALTH)).body).toEqual(cached))).toBe(0);
    const ws = wsClient(gw.gateway.wsUrl);
    try {
      const overWs = await cost(gw, 'graph', async () => expect((await collect(ws, HEALTH)).results).toEqual([cached]));
      expect(overWs).toBe(0);
    } finally {
      await ws.dispose();
    }
    const overSse = await cost(gw, 'graph', async () => {
      const res = await fetch(gw.gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query: HEALTH }),
      });
      expect(await res.text()).toContain(`data: ${JSON.stringify(cached)}`);
    });
    expect(overSse).toBe(0);
    // Another document (or other variables) is another entry.
    expect(await cost(gw, 'graph', () => gw.query(EXCHANGE))).toBe(1);
  });

  it('keeps titles a day, and a query over two domains once', async () => {
    const both = `{ ${TITLE.slice(TITLE.indexOf('{') + 1, -1)} admin { serviceAnnouncement { healthOverview(id: "Teams") { id } } } }`;
    expect(await cost(gw, 'omdb', () => gw.query(TITLE))).toBe(1);
    expect(await cost(gw, 'omdb', () => gw.query(TITLE))).toBe(0);
    await gw.query(both);
    expect(await cost(gw, 'graph', () => gw.query(both))).toBe(0);
  });

  it('drops what a write changed: after updateServiceHealth or deleteServiceHealth the next read costs 1', async () => {
    await gw.query(EXCHANGE);
    expect(await cost(gw, 'graph', () => gw.query(EXCHANGE))).toBe(0);
    const write = await gw.query(
      `mutation { updateServiceHealth(id: "Exchange", input: { status: SERVICE_DEGRADATION }) { id status } }`,
    );
    expect(write.body.errors).toBeUndefined();
    expect(write.headers.get('cache-control')).toBe('no-store');
    gw.clearUpstreamRequests();
    const read = await gw.query(EXCHANGE);
    expect(read.body.data.admin.serviceAnnouncement.healthOverview.status).toBe('SERVICE_DEGRADATION');
    expect(graphCalls(gw)).toEqual(['GET /admin/serviceAnnouncement/healthOverviews/Exchange?$select=id,status']);
    await gw.query(`mutation { deleteServiceHealth(id: "Exchange") }`);
    expect(await cost(gw, 'graph', () => gw.query(EXCHANGE))).toBe(1);
  });

  it('drops health answers when the live feed reports a change', async () => {
    await gw.query(EXCHANGE);
    expect(await cost(gw, 'graph', () => gw.query(EXCHANGE))).toBe(0);
    const change = { poll: 1, health: [{ kind: 'STATUS_CHANGED' }], messages: [] } as unknown as ChangeBatch;
    await gw.gateway.services.state.channel<ChangeBatch>('live-health').publish(change);
    expect(await cost(gw, 'graph', () => gw.query(EXCHANGE))).toBe(1);
  });

  it("never gives a delegated caller another caller's answer", async () => {
    const [alice, bob] = [await sandboxToken(gw), await sandboxToken(gw)];
    const as = (token: string) => () => gw.query(EXCHANGE, undefined, { authorization: `Bearer ${token}` });
    await gw.query(EXCHANGE);
    expect(await cost(gw, 'graph', as(alice))).toBe(1);
    expect(await cost(gw, 'graph', as(bob))).toBe(1);
    expect(await cost(gw, 'graph', as(alice))).toBe(0);
    const calls = gw.upstreamRequests('graph').slice(-2);
    expect(calls.map((c) => c.headers.authorization)).toEqual([`Bearer ${alice}`, `Bearer ${bob}`]);
    const answer = await gw.query(EXCHANGE, undefined, { authorization: `Bearer ${bob}` });
    expect(answer.headers.get('cache-control')).toBe('private, max-age=60');
  });

  it('resolves the same 50 health references twice for one $batch round', async () => {
    const ids = Array.from({ length: 50 }, (_, i) => (i % 2 ? `Service${i}` : `Exchange`));
    const representations = ids.map((id) => ({ __typename: 'ServiceHealth', id }));
    const entities = `query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on ServiceHealth { id status } } }`;
    const first = await cost(gw, 'graph', () => gw.query(entities, { representations }));
    expect(first).toBeGreaterThan(0);
    expect(await cost(gw, 'graph', () => gw.query(entities, { representations }))).toBe(0);
  });

  it('says how long an answer may be kept: public on GET, private on POST, no-store for errors and uncached fields', async () => {
    const get = await fetch(`${gw.gateway.url}?query=${encodeURIComponent(TITLE)}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(get.headers.get('cache-control')).toBe('public, max-age=86400');
    expect((await gw.query(TITLE)).headers.get('cache-control')).toBe('private, max-age=86400');
    const board = await fetch(`${gw.gateway.url}?query=${encodeURIComponent(`${HEALTH} `)}&operationName=Board`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(board.headers.get('cache-control')).toBe('public, max-age=60');
    const usage = await gw.query(`{ chatUsage { provider totalTokens } }`);
    expect(usage.headers.get('cache-control')).toBe('no-store');
    const bad = await gw.query(`{ title(imdbId: "nope") { title } }`);
    expect(bad.body.errors?.length).toBeGreaterThan(0);
    expect(bad.headers.get('cache-control')).toBe('no-store');
  });

  it('keeps no answer with errors', async () => {
    await fetch(`${gw.sandbox.origin}/_sandbox/faults`, {
      method: 'POST',
      body: JSON.stringify({ upstream: 'graph', status: 500, times: 10, match: 'Intune' }),
    });
    const failed = await gw.query(`{ admin { serviceAnnouncement { healthOverview(id: "Intune") { id } } } }`);
    expect(failed.body.errors?.length).toBeGreaterThan(0);
    await resetSandbox(gw);
    expect(
      await cost(gw, 'graph', () =>
        gw.query(`{ admin { serviceAnnouncement { healthOverview(id: "Intune") { id } } } }`),
      ),
    ).toBe(1);
  });
});

describe('RESPONSE_CACHE_MAX_BYTES', () => {
  let gw: TestGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  it('0 turns the cache off (the header stays)', async () => {
    gw = await startTestGateway({ RESPONSE_CACHE_MAX_BYTES: '0' });
    await gw.query(EXCHANGE);
    expect(await cost(gw, 'graph', () => gw!.query(EXCHANGE))).toBe(1);
    expect((await gw.query(PROVIDERS)).headers.get('cache-control')).toBe('private, max-age=60');
  });

  it('bounds the answers kept: past it the oldest go', async () => {
    // One health answer is about 160 bytes with its key: room for two.
    gw = await startTestGateway({ RESPONSE_CACHE_MAX_BYTES: '350' });
    const one = (id: string) => `{ admin { serviceAnnouncement { healthOverview(id: "${id}") { id status } } } }`;
    for (const id of ['Exchange', 'SharePoint', 'Intune']) await gw.query(one(id));
    expect(await cost(gw, 'graph', () => gw!.query(one('Intune')))).toBe(0);
    expect(await cost(gw, 'graph', () => gw!.query(one('Exchange')))).toBe(1);
  });

  it('is refused when not a whole number', () => {
    return expect(startTestGateway({ RESPONSE_CACHE_MAX_BYTES: 'lots' })).rejects.toThrow(/RESPONSE_CACHE_MAX_BYTES/);
  });
});

describe('a scripted dashboard run', () => {
  it('costs each query once per maxAge with the cache, every time without', async () => {
    const dashboard = [HEALTH, `{ searchTitles(query: "alien") { items { imdbId title } } }`, PROVIDERS];
    const counts: Record<string, Record<string, number>> = {};
    for (const bytes of ['0', '67108864']) {
      const gw = await startTestGateway({ RESPONSE_CACHE_MAX_BYTES: bytes });
      try {
        // 20 refreshes of the board's 3 queries, all within the smallest maxAge (health: 60 s).
        for (let i = 0; i < 20; i++) for (const q of dashboard) expect((await gw.query(q)).body.errors).toBeUndefined();
      } finally {
        await gw.close();
      }
      const byUpstream: Record<string, number> = {};
      for (const r of gw.upstreamRequests()) byUpstream[r.upstream] = (byUpstream[r.upstream] ?? 0) + 1;
      counts[bytes] = byUpstream;
    }
    console.info(
      `dashboard run, 60 queries, upstream requests without the response cache: ${JSON.stringify(counts['0'])}, with it: ${JSON.stringify(counts['67108864'])}`,
    );
    // OMDb answers are kept by the OMDb client's own cache either way; the Graph token is fetched once either way.
    expect(counts).toEqual({ '0': { login: 1, graph: 20, omdb: 1 }, '67108864': { login: 1, graph: 1, omdb: 1 } });
  });
});

describe('replicas sharing the cache through Redis', () => {
  it('answers on one replica what another fetched, and a write on either drops it for both', async () => {
    const cluster = await startReplicas({ count: 2 });
    try {
      const graph = () => cluster.upstreamRequests('graph').filter((r) => !r.url.includes('/oauth2/')).length;
      const before = graph();
      expect((await cluster.query(0, EXCHANGE)).body.errors).toBeUndefined();
      expect(graph() - before).toBe(1);
      await cluster.query(1, EXCHANGE);
      expect(graph() - before).toBe(1);
      await cluster.query(
        1,
        `mutation { updateServiceHealth(id: "Exchange", input: { status: SERVICE_DEGRADATION }) { id } }`,
      );
      const written = graph();
      const read = await cluster.query(0, EXCHANGE);
      expect(read.body.data.admin.serviceAnnouncement.healthOverview.status).toBe('SERVICE_DEGRADATION');
      expect(graph() - written).toBe(1);
    } finally {
      await cluster.close();
    }
  });
});
