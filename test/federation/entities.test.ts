import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { batchItems, graphCalls } from '../support/graphRequests.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { seedTitles } from '../../src/sandbox/omdb/seed.js';
import { omdbQueries } from '../support/omdbRequests.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());
beforeEach(() => {
  gw.sandbox.faults.clear();
  gw.clearUpstreamRequests();
});

const ANNOUNCEMENT = '/admin/serviceAnnouncement';
type Representation = Record<string, unknown>;

/** What a router sends this subgraph to resolve entity references. */
function entities(representations: Representation[], selection: string, headers?: Record<string, string>) {
  return gw.query(
    `query ($representations: [_Any!]!) { _entities(representations: $representations) { __typename ${selection} } }`,
    { representations },
    headers,
  );
}

async function ids(list: 'issues' | 'messages', n: number): Promise<string[]> {
  const r = await gw.query(`{ admin { serviceAnnouncement { ${list}(first: ${n}) { nodes { id } } } } }`);
  gw.clearUpstreamRequests();
  return r.body.data.admin.serviceAnnouncement[list].nodes.map((node: { id: string }) => node.id);
}

describe('the subgraph contract', () => {
  it('serves its SDL with a Federation v2 @link and the four entity keys', async () => {
    const r = await gw.query('{ _service { sdl } }');
    const sdl: string = r.body.data._service.sdl;
    expect(sdl).toMatch(
      /extend schema\s+@link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.\d+", import: \["@key", "@shareable", "@tag", "@inaccessible", "@override", "@cost", "@listSize"\]\)/,
    );
    expect(sdl).toMatch(/type ServiceHealth\s+@key\(fields: "id"\)/);
    expect(sdl).toMatch(/type ServiceHealthIssue\s+@key\(fields: "id"\)/);
    expect(sdl).toMatch(/type ServiceUpdateMessage\s+@key\(fields: "id"\)/);
    expect(sdl).toMatch(/type Title\s+@key\(fields: "imdbId"\)/);
    expect(sdl).toMatch(/type PageInfo\s+@shareable/);
    expect(gw.upstreamRequests()).toEqual([]);
  });
});

describe('ServiceHealth references', () => {
  it('resolves 25 distinct ids (sent 30 times) as two $batch requests of 20 and 5, unknown ids as null without an error', async () => {
    const list = await gw.query(
      '{ admin { serviceAnnouncement { healthOverviews(first: 24) { nodes { id service } } } } }',
    );
    const known: Array<{ id: string; service: string }> =
      list.body.data.admin.serviceAnnouncement.healthOverviews.nodes;
    expect(known).toHaveLength(24);
    gw.clearUpstreamRequests();
    const distinct = [...known.map((s) => s.id), 'NoSuchService'];
    const sent = [...distinct, ...distinct.slice(0, 5)].map((id) => ({ __typename: 'ServiceHealth', id }));

    const r = await entities(sent, '... on ServiceHealth { id service }');
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data._entities).toEqual(
      sent.map(({ id }) =>
        id === 'NoSuchService'
          ? null
          : { __typename: 'ServiceHealth', id, service: known.find((s) => s.id === id)!.service },
      ),
    );
    const calls = gw.upstreamRequests('graph');
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /graph/v1.0/$batch', 'POST /graph/v1.0/$batch']);
    const items = calls.map(batchItems);
    expect(items.map((i) => i.length).sort((a, b) => b - a)).toEqual([20, 5]);
    expect(new Set(items.flat())).toEqual(
      new Set(distinct.map((id) => `GET ${ANNOUNCEMENT}/healthOverviews/${id}?$select=id,service`)),
    );
  });

  it('plans each reference like healthOverview(id:): one item with $select and the issues expanded inline', async () => {
    const r = await entities(
      [{ __typename: 'ServiceHealth', id: 'Exchange' }],
      '... on ServiceHealth { status issues(first: 2, orderBy: [{ field: START_DATE_TIME, direction: DESC }]) { nodes { id title } pageInfo { hasNextPage } } }',
    );
    expect(r.body.errors).toBeUndefined();
    const [exchange] = r.body.data._entities;
    expect(exchange.issues.nodes).toHaveLength(2);
    expect(exchange.issues.pageInfo.hasNextPage).toBe(true);
    expect(graphCalls(gw)).toEqual([
      `GET ${ANNOUNCEMENT}/healthOverviews/Exchange?$select=id,status&$expand=issues($select=id,title;$top=2;$orderby=startDateTime desc)`,
    ]);
  });

  it('answers an empty list with no upstream request', async () => {
    const r = await entities([], '... on ServiceHealth { id }');
    expect(r.body).toEqual({
      data: { _entities: [] },
      extensions: { cost: { estimated: 0, actual: 0, upstreamRequestsEstimated: 0, upstreamRequests: 0 } },
    });
    expect(gw.upstreamRequests()).toEqual([]);
  });
});

describe('ServiceHealthIssue and ServiceUpdateMessage references', () => {
  it('resolves issues by id in one $batch (GET …/issues/{id}) and messages in another, each with its own $select', async () => {
    const issueIds = await ids('issues', 3);
    const messageIds = await ids('messages', 2);
    const sent = [
      ...issueIds.map((id) => ({ __typename: 'ServiceHealthIssue', id })),
      { __typename: 'ServiceHealthIssue', id: 'EX000000' },
      ...messageIds.map((id) => ({ __typename: 'ServiceUpdateMessage', id })),
      { __typename: 'ServiceHealthIssue', id: issueIds[0] },
    ];
    const r = await entities(
      sent,
      '... on ServiceHealthIssue { id title status } ... on ServiceUpdateMessage { id category }',
    );
    expect(r.body.errors).toBeUndefined();
    const answered = r.body.data._entities as Array<Record<string, unknown> | null>;
    expect(answered.map((e) => e && `${e.__typename}:${e.id}`)).toEqual([
      ...issueIds.map((id) => `ServiceHealthIssue:${id}`),
      null,
      ...messageIds.map((id) => `ServiceUpdateMessage:${id}`),
      `ServiceHealthIssue:${issueIds[0]}`,
    ]);
    expect(answered[0]!.title).toEqual(expect.any(String));
    expect(answered[4]!.category).toMatch(/^[A-Z_]+$/);

    const calls = gw.upstreamRequests('graph');
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /graph/v1.0/$batch', 'POST /graph/v1.0/$batch']);
    const items = calls.map(batchItems).sort((a, b) => b.length - a.length);
    expect(items).toEqual([
      [...issueIds, 'EX000000'].map((id) => `GET ${ANNOUNCEMENT}/issues/${id}?$select=id,title,status`),
      messageIds.map((id) => `GET ${ANNOUNCEMENT}/messages/${id}?$select=id,category`),
    ]);
  });

  it('refuses a representation that is not an object or names no entity of this subgraph, naming it, before any request', async () => {
    for (const bad of ['Exchange', { __typename: 'Review', id: '1' }, { id: 'Exchange' }]) {
      const r = await entities(
        [{ __typename: 'ServiceHealth', id: 'Exchange' }, bad as Representation],
        '... on ServiceHealth { id }',
      );
      expect(r.body.data).toBeNull();
      expect(r.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'representations' });
      expect(r.body.errors![0].message).toContain(
        `representations[1]: ${JSON.stringify(bad)} is not a reference to an entity of this subgraph`,
      );
      expect(r.body.errors![0].message).toContain('ServiceHealth, ServiceHealthIssue, ServiceUpdateMessage, Title');
    }
    expect(gw.upstreamRequests()).toEqual([]);
  });

  it('refuses a reference without its key on that entry only, before any request for it', async () => {
    const [issue] = await ids('issues', 1);
    const r = await entities(
      [{ __typename: 'ServiceHealthIssue', id: issue }, { __typename: 'ServiceHealthIssue' }],
      '... on ServiceHealthIssue { id }',
    );
    expect(r.body.data._entities).toEqual([{ __typename: 'ServiceHealthIssue', id: issue }, null]);
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors![0]).toMatchObject({ path: ['_entities', 1], extensions: { code: 'BAD_USER_INPUT' } });
    expect(graphCalls(gw)).toEqual([`GET ${ANNOUNCEMENT}/issues/${issue}?$select=id`]);
  });
});

describe('Title references', () => {
  it('sends one OMDb request per distinct id, answers an unknown id with null, and serves repeats from the cache', async () => {
    const sent = ['tt0078346', 'tt0133093', 'tt0078346', 'tt9999990', 'tt0468569'].map((imdbId) => ({
      __typename: 'Title',
      imdbId,
    }));
    const r = await entities(sent, '... on Title { imdbId title year }');
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data._entities.map((t: { title: string } | null) => t?.title ?? null)).toEqual([
      'Superman',
      'The Matrix',
      'Superman',
      null,
      'The Dark Knight',
    ]);
    expect(omdbQueries(gw.upstreamRequests()).sort()).toEqual([
      'i=tt0078346',
      'i=tt0133093',
      'i=tt0468569',
      'i=tt9999990',
    ]);

    gw.clearUpstreamRequests();
    const again = await entities(sent.slice(0, 2), '... on Title { imdbId runtimeMinutes }');
    expect(again.body.data._entities.map((t: { runtimeMinutes: number }) => t.runtimeMinutes)).toEqual([
      expect.any(Number),
      expect.any(Number),
    ]);
    expect(gw.upstreamRequests()).toEqual([]);
  });

  it('resolves Title and ServiceHealth references of one call side by side', async () => {
    const r = await entities(
      [
        { __typename: 'Title', imdbId: 'tt0372784' },
        { __typename: 'ServiceHealth', id: 'SharePoint' },
      ],
      '... on Title { title } ... on ServiceHealth { service }',
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data._entities).toEqual([
      { __typename: 'Title', title: 'Batman Begins' },
      { __typename: 'ServiceHealth', service: 'SharePoint Online' },
    ]);
    expect(omdbQueries(gw.upstreamRequests())).toEqual(['i=tt0372784']);
    expect(graphCalls(gw)).toEqual([`GET ${ANNOUNCEMENT}/healthOverviews/SharePoint?$select=id,service`]);
  });
});

describe('limits on references', () => {
  let small: TestGateway;
  beforeAll(async () => {
    small = await startTestGateway({ GATEWAY_MAX_UPSTREAM_REQUESTS: '2', OMDB_DAILY_QUOTA: '3' });
  });
  afterAll(() => small?.close());

  const query =
    'query ($r: [_Any!]!) { _entities(representations: $r) { ... on ServiceHealth { id } ... on Title { title } } }';

  it('counts representations in the upstream-request budget: 41 ServiceHealth ids (3 batches) over a budget of 2 are refused whole, before any request', async () => {
    const representations = Array.from({ length: 41 }, (_, i) => ({ __typename: 'ServiceHealth', id: `Service${i}` }));
    const r = await small.query(query, { r: representations });
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS',
      upstream: 'graph',
      found: 3,
      max: 2,
    });
    expect(small.upstreamRequests()).toEqual([]);
  });

  it('keeps Title references inside the OMDb daily quota, refusing the call before any request', async () => {
    const fits = await small.query(query, {
      r: ['tt0078346', 'tt0133093'].map((imdbId) => ({ __typename: 'Title', imdbId })),
    });
    expect(fits.body.errors).toBeUndefined();
    small.clearUpstreamRequests();
    const r = await small.query(query, {
      r: ['tt0078346', 'tt0372784', 'tt0468569'].map((imdbId) => ({ __typename: 'Title', imdbId })),
    });
    expect(r.body.errors![0].extensions).toMatchObject({ code: 'UPSTREAM_QUOTA_EXHAUSTED', upstream: 'omdb' });
    expect(r.body.errors![0].message).toContain('1 remain today and this operation can need 2');
    expect(small.upstreamRequests()).toEqual([]);
  });
});

const ROUTER_KEY = 'router-key-0123456789abcdef';

/**
 * A router's `_entities` batch within MAX_ENTITY_REPRESENTATIONS is never cut into nulls by the upstream budget: a
 * trusted router's (a key of TRUSTED_ROUTER_KEYS) has the budget once per representation, as if it had sent each in a
 * call of its own, and is answered whole; anyone else's over the budget is refused whole, before any request.
 */
describe('an _entities call over the upstream budget (GATEWAY_MAX_UPSTREAM_REQUESTS at its default, 50)', () => {
  let budget: TestGateway;
  beforeAll(async () => {
    // No title cache: every call's titles are uncached, whatever ran before.
    budget = await startTestGateway({
      TRUSTED_ROUTER_KEYS: ROUTER_KEY,
      OMDB_CACHE_MAX: '0',
      RESPONSE_CACHE_MAX_BYTES: '0',
    });
  });
  afterAll(() => budget?.close());
  beforeEach(() => budget.clearUpstreamRequests());

  const ENTITIES = 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Title { imdbId title } } }';
  const titles = (from: number, n: number) =>
    seedTitles()
      .slice(from, from + n)
      .map((t) => t.imdbID);

  it("answers a trusted router's 60 uncached titles whole, with exactly 60 OMDb requests", async () => {
    const ids = titles(0, 60);
    const r = await budget.query(
      ENTITIES,
      { r: ids.map((imdbId) => ({ __typename: 'Title', imdbId })) },
      { 'x-api-key': ROUTER_KEY },
    );
    expect(r.body.errors).toBeUndefined();
    expect((r.body.data._entities as Array<{ imdbId: string }>).map((t) => t.imdbId)).toEqual(ids);
    expect(omdbQueries(budget.upstreamRequests('omdb'))).toEqual(ids.map((id) => `i=${id}`));
  });

  it("answers a trusted router's batch as large as MAX_ENTITY_REPRESENTATIONS allows whole, one request per distinct title", async () => {
    const ids = titles(0, 200);
    const r = await budget.query(
      ENTITIES,
      { r: [...ids, ...ids].map((imdbId) => ({ __typename: 'Title', imdbId })) },
      { 'x-api-key': ROUTER_KEY },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data._entities).toHaveLength(400);
    expect(budget.upstreamRequests('omdb')).toHaveLength(200);
  });

  it("refuses anyone else's 60 uncached titles whole before any request, naming the budget and the router key", async () => {
    const ids = titles(120, 60);
    // A key that is not a router's, as an outsider would guess one, gets no more budget than none.
    const r = await budget.query(
      ENTITIES,
      { r: ids.map((imdbId) => ({ __typename: 'Title', imdbId })) },
      { 'x-api-key': `${ROUTER_KEY}-guess` },
    );
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS',
      upstream: 'omdb',
      found: 60,
      max: 50,
    });
    expect(r.body.errors![0].message).toContain('TRUSTED_ROUTER_KEYS');
    expect(budget.upstreamRequests()).toEqual([]);
  });

  it("holds a trusted router's batch to the budget once per representation: one whose entities each select over it is refused whole", async () => {
    // Each series' episodes are looked up season by season: more than 50 OMDb requests for each title alone.
    const series = seedTitles()
      .filter((t) => t.type === 'series')
      .slice(0, 2)
      .map((t) => t.imdbID);
    const r = await budget.query(
      'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Title { s1: episodes(season: 1) { plot } s2: episodes(season: 2) { plot } } } }',
      { r: series.map((imdbId) => ({ __typename: 'Title', imdbId })) },
      { 'x-api-key': ROUTER_KEY },
    );
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', upstream: 'omdb' });
    expect(budget.upstreamRequests()).toEqual([]);
  });

  it('still refuses an operation over the budget whole when it is more than one _entities call, from a router too', async () => {
    const ids = titles(60, 51);
    const r = await budget.query(
      'query ($r: [_Any!]!) { upstreams { id } _entities(representations: $r) { ... on Title { title } } }',
      { r: ids.map((imdbId) => ({ __typename: 'Title', imdbId })) },
      { 'x-api-key': ROUTER_KEY },
    );
    expect(r.body.data).toBeUndefined();
    expect(r.body.errors![0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', upstream: 'omdb', found: 51 });
    expect(budget.upstreamRequests()).toEqual([]);
  });
});
