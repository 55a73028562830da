import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { pipelineHarness } from '../../support/pipeline.js';

/**
 * Demand control (src/pipeline/rules/demandControl.ts, docs/security.md "Demand control"): every answer's
 * `extensions.cost` against what the sandbox received, COST_MODE=enforce, and one client's budgets.
 */
const HEALTH = '{ admin { serviceAnnouncement { healthOverviews(first: 50) { nodes { id } } } } }';
const TITLE = 'query ($id: ID!) { title(imdbId: $id) { imdbId title } }';

describe('demand control', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ RESPONSE_CACHE_MAX_BYTES: '0' });
    // The Graph app token is fetched once per gateway: before the requests that are counted.
    await t.query('{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { id } } } }');
  });
  afterAll(() => t?.close());

  it('estimates a list by its first argument and counts what the answer held and the requests the sandbox received', async () => {
    t.clearUpstreamRequests();
    const { body } = await t.query(HEALTH);
    const services = body.data.admin.serviceAnnouncement.healthOverviews.nodes.length;
    expect(services).toBeLessThan(50);
    expect(t.upstreamRequests('graph')).toHaveLength(1);
    // admin, serviceAnnouncement, the connection and 50 nodes expected; the nodes answered counted; 10 a request.
    expect(body.extensions!.cost).toEqual({
      estimated: 3 + 50 + 10,
      actual: 3 + services + 10,
      upstreamRequestsEstimated: 1,
      upstreamRequests: 1,
    });
  });

  it("estimates a cached document by each request's own variables where they size a list, and alike where none does", async () => {
    const byFirst = 'query ($n: Int) { admin { serviceAnnouncement { healthOverviews(first: $n) { nodes { id } } } } }';
    const estimated = async (query: string, variables: Record<string, unknown>) =>
      ((await t.query(query, variables)).body.extensions!.cost as { estimated: number }).estimated;
    // `first: $n` sizes the list: each request's `$n` prices it, a cached plan for another `$n` never does.
    expect([
      await estimated(byFirst, { n: 5 }),
      await estimated(byFirst, { n: 40 }),
      await estimated(byFirst, { n: 5 }),
    ]).toEqual([3 + 5 + 10, 3 + 40 + 10, 3 + 5 + 10]);
    // `$id` sizes nothing: the same estimate for any id (the plan kept for the document alone).
    const byId = 'query ($id: ID!) { admin { serviceAnnouncement { healthOverview(id: $id) { id service status } } } }';
    const ids = ['Exchange', 'SharePoint', 'Exchange', 'nope'];
    const costs = [];
    for (const id of ids) costs.push(await estimated(byId, { id }));
    expect(new Set(costs).size).toBe(1);
  });

  it('prices a title the cache holds at no upstream request, before and after', async () => {
    const first = await t.query(TITLE, { id: 'tt0078346' });
    expect(first.body.extensions!.cost).toEqual({
      estimated: 11,
      actual: 11,
      upstreamRequestsEstimated: 1,
      upstreamRequests: 1,
    });
    t.clearUpstreamRequests();
    const again = await t.query(TITLE, { id: 'tt0078346' });
    expect(again.body.extensions!.cost).toEqual({
      estimated: 1,
      actual: 1,
      upstreamRequestsEstimated: 0,
      upstreamRequests: 0,
    });
    expect(t.upstreamRequests('omdb')).toHaveLength(0);
  });

  it('writes the cost in the operation log line and the metrics', async () => {
    await t.query(TITLE, { id: 'tt0372784' });
    const line = t.logs
      .json()
      .filter((l) => l.msg === 'operation')
      .at(-1)!;
    expect(line.cost).toEqual({ estimated: 11, actual: 11, upstreamRequestsEstimated: 1, upstreamRequests: 1 });
    const metrics = await (await fetch(t.gateway.url.replace('/graphql', '/metrics'))).text();
    expect(metrics).toMatch(/gateway_operation_cost_count\{measure="actual"\} [1-9]/);
    expect(metrics).toMatch(/gateway_operation_upstream_requests_sum\{measure="estimated"\} [1-9]/);
  });
});

describe("one cost limit, MAX_OPERATION_COST over the gateway's own estimate", () => {
  /** graphql-armor's cost (a second model, gone) put this at 5,241 and refused it over its 5,000. */
  const NESTED =
    '{ admin { serviceAnnouncement { healthOverviews(first: 20) { nodes { id service issues(first: 5) { nodes { id title status } } } } } } }';
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ RESPONSE_CACHE_MAX_BYTES: '0', COST_MODE: 'enforce', GATEWAY_MAX_COST: '200' });
  });
  afterAll(() => t?.close());

  it('admits at the estimate what the other model refused, and warns at start-up that GATEWAY_MAX_COST is the old name', async () => {
    const { body } = await t.query(NESTED);
    expect(body.errors).toBeUndefined();
    expect(body.extensions!.cost.estimated).toBeLessThanOrEqual(200);
    const warning = t.logs.json().find((l) => l.variable === 'GATEWAY_MAX_COST');
    expect(warning).toMatchObject({ level: 'warn' });
    expect(warning!.msg).toMatch(/GATEWAY_MAX_COST is deprecated: read as MAX_OPERATION_COST=200/);
  });

  it('refuses over the limit the old name set, before any request, naming MAX_OPERATION_COST', async () => {
    t.clearUpstreamRequests();
    const { body } = await t.query(NESTED.replace('first: 20', 'first: 40'));
    expect(body.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'MAX_OPERATION_COST',
      max: 200,
    });
    expect(body.errors![0].message).toMatch(/over MAX_OPERATION_COST of 200/);
    expect(t.upstreamRequests()).toHaveLength(0);
  });
});

describe("a client's cost budget", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ RESPONSE_CACHE_MAX_BYTES: '0', CLIENT_COST_PER_MINUTE: '25' });
  });
  afterAll(() => t?.close());

  it("pays each operation's estimate, refuses one that does not fit with 429, Retry-After and retryAfterSeconds, before any upstream request", async () => {
    for (const id of ['tt0078346', 'tt0372784']) expect((await t.query(TITLE, { id })).body.errors).toBeUndefined();
    t.clearUpstreamRequests();
    const refused = await t.query(TITLE, { id: 'tt0468569' });
    expect(refused.status).toBe(429);
    const error = refused.body.errors![0];
    expect(error.extensions).toMatchObject({
      code: 'RATE_LIMITED',
      limit: 'CLIENT_COST_PER_MINUTE',
      max: 25,
      cost: 11,
    });
    // 22 of 25 spent: 8 more are needed, refilled at 25 a minute (19.2 s).
    expect(error.extensions!.retryAfterSeconds).toBe(20);
    expect(refused.headers.get('retry-after')).toBe('20');
    expect(error.message).toContain('retry in 20 s');
    expect(t.upstreamRequests()).toHaveLength(0);
    // What costs no upstream request still fits: a title the cache holds costs 1.
    expect((await t.query(TITLE, { id: 'tt0078346' })).body.errors).toBeUndefined();
  });

  it('refuses an operation that costs more than the whole budget as too costly, not as a wait', async () => {
    // A request error: 400 with application/graphql-response+json (200 for a client that takes only JSON).
    const { status, body } = await t.query(HEALTH, undefined, { accept: 'application/graphql-response+json' });
    expect(status).toBe(400);
    expect(body.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'CLIENT_COST_PER_MINUTE',
      max: 25,
      cost: 63,
    });
  });
});

describe("a subscription's cost", () => {
  it('pays its start, then each upstream request beyond its estimate as it sends it (a retried stream)', async () => {
    const h = await pipelineHarness({ CLIENT_COST_PER_MINUTE: '100' });
    try {
      // The provider answers the first attempt 429 (retry at once): the HTTP layer opens the stream again.
      await fetch(`${h.sandbox.origin}/_sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ upstream: 'deepseek', times: 1, status: 429, retryAfter: 0 }),
      });
      const stream = await h.inProcess.subscribe({
        query:
          'subscription ($input: ChatCompletionInput!) { chatCompletionStream(input: $input) { delta { content } } }',
        variables: {
          input: { provider: 'deepseek', model: 'deepseek-flash', messages: [{ role: 'USER', content: 'Say hi' }] },
        },
      });
      const events: Array<{ extensions?: Record<string, any> }> = [];
      for await (const event of stream as AsyncGenerator<{ extensions?: Record<string, any> }>) events.push(event);
      expect(events.at(-1)!.extensions!.cost).toEqual({
        estimated: 12,
        actual: 22,
        upstreamRequestsEstimated: 1,
        upstreamRequests: 2,
      });
      expect(
        h.sandbox.record.list().filter((r) => r.upstream === 'deepseek' && r.url.endsWith('/chat/completions')),
      ).toHaveLength(2);
      // 22 of the client's 100 are spent: 78 more fit, 79 do not (the bucket refills 100 a minute, not within this test).
      const budgets = h.services.state.clientBudgets('cost', { perMinute: 100, perDay: 0 });
      expect((await budgets.spend('address:unknown', 79)).ok).toBe(false);
      expect((await budgets.spend('address:unknown', 77)).ok).toBe(true);
    } finally {
      await h.close();
    }
  });
});
