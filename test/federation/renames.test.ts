/**
 * SUBGRAPH_TYPE_PREFIX and SUBGRAPH_RENAMES: the subgraph's types under other names, both ways (the SDL, `__typename`
 * in answers, the representations `_entities` reads), while the graph without them keeps the names of `schema/`.
 * SUBGRAPH_OVERRIDES and the domain `@tag`s are in the same SDL.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isObjectType, Kind, parse, type ConstDirectiveNode, type DocumentNode } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/env.js';
import { buildSchema, subgraphSdl } from '../../src/schema/build.js';
import { domainOf } from '../../src/schema/domains.js';
import { servedTypeName } from '../../src/planning/servedNames.js';
import { batchItems, graphCalls } from '../support/graphRequests.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { spawnGateway } from '../support/process.js';
import { omdbQueries } from '../support/omdbRequests.js';

const ANNOUNCEMENT = '/admin/serviceAnnouncement';

/** Type definitions of an SDL by name. */
function typesOf(sdl: string): Map<string, { kind: string; directives: readonly ConstDirectiveNode[] }> {
  const doc = parse(sdl);
  return new Map(
    doc.definitions.flatMap((d) =>
      'name' in d && d.name && !('operation' in d)
        ? [
            [
              d.name.value,
              { kind: d.kind, directives: (d as { directives?: readonly ConstDirectiveNode[] }).directives ?? [] },
            ],
          ]
        : [],
    ),
  );
}

const args = (d: ConstDirectiveNode) =>
  Object.fromEntries(
    (d.arguments ?? []).map((a) => [a.name.value, a.value.kind === Kind.STRING ? a.value.value : undefined]),
  );

describe('SUBGRAPH_TYPE_PREFIX=Ops', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ SUBGRAPH_TYPE_PREFIX: 'Ops' });
  });
  afterAll(() => gw?.close());
  beforeEach(() => gw.clearUpstreamRequests());

  it("serves every domain type as Ops…, keeping Relay's PageInfo (@shareable), the scalars and the root types", async () => {
    const sdl: string = (await gw.query('{ _service { sdl } }')).body.data._service.sdl;
    const types = typesOf(sdl);
    for (const name of [
      'OpsTitle',
      'OpsChatMessage',
      'OpsUpstream',
      'OpsAdmin',
      'OpsOrderDirection',
      'OpsServiceHealthOrder',
      'OpsKeyValuePair',
      'PageInfo',
      'DateTime',
      'Date',
      'JSONObject',
      'Query',
      'Mutation',
      'Subscription',
    ]) {
      expect(types.has(name), name).toBe(true);
    }
    for (const name of [
      'Title',
      'ChatMessage',
      'Upstream',
      'Admin',
      'OrderDirection',
      'OpsPageInfo',
      'OpsDateTime',
      'OpsJSONObject',
    ])
      expect(types.has(name), name).toBe(false);
    expect(sdl).toMatch(/type OpsTitle\s+@key\(fields: "imdbId"\)/);
    expect(sdl).toMatch(/type OpsServiceHealth\s+@key\(fields: "id"\)/);
    expect(sdl).toMatch(
      /type PageInfo\s+@shareable[^{]*\{\s*hasNextPage: Boolean!\s*hasPreviousPage: Boolean!\s*"""[^"]*"""\s*startCursor: String\s*"""[^"]*"""\s*endCursor: String\s*\}/,
    );
    expect(sdl).toMatch(/admin: OpsAdmin! @tag\(name: "enterprise"\)/);
    expect(gw.upstreamRequests()).toEqual([]);
  });

  it('answers __typename with the served names', async () => {
    const r = await gw.query(`{
      title(imdbId: "tt0078346") { __typename ratings { __typename } }
      admin { __typename serviceAnnouncement { healthOverviews(first: 1) { __typename pageInfo { __typename } nodes { __typename } } } }
      upstreams { __typename }
    }`);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.title).toEqual({
      __typename: 'OpsTitle',
      ratings: expect.arrayContaining([{ __typename: 'OpsTitleRating' }]),
    });
    expect(r.body.data.admin).toEqual({
      __typename: 'OpsAdmin',
      serviceAnnouncement: {
        healthOverviews: {
          __typename: 'OpsServiceHealthConnection',
          pageInfo: { __typename: 'PageInfo' },
          nodes: [{ __typename: 'OpsServiceHealth' }],
        },
      },
    });
    expect(r.body.data.upstreams[0]).toEqual({ __typename: 'OpsUpstream' });
    expect(omdbQueries(gw.upstreamRequests())).toEqual(['i=tt0078346']);
    expect(graphCalls(gw)).toEqual([`GET ${ANNOUNCEMENT}/healthOverviews?$select=id&$top=1`]);
  });

  it('plans operations written with the served names as before: renamed input types in variables, fragments on renamed types', async () => {
    const r = await gw.query(
      `query ($order: [OpsServiceHealthOrder!]) {
        admin { serviceAnnouncement { healthOverviews(first: 2, orderBy: $order) { nodes { ...Service } } } }
      }
      fragment Service on OpsServiceHealth { id status issues(first: 1) { nodes { ... on OpsServiceHealthIssue { title } } } }`,
      { order: [{ field: 'SERVICE', direction: 'DESC' }] },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.admin.serviceAnnouncement.healthOverviews.nodes).toHaveLength(2);
    expect(graphCalls(gw)).toEqual([
      `GET ${ANNOUNCEMENT}/healthOverviews?$select=id,status&$expand=issues($select=id,title;$top=1)&$top=2&$orderby=service desc`,
    ]);
  });

  it('resolves representations that name the served types, batched as ever, and refuses the names of schema/', async () => {
    const r = await gw.query(
      'query ($r: [_Any!]!) { _entities(representations: $r) { __typename ... on OpsServiceHealth { service } ... on OpsTitle { title } } }',
      {
        r: [
          { __typename: 'OpsServiceHealth', id: 'Exchange' },
          { __typename: 'OpsTitle', imdbId: 'tt0133093' },
          { __typename: 'OpsServiceHealth', id: 'SharePoint' },
        ],
      },
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data._entities).toEqual([
      { __typename: 'OpsServiceHealth', service: 'Exchange Online' },
      { __typename: 'OpsTitle', title: 'The Matrix' },
      { __typename: 'OpsServiceHealth', service: 'SharePoint Online' },
    ]);
    const calls = gw.upstreamRequests('graph');
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /graph/v1.0/$batch']);
    expect(batchItems(calls[0])).toEqual(
      ['Exchange', 'SharePoint'].map((id) => `GET ${ANNOUNCEMENT}/healthOverviews/${id}?$select=id,service`),
    );
    expect(omdbQueries(gw.upstreamRequests())).toEqual(['i=tt0133093']);

    gw.clearUpstreamRequests();
    const old = await gw.query('query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }', {
      r: [{ __typename: 'ServiceHealth', id: 'Exchange' }],
    });
    expect(old.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'representations' });
    expect(old.body.errors![0].message).toContain(
      'whose __typename is one of OpsServiceHealth, OpsServiceHealthIssue, OpsServiceUpdateMessage, OpsTitle',
    );
    expect(old.body.errors![0].message).toContain('{"__typename": "OpsTitle", "imdbId": "tt0078346"}');
    expect(gw.upstreamRequests()).toEqual([]);
  });

  it('runs the trusted operations of operations/mcp, written with the names of schema/, as /mcp tools', async () => {
    const client = new Client({ name: 'renames-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.gateway.origin}/mcp`)));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('TitleLookup');
      const result = await client.callTool({ name: 'TitleLookup', arguments: { title: 'The Matrix', type: 'MOVIE' } });
      expect(result.isError).toBe(false);
      expect((result.structuredContent as any).data.title).toMatchObject({ imdbId: 'tt0133093', title: 'The Matrix' });
      expect(omdbQueries(gw.upstreamRequests())).toEqual(['t=The Matrix&type=movie']);
    } finally {
      await client.close();
    }
  });

  it('opens GraphiQL with its examples in the served names', async () => {
    const examples = (await (await fetch(`${gw.gateway.origin}/graphiql/examples.json`)).json()) as Array<{
      query: string;
    }>;
    const text = examples.map((e) => e.query).join('\n');
    expect(text).toContain('$chat: OpsChatCompletionInput!');
    expect(text).not.toMatch(/: ChatCompletionInput!/);
  });
});

describe('the upstream budget under a prefix', () => {
  let small: TestGateway;
  beforeAll(async () => {
    small = await startTestGateway({ SUBGRAPH_TYPE_PREFIX: 'Ops', GATEWAY_MAX_UPSTREAM_REQUESTS: '1' });
  });
  afterAll(() => small?.close());

  const query =
    'query ($r: [_Any!]!) { _entities(representations: $r) { ... on OpsServiceHealth { id } ... on OpsTitle { title } } }';

  it('counts renamed ServiceHealth representations: of 21 (two $batch requests) the first 20 are answered, the 21st refused', async () => {
    const r = await small.query(query, {
      r: Array.from({ length: 21 }, (_, i) => ({ __typename: 'OpsServiceHealth', id: `Service${i}` })),
    });
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors![0]).toMatchObject({
      path: ['_entities', 20],
      extensions: { code: 'QUERY_TOO_COMPLEX', upstream: 'graph', found: 2, max: 1 },
    });
    expect(small.upstreamRequests('graph').map((q) => `${q.method} ${q.url}`)).toEqual(['POST /graph/v1.0/$batch']);
  });

  it("counts renamed Title representations (the OMDb quota guard's estimate): of 2 new titles the first is looked up, the second refused", async () => {
    small.clearUpstreamRequests();
    const r = await small.query(query, {
      r: ['tt0078346', 'tt0133093'].map((imdbId) => ({ __typename: 'OpsTitle', imdbId })),
    });
    expect(r.body.data._entities).toEqual([{ title: 'Superman' }, null]);
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors![0]).toMatchObject({
      path: ['_entities', 1],
      extensions: { code: 'QUERY_TOO_COMPLEX', upstream: 'omdb', found: 2, max: 1 },
    });
    expect(omdbQueries(small.upstreamRequests())).toEqual(['i=tt0078346']);
  });
});

describe('SUBGRAPH_RENAMES', () => {
  it('gives single types their own names, which the prefix does not touch', async () => {
    const types = typesOf(
      await subgraphSdl(undefined, {
        typePrefix: 'Ops',
        renames: { Title: 'Movie', OrderDirection: 'SortDirection', DateTime: 'Instant' },
      }),
    );
    expect(
      [...types.keys()]
        .filter((n) => ['Movie', 'SortDirection', 'Instant', 'OpsTitleRating', 'OpsAdmin', 'PageInfo'].includes(n))
        .sort(),
    ).toEqual(['Instant', 'Movie', 'OpsAdmin', 'OpsTitleRating', 'PageInfo', 'SortDirection']);
    expect(
      [...types.keys()].filter((n) =>
        ['Title', 'OpsMovie', 'OpsSortDirection', 'OrderDirection', 'DateTime'].includes(n),
      ),
    ).toEqual([]);
  });

  it('renames a scalar with its parsing: a renamed DateTime still answers ISO dates', async () => {
    const gw = await startTestGateway({ SUBGRAPH_RENAMES: 'DateTime=Instant,ServiceHealthIssue=Incident' });
    try {
      const r = await gw.query(
        '{ admin { serviceAnnouncement { issues(first: 1) { nodes { __typename startDateTime } } } } }',
      );
      expect(r.body.errors).toBeUndefined();
      expect(r.body.data.admin.serviceAnnouncement.issues.nodes[0]).toEqual({
        __typename: 'Incident',
        startDateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      const types = await gw.query('{ __type(name: "Instant") { kind } }');
      expect(types.body.data.__type).toEqual({ kind: 'SCALAR' });
    } finally {
      await gw.close();
    }
  });

  it.each([
    ['Titel=Movie', 'SUBGRAPH_RENAMES: Titel is not a type of this graph'],
    ['Query=Root', 'SUBGRAPH_RENAMES: Query is a root type, which keeps its name in every subgraph'],
    ['Title=Admin', 'SUBGRAPH_RENAMES: Admin and Title would both be named Admin as the router sees them'],
  ])('stops start-up on %s, naming the problem', async (renames, message) => {
    await expect(buildSchema(undefined, loadConfig({ SUBGRAPH_RENAMES: renames }).subgraph)).rejects.toThrow(message);
    await expect(buildSchema(undefined, loadConfig({ SUBGRAPH_RENAMES: renames }).subgraph)).rejects.toBeInstanceOf(
      ConfigError,
    );
  });

  it('checks a rename against every domain, also those an instance does not serve (a split deployment shares one configuration)', async () => {
    const chatOnly = await subgraphSdl(['chat'], { renames: { Title: 'Movie', ChatMessage: 'ChatReply' } });
    expect(chatOnly).toMatch(/type ChatReply\b/);
    await expect(subgraphSdl(['chat'], { renames: { Tittle: 'Movie' } })).rejects.toThrow(
      'Tittle is not a type of this graph',
    );
  });

  it('refuses a prefix and a rename that give two types one name', async () => {
    await expect(
      buildSchema(
        undefined,
        loadConfig({ SUBGRAPH_TYPE_PREFIX: 'Ops', SUBGRAPH_RENAMES: 'ChatMessage=OpsAdmin' }).subgraph,
      ),
    ).rejects.toThrow('SUBGRAPH_RENAMES: ChatMessage and Admin would both be named OpsAdmin as the router sees them');
  });

  it.each([
    ['Title', '"Title" is not Old=New'],
    ['Title=Movie=Film', '"Title=Movie=Film" is not Old=New'],
    ['Title=1Movie', '"1Movie" in "Title=1Movie" is not a GraphQL type name'],
    ['Title=Movie,Title=Film', 'Title is renamed twice (to Movie and to Film)'],
    ['Title=Movie,Admin=Movie', 'Title and Admin are both renamed to Movie'],
  ])('refuses SUBGRAPH_RENAMES=%s when the configuration is read', (value, message) => {
    expect(() => loadConfig({ SUBGRAPH_RENAMES: value })).toThrow(`SUBGRAPH_RENAMES: ${message}`);
  });

  it('refuses a prefix that cannot start a type name', () => {
    expect(() => loadConfig({ SUBGRAPH_TYPE_PREFIX: '_ops' })).toThrow(
      'SUBGRAPH_TYPE_PREFIX: "_ops" cannot start a GraphQL type name',
    );
  });

  it('npm start stops with one line naming the variable when a renamed type does not exist', async () => {
    const p = spawnGateway({ SUBGRAPH_RENAMES: 'Titel=Movie' });
    expect(await p.exited).toBe(2);
    expect(p.stderr).toEqual([
      expect.stringMatching(/^configuration error: SUBGRAPH_RENAMES: Titel is not a type of this graph/),
    ]);
  });
});

describe('without a prefix or renames', () => {
  it('serves the names of schema/, as the standalone graph always did', async () => {
    const schema = await buildSchema();
    expect(servedTypeName(schema, 'Title')).toBe('Title');
    expect(isObjectType(schema.getType('Title'))).toBe(true);
    expect(schema.getType('OpsTitle')).toBeUndefined();
  });
});

describe('@tag(name: "<domain>")', () => {
  it('is on every type a domain defines and on every root field, naming that domain; shared value types, what they refer to, and scalars are untagged', async () => {
    const schema = await buildSchema();
    const doc: DocumentNode = parse(await subgraphSdl());
    const tags = (node: { directives?: readonly ConstDirectiveNode[] }) =>
      (node.directives ?? []).filter((x) => x.name.value === 'tag').map((x) => args(x).name);
    let tagged = 0;
    const untagged: string[] = [];
    for (const d of doc.definitions) {
      if (!('name' in d) || !d.name || !('directives' in d)) continue;
      const name = d.name.value;
      if (['Query', 'Mutation', 'Subscription'].includes(name)) {
        for (const f of ('fields' in d ? d.fields : undefined) ?? []) {
          expect(tags(f), `${name}.${f.name.value}`).toEqual([domainOf(schema, `${name}.${f.name.value}`)]);
          tagged++;
        }
        continue;
      }
      const domain = domainOf(schema, name);
      const found = tags(d as { directives?: readonly ConstDirectiveNode[] });
      if (domain && found.length === 0) untagged.push(name);
      else expect(found, name).toEqual(domain ? [domain] : []);
      if (found.length) tagged++;
    }
    expect(tagged).toBeGreaterThan(100);
    expect(untagged.sort()).toEqual(['BodyType', 'ItemBody', 'KeyValuePair', 'PageInfo']);
    expect(domainOf(schema, 'Query.upstreams')).toBe('gateway');
  });
});

describe('SUBGRAPH_OVERRIDES', () => {
  it('puts @override(from:, label:) on each named field, by the name the router sees', async () => {
    const sdl = await subgraphSdl(undefined, {
      typePrefix: 'Ops',
      overrides: [
        { type: 'OpsTitle', field: 'plot', from: 'movies', label: 'percent(10)' },
        { type: 'OpsTitle', field: 'awards', from: 'movies' },
      ],
    });
    // After the field's @cost (a search item's plot is a lookup: docs/federation.md, "Demand control").
    expect(sdl).toMatch(/plot: String @cost\(weight: 10\) @override\(from: "movies", label: "percent\(10\)"\)/);
    expect(sdl).toMatch(/awards: String @cost\(weight: 10\) @override\(from: "movies"\)/);
  });

  it('leaves an override of a domain it does not serve to the instance that does, and refuses a field of no domain', async () => {
    const chatOnly = await subgraphSdl(['chat'], { overrides: [{ type: 'Title', field: 'plot', from: 'movies' }] });
    expect(chatOnly).not.toMatch(/@override\(/);
    await expect(
      subgraphSdl(['chat'], { overrides: [{ type: 'Title', field: 'plots', from: 'movies' }] }),
    ).rejects.toThrow('SUBGRAPH_OVERRIDES: Title.plots is not a field of this graph as a router sees it');
  });

  it.each([
    ['Title=movies', '"Title=movies" is not Type.field=subgraph'],
    ['Title.plot=movies@percent(150)', '"percent(150)" in "Title.plot=movies@percent(150)" is not an override label'],
  ])('refuses SUBGRAPH_OVERRIDES=%s when the configuration is read', (value, message) => {
    expect(() => loadConfig({ SUBGRAPH_OVERRIDES: value })).toThrow(`SUBGRAPH_OVERRIDES: ${message}`);
  });

  it('reads Type.field=subgraph@label pairs', () => {
    expect(
      loadConfig({ SUBGRAPH_OVERRIDES: 'Movie.plot=movies@percent(10), Movie.awards=catalog' }).subgraph.overrides,
    ).toEqual([
      { type: 'Movie', field: 'plot', from: 'movies', label: 'percent(10)' },
      { type: 'Movie', field: 'awards', from: 'catalog' },
    ]);
  });
});
