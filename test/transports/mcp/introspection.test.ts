import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

async function connect(t: TestGateway): Promise<Client> {
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.gateway.origin}/mcp`)));
  return client;
}

const text = (result: Record<string, unknown>) => (result.content as Array<{ text: string }>)[0].text;
const LOOKUP = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

describe('MCP_INTROSPECTION with MCP_ALLOW_FREEFORM: an agent finds, checks and runs its own query', () => {
  let t: TestGateway;
  let client: Client;
  beforeAll(async () => {
    t = await startTestGateway({ MCP_INTROSPECTION: 'true', MCP_ALLOW_FREEFORM: 'true', GATEWAY_MAX_DEPTH: '8' });
    client = await connect(t);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('adds introspect, search and validate: schema lookups, read-only and closed-world, each with an outputSchema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'ChatProviders',
      'RecentServiceIssues',
      'ServiceHealthOverview',
      'ServiceHealth',
      'TitleLookup',
      'TitleSearch',
      'execute_graphql',
      'introspect',
      'search',
      'validate',
    ]);
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    for (const name of ['introspect', 'search', 'validate']) {
      expect(byName[name].annotations, name).toEqual(LOOKUP);
      expect(byName[name].outputSchema, name).toMatchObject({ type: 'object' });
    }
    expect(byName.execute_graphql.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(byName.execute_graphql.description).toContain('check a query with `validate` before running it');
  });

  it('finds a field with search, checks a query with validate, and runs it with execute_graphql: one Graph request in all', async () => {
    t.clearUpstreamRequests();
    const found = await client.callTool({ name: 'search', arguments: { terms: ['impact', 'issue'], limit: 3 } });
    expect(found.isError).toBe(false);
    const [best] = (found.structuredContent as any).results;
    expect(best).toMatchObject({
      coordinate: 'ServiceHealthIssue.impactDescription',
      kind: 'field',
      type: 'String',
      path: 'admin.serviceAnnouncement.issues.nodes.impactDescription',
    });
    expect(text(found).split('\n')[0]).toBe(
      'ServiceHealthIssue.impactDescription (field: String) at admin.serviceAnnouncement.issues.nodes.impactDescription',
    );

    const query =
      'query Impacts($first: Int!) { admin { serviceAnnouncement { issues(first: $first) { nodes { id impactDescription } } } } }';
    const checked = await client.callTool({ name: 'validate', arguments: { query, variables: { first: 3 } } });
    expect(checked.isError).toBe(false);
    expect(checked.structuredContent).toEqual({
      valid: true,
      operation: { name: 'Impacts', type: 'query' },
      variables: [{ name: 'first', type: 'Int!', required: true }],
      upstreamRequests: { graph: 1, omdb: 0 },
    });
    expect(text(checked)).toBe('Valid query Impacts; it can cause 1 graph request.');
    expect(t.upstreamRequests()).toHaveLength(0);

    const ran = await client.callTool({ name: 'execute_graphql', arguments: { query, variables: { first: 3 } } });
    expect(ran.isError).toBe(false);
    const nodes = (ran.structuredContent as any).data.admin.serviceAnnouncement.issues.nodes;
    expect(nodes).toHaveLength(3);
    expect(nodes[0]).toEqual({ id: expect.any(String), impactDescription: expect.any(String) });
    expect(t.upstreamRequests('graph').filter((r) => !r.url.includes('/oauth2/'))).toHaveLength(1);
  });

  it('introspect answers a type as SDL with the types it names, to a depth, without the federation fields', async () => {
    const root = await client.callTool({ name: 'introspect', arguments: { type: 'Query', depth: 0 } });
    expect(root.isError).toBe(false);
    expect((root.structuredContent as any).types).toEqual(['Query']);
    expect(text(root)).toMatch(/^type Query \{/);
    expect(text(root)).toContain(
      'searchTitles(query: String!, year: Int, type: TitleType, page: Int = 1): TitleSearchPage',
    );
    expect(text(root)).not.toMatch(/_entities|_service/);
    const issue = await client.callTool({ name: 'introspect', arguments: { type: 'ServiceHealthIssue' } });
    expect((issue.structuredContent as any).types).toEqual([
      'ServiceHealthIssue',
      'ServiceHealthClassification',
      'ServiceHealthOrigin',
      'ServiceHealthStatus',
      'DateTime',
      'KeyValuePair',
      'ServiceHealthIssuePost',
    ]);
    expect(text(issue)).toContain('enum ServiceHealthStatus {');
  });

  it('refuses what it cannot answer as a tool error naming the argument, with a way on', async () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['introspect', { type: 'Zzyzx' }, 'type', 'The schema has no type "Zzyzx". Use search to find one by words.'],
      [
        'introspect',
        { type: 'ServiceHelth' },
        'type',
        'The schema has no type "ServiceHelth". Did you mean ServiceHealth, ServiceHealthIssue, ServiceHealthInput?',
      ],
      ['introspect', { type: 'Query', depth: 4 }, 'depth', 'introspect: depth 4 is out of range; give 0 to 3.'],
      ['introspect', { type: 'Query', deep: true }, 'deep', 'introspect has no argument "deep"; it takes type, depth.'],
      [
        'search',
        { terms: [] },
        'terms',
        'search needs "terms", 1 to 10 words (each at most 100 characters), such as ["impact", "issue"].',
      ],
      ['search', { terms: ['issue'], limit: 51 }, 'limit', 'search: limit 51 is out of range; give 1 to 50.'],
    ];
    for (const [name, args, argument, message] of cases) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, name).toBe(true);
      expect(text(result), name).toBe(message);
      expect((result.structuredContent as any).errors[0].extensions, name).toEqual({
        code: 'BAD_USER_INPUT',
        argument,
      });
    }
  });

  it('validate checks the schema, the document limits, the budget and the mutation rule without running anything', async () => {
    t.clearUpstreamRequests();
    const deep = `{ admin { serviceAnnouncement { healthOverviews { nodes { issues { nodes { posts { description { content } } } } } } } } }`;
    const aliased = `{ ${Array.from({ length: 60 }, (_, i) => `t${i}: title(imdbId: "tt00000${String(i).padStart(2, '0')}") { title }`).join(' ')} }`;
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      [
        'unknown field',
        { query: '{ admin { nonsense } }' },
        { code: 'BAD_USER_INPUT', reason: 'GRAPHQL_VALIDATION_FAILED' },
      ],
      ['syntax error', { query: '{ admin { ' }, { code: 'BAD_USER_INPUT', reason: 'GRAPHQL_PARSE_FAILED' }],
      ['too deep', { query: deep }, { code: 'QUERY_TOO_COMPLEX', limit: 'GATEWAY_MAX_DEPTH' }],
      ['too many aliases', { query: aliased }, { code: 'QUERY_TOO_COMPLEX', limit: 'GATEWAY_MAX_ALIASES' }],
      [
        'a mutation',
        { query: 'mutation { deleteServiceHealth(id: "Exchange") }' },
        { code: 'BAD_USER_INPUT', argument: 'query' },
      ],
      [
        'a bad variable',
        {
          query: 'query($first: Int!) { admin { serviceAnnouncement { issues(first: $first) { nodes { id } } } } }',
          variables: { first: 'many' },
        },
        { code: 'BAD_USER_INPUT', argument: 'variables' },
      ],
    ];
    for (const [name, args, extensions] of cases) {
      const result = await client.callTool({ name: 'validate', arguments: args });
      expect(result.isError, name).toBe(true);
      expect((result.structuredContent as any).valid, name).toBe(false);
      expect((result.structuredContent as any).errors[0].extensions, name).toMatchObject(extensions);
    }
    expect(t.upstreamRequests()).toHaveLength(0);
  });
});

describe('validate and the upstream-request budget', () => {
  it('refuses what the gateway would refuse before running: more upstream requests than GATEWAY_MAX_UPSTREAM_REQUESTS', async () => {
    const t = await startTestGateway({ MCP_INTROSPECTION: 'true', GATEWAY_MAX_UPSTREAM_REQUESTS: '2' });
    const client = await connect(t);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).not.toContain('execute_graphql');
      const query =
        '{ a: title(imdbId: "tt0078346") { title } b: title(imdbId: "tt0090605") { title } c: title(imdbId: "tt0103064") { title } }';
      const result = await client.callTool({ name: 'validate', arguments: { query } });
      expect(result.isError).toBe(true);
      expect((result.structuredContent as any).errors[0]).toMatchObject({
        message:
          'Upstream request budget of 2 per upstream exceeded: this operation can cause 3 requests to omdb. Split it, select less, or raise GATEWAY_MAX_UPSTREAM_REQUESTS.',
        extensions: {
          code: 'QUERY_TOO_COMPLEX',
          limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS',
          max: 2,
          found: 3,
          upstream: 'omdb',
        },
      });
      expect(t.upstreamRequests()).toHaveLength(0);
    } finally {
      await client.close();
      await t.close();
    }
  });
});
