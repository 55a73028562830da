import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { collect, wsClient } from '../../support/ws.js';

const lookups = (n: number) =>
  `{ admin { serviceAnnouncement { ${Array.from({ length: n }, (_, i) => `s${i}: healthOverview(id: "svc-${i}") { id }`).join(' ')} } } }`;

describe('upstream-request budget (GATEWAY_MAX_UPSTREAM_REQUESTS)', () => {
  let t: TestGateway;
  beforeAll(async () => {
    // Cases repeat operations to see them estimated again: an answer from the response cache would skip the estimate.
    t = await startTestGateway({ GATEWAY_MAX_UPSTREAM_REQUESTS: '1', RESPONSE_CACHE_MAX_BYTES: '0' });
  });
  afterAll(() => t.close());

  it('refuses 25 Graph lookups (two $batch requests) before any upstream call, naming upstream, estimate and limit', async () => {
    t.clearUpstreamRequests();
    const { status, body } = await t.query(lookups(25), undefined, { accept: 'application/graphql-response+json' });
    expect(status).toBe(400);
    expect(body.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS',
      max: 1,
      found: 2,
      upstream: 'graph',
    });
    expect(body.errors![0].message).toMatch(/can cause 2 requests to graph/);
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('lets 20 lookups (one $batch) through', async () => {
    t.clearUpstreamRequests();
    const { body } = await t.query(lookups(20));
    expect(body.errors?.filter((e) => e.extensions?.code === 'QUERY_TOO_COMPLEX') ?? []).toEqual([]);
    expect(t.upstreamRequests('graph').filter((r) => r.url.includes('$batch'))).toHaveLength(1);
  });

  it('estimates one document again for other variables: the estimate kept per document follows its variables', async () => {
    const ids = Array.from({ length: 25 }, (_, i) => `id${i}`);
    const document = `query Lookups(${ids.map((v) => `$${v}: ID!`).join(', ')}) { admin { serviceAnnouncement { ${ids.map((v) => `${v}: healthOverview(id: $${v}) { id }`).join(' ')} } } }`;
    const same = Object.fromEntries(ids.map((v) => [v, 'Exchange']));
    const distinct = Object.fromEntries(ids.map((v, i) => [v, `svc-${i}`]));
    for (const [variables, refused, graphRequests] of [
      [same, false, 1],
      [distinct, true, 0],
      [same, false, 1],
      [distinct, true, 0],
    ] as const) {
      t.clearUpstreamRequests();
      const { body } = await t.query(document, variables);
      expect(body.errors?.some((e) => e.extensions?.code === 'QUERY_TOO_COMPLEX') ?? false).toBe(refused);
      expect(t.upstreamRequests('graph')).toHaveLength(graphRequests);
    }
  });

  it('counts a search whose items need details as 1 + 10 OMDb requests', async () => {
    t.clearUpstreamRequests();
    const { body } = await t.query('{ searchTitles(query: "Batman") { items { title cast } } }');
    expect(body.errors![0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', upstream: 'omdb', found: 11 });
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('counts each chat completion as one request to its provider', async () => {
    const input = (p: string) =>
      `{ provider: "${p}", model: "glm-4-flash", messages: [{ role: USER, content: "hi" }] }`;
    const { body } = await t.query(
      `mutation { a: createChatCompletion(input: ${input('glm')}) { id } b: createChatCompletion(input: ${input('glm')}) { id } }`,
    );
    expect(body.errors![0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', upstream: 'glm', found: 2 });
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('applies over the WebSocket too', async () => {
    const client = wsClient(t.gateway.wsUrl);
    const { error } = await collect(client, '{ searchTitles(query: "Batman") { items { cast } } }');
    await client.dispose();
    expect((error as Array<{ extensions: Record<string, unknown> }>)[0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      upstream: 'omdb',
    });
    expect(t.upstreamRequests()).toHaveLength(0);
  });
});
