import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildSchema as buildSdl, isEnumType, isObjectType } from 'graphql';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { OperationsFileError, TrustedOperations } from '../../../src/trusted/operations.js';
import { startGateway } from '../../../src/app/gateway.js';
import { operationAnnotations } from '../../../src/transports/mcp/tools.js';
import { buildSchema } from '../../../src/schema/build.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

const API_KEY = 'mcp-test-key-0123456789';

async function connect(t: TestGateway, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'gateway-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.gateway.origin}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

const DEFAULT_TOOLS = [
  'ChatProviders',
  'RecentServiceIssues',
  'ServiceHealth',
  'ServiceHealthOverview',
  'TitleLookup',
  'TitleSearch',
];

describe('/mcp: trusted operations as Model Context Protocol tools', () => {
  let t: TestGateway;
  let client: Client;
  beforeAll(async () => {
    t = await startTestGateway();
    client = await connect(t);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('lists each named operation of the default folder as one tool, with its comment and a JSON Schema of its variables', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(DEFAULT_TOOLS);
    const health = tools.find((tool) => tool.name === 'ServiceHealth')!;
    expect(health.description).toMatch(/^One service's health by its id \(such as "Exchange"\)/);
    expect(health.inputSchema).toEqual({
      type: 'object',
      properties: { id: { type: 'string' }, issues: { type: 'integer', default: 5 } },
      required: ['id'],
      additionalProperties: false,
    });
    const lookup = tools.find((tool) => tool.name === 'TitleLookup')!;
    // UNKNOWN_FUTURE_VALUE only describes answers: a caller may not send it, so the input schema does not offer it.
    expect(lookup.inputSchema.properties?.type).toMatchObject({
      type: 'string',
      enum: ['MOVIE', 'SERIES', 'EPISODE', 'GAME'],
    });
    expect(lookup.inputSchema.required).toBeUndefined();
  });

  it("annotates every tool from its operation: queries read, and reach the open world when they select a domain's data", async () => {
    const { tools } = await client.listTools();
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]))).toEqual({
      ChatProviders: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      RecentServiceIssues: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      ServiceHealth: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      ServiceHealthOverview: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      TitleLookup: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      TitleSearch: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    });
  });

  it("declares every tool's outputSchema: the answer envelope, its data as the operation selects it", async () => {
    const { tools } = await client.listTools();
    for (const tool of tools)
      expect(tool.outputSchema, tool.name).toMatchObject({
        type: 'object',
        required: ['data'],
        properties: { data: { anyOf: [{ type: 'object' }, { type: 'null' }] } },
      });
    const health = tools.find((tool) => tool.name === 'ServiceHealth')!;
    const data = (health.outputSchema!.properties as any).data.anyOf[0];
    const overview = data.properties.admin.properties.serviceAnnouncement.properties.healthOverview;
    expect(overview).toMatchObject({
      type: ['object', 'null'],
      required: ['id', 'service', 'status', 'issues'],
      additionalProperties: false,
    });
    expect(overview.properties.status).toMatchObject({
      type: 'string',
      enum: expect.arrayContaining(['SERVICE_OPERATIONAL', 'UNKNOWN_FUTURE_VALUE']),
    });
    const issue = overview.properties.issues.properties.nodes.items;
    expect(issue.properties).toMatchObject({
      id: { type: 'string' },
      isResolved: { type: ['boolean', 'null'] },
      startDateTime: { type: ['string', 'null'], format: 'date-time' },
    });
    // The SDK client validates every structured result against these schemas (each call in this file passes).
  });

  it('describes values as the answers spell them', async () => {
    const schema = await buildSchema();
    const enumValues = new Map<string, string>();
    const fieldNames = new Set<string>();
    for (const type of Object.values(schema.getTypeMap())) {
      if (isEnumType(type))
        for (const { name } of type.getValues())
          if (name.includes('_')) enumValues.set(name.replace(/_/g, '').toLowerCase(), name);
      if (isObjectType(type)) for (const name of Object.keys(type.getFields())) fieldNames.add(name);
    }
    const { tools } = await client.listTools();
    for (const tool of tools) {
      for (const word of tool.description!.match(/[A-Za-z_]+/g) ?? []) {
        // A field's name (isResolved) is spelled as the field; a value (SERVICE_OPERATIONAL) as the enum spells it.
        const value = fieldNames.has(word) ? undefined : enumValues.get(word.replace(/_/g, '').toLowerCase());
        if (value) expect(word, `${tool.name}: ${word}`).toBe(value);
      }
    }
    expect(tools.find((t) => t.name === 'ServiceHealthOverview')!.description).toContain('SERVICE_OPERATIONAL');
  });

  it('calls a service-health tool: one Graph request, the result as structured content and as text', async () => {
    t.clearUpstreamRequests();
    const result = await client.callTool({ name: 'ServiceHealth', arguments: { id: 'Exchange', issues: 2 } });
    expect(result.isError).toBe(false);
    const health = (result.structuredContent as any).data.admin.serviceAnnouncement.healthOverview;
    expect(health).toMatchObject({ id: 'Exchange', service: 'Exchange Online', status: expect.any(String) });
    expect(health.issues.nodes).toHaveLength(2);
    expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toEqual(result.structuredContent);
    const graph = t.upstreamRequests('graph').filter((r) => !r.url.includes('/oauth2/'));
    expect(graph).toHaveLength(1);
    expect(decodeURIComponent(graph[0].url)).toContain('/healthOverviews/Exchange?');
  });

  it('calls a title tool: one OMDb request', async () => {
    t.clearUpstreamRequests();
    const result = await client.callTool({ name: 'TitleLookup', arguments: { imdbId: 'tt0078346' } });
    expect(result.isError).toBe(false);
    expect((result.structuredContent as any).data.title).toMatchObject({
      imdbId: 'tt0078346',
      title: expect.any(String),
    });
    const omdb = t.upstreamRequests('omdb');
    expect(omdb).toHaveLength(1);
    expect(omdb[0].url).toContain('i=tt0078346');
  });

  it('refuses bad arguments with a clear error before any upstream request', async () => {
    t.clearUpstreamRequests();
    const missing = await client.callTool({ name: 'ServiceHealth', arguments: {} });
    expect(missing.isError).toBe(true);
    expect((missing.content as Array<{ text: string }>)[0].text).toBe(
      'Bad arguments for ServiceHealth: Variable "$id" of required type "ID!" was not provided.',
    );
    expect((missing.structuredContent as any).errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', argument: 'id' });

    const wrongType = await client.callTool({ name: 'TitleSearch', arguments: { query: 'alien', type: 'FILM' } });
    expect((wrongType.content as Array<{ text: string }>)[0].text).toMatch(
      /Bad arguments for TitleSearch: Variable "\$type" got invalid value "FILM"; Value "FILM" does not exist in "TitleType" enum/,
    );
    expect((wrongType.structuredContent as any).errors[0].extensions.argument).toBe('type');

    const unknown = await client.callTool({ name: 'ServiceHealth', arguments: { id: 'Exchange', service: 'x' } });
    expect((unknown.content as Array<{ text: string }>)[0].text).toBe(
      'ServiceHealth has no argument "service"; it takes id, issues.',
    );
    expect((unknown.structuredContent as any).errors[0].extensions.argument).toBe('service');

    // The SDK's prefix once, then the message: the server does not put it there a second time.
    await expect(client.callTool({ name: 'DropTables', arguments: {} })).rejects.toThrow(
      /^MCP error -32602: Unknown tool "DropTables"; this server offers ChatProviders, RecentServiceIssues, ServiceHealthOverview, ServiceHealth, TitleLookup, TitleSearch\.$/,
    );
    expect(t.upstreamRequests()).toHaveLength(0);
    expect(
      t.logs
        .json()
        .filter((l) => l.msg === 'mcp tool refused')
        .map((l) => [l.tool, l.code]),
    ).toEqual([
      ['ServiceHealth', 'BAD_USER_INPUT'],
      ['TitleSearch', 'BAD_USER_INPUT'],
      ['ServiceHealth', 'BAD_USER_INPUT'],
    ]);
  });

  it('any answer without the data asked for is a tool error, with the codes and the tool argument at fault by name', async () => {
    const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
      ['TitleLookup', {}, 'imdbId', /^Give imdbId \(e\.g\. "tt0078346"\) or title/],
      ['TitleLookup', { imdbId: 'tt0078346', title: 'Alien' }, 'imdbId', /^Give either imdbId or title, not both/],
      ['RecentServiceIssues', { first: -1 }, 'first', /^first: -1 is out of range/],
      // The operation passes $issues to the field argument `first`: the error names the tool's argument.
      ['ServiceHealth', { id: 'Exchange', issues: -1 }, 'issues', /^first: -1 is out of range/],
    ];
    for (const [name, args, argument, message] of cases) {
      t.clearUpstreamRequests();
      const result = await client.callTool({ name, arguments: args });
      const label = `${name}(${JSON.stringify(args)})`;
      expect(result.isError, label).toBe(true);
      const [error] = (result.structuredContent as any).errors;
      expect(error.message, label).toMatch(message);
      expect(error.extensions, label).toEqual({ code: 'BAD_USER_INPUT', argument });
      expect(JSON.parse((result.content as Array<{ text: string }>)[0].text), label).toEqual(result.structuredContent);
      expect(
        t.upstreamRequests().filter((r) => !r.url.includes('/oauth2/')),
        label,
      ).toHaveLength(0);
    }
  });

  it('passes every call through the operation rules: one operation log line per call, on transport mcp', async () => {
    const before = t.logs.json().filter((l) => l.msg === 'operation' && l.transport === 'mcp').length;
    await client.callTool({ name: 'ChatProviders', arguments: {} });
    const lines = t.logs.json().filter((l) => l.msg === 'operation' && l.transport === 'mcp');
    expect(lines).toHaveLength(before + 1);
    expect(lines.at(-1)).toMatchObject({ operation: 'ChatProviders', type: 'query', outcome: 'ok' });
  });
});

describe('/mcp with GATEWAY_API_KEYS', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ GATEWAY_API_KEYS: API_KEY });
  });
  afterAll(async () => t?.close());

  it('refuses a client without the key (401) and serves one with it', async () => {
    await expect(connect(t)).rejects.toThrow(/401|API key/);
    const client = await connect(t, { 'x-api-key': API_KEY });
    t.clearUpstreamRequests();
    const result = await client.callTool({ name: 'ServiceHealthOverview', arguments: { first: 3 } });
    expect((result.structuredContent as any).data.admin.serviceAnnouncement.healthOverviews.nodes).toHaveLength(3);
    expect(t.upstreamRequests('graph').filter((r) => !r.url.includes('/oauth2/'))).toHaveLength(1);
    await client.close();
  });
});

describe('MCP_OPERATIONS, MCP_ALLOW_MUTATIONS, MCP_ALLOW_FREEFORM', () => {
  it('a file that does not validate against the schema stops start-up with an error naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-ops-'));
    writeFileSync(join(dir, 'broken.graphql'), '# Broken\nquery Broken { admin { nonsense } }\n');
    await expect(
      startGateway({ config: loadConfig({ PORT: '0', MCP_OPERATIONS: dir, LOG_LEVEL: 'silent' }) }),
    ).rejects.toThrow(
      new OperationsFileError(`${join(dir, 'broken.graphql')}: Cannot query field "nonsense" on type "Admin".`),
    );
  });

  it('lists mutations only with MCP_ALLOW_MUTATIONS, never subscriptions, and refuses an anonymous operation', async () => {
    const schema = await buildSchema();
    const dir = mkdtempSync(join(tmpdir(), 'mcp-ops-'));
    writeFileSync(
      join(dir, 'ops.graphql'),
      '# Creates a service.\nmutation CreateService($input: ServiceHealthInput!) { createServiceHealth(input: $input) { id } }\n' +
        'subscription Clock { serverTime(count: 1) }\nquery Upstreams { upstreams { id } }\n',
    );
    expect(
      TrustedOperations.load(schema, { dir })
        .list()
        .map((o) => o.name),
    ).toEqual(['Upstreams']);
    expect(() => TrustedOperations.load(schema, { dir }).require('CreateService', 'graphTools')).toThrow(
      /CreateService is a mutation, and MCP_ALLOW_MUTATIONS is off/,
    );
    const withMutations = TrustedOperations.load(schema, { dir, allowMutations: true });
    expect(withMutations.list().map((o) => o.name)).toEqual(['CreateService', 'Upstreams']);
    expect(withMutations.get('CreateService')!.inputSchema).toMatchObject({
      required: ['input'],
      properties: { input: { type: 'object', required: expect.arrayContaining(['id']) } },
    });
    const annotations = (name: string) =>
      operationAnnotations(schema, TrustedOperations.load(schema, { dir, allowMutations: true }).get(name)!);
    expect(annotations('CreateService')).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(annotations('Upstreams')).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    writeFileSync(
      join(dir, 'delete.graphql'),
      '# Deletes a service.\nmutation DeleteService($id: ID!) { deleteServiceHealth(id: $id) }\n',
    );
    expect(annotations('DeleteService')).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    });
    writeFileSync(join(dir, 'anonymous.graphql'), '{ upstreams { id } }\n');
    expect(() => TrustedOperations.load(schema, { dir })).toThrow(/anonymous.graphql: every operation needs a name/);
  });

  it("reads a tool's OAuth scopes from an @scope line of its comment, which the description leaves out", async () => {
    const schema = await buildSchema();
    const dir = mkdtempSync(join(tmpdir(), 'mcp-ops-'));
    writeFileSync(
      join(dir, 'ops.graphql'),
      '# The upstreams.\n# @scope gateway:read ops:read\n# Live or sandbox.\nquery Upstreams { upstreams { id } }\n',
    );
    expect(TrustedOperations.load(schema, { dir }).get('Upstreams')).toMatchObject({
      description: 'The upstreams. Live or sandbox.',
      scopes: ['gateway:read', 'ops:read'],
    });
    writeFileSync(join(dir, 'ops.graphql'), '# The upstreams.\n# @scope\nquery Upstreams { upstreams { id } }\n');
    expect(() => TrustedOperations.load(schema, { dir })).toThrow(
      /ops.graphql: the @scope line of Upstreams needs OAuth scopes separated by spaces \(such as "# @scope health:read"\), got "@scope"/,
    );
  });

  it('derives the output schema from the selection: aliases, @include, fragments on narrower types, unions, lists, custom scalars', async () => {
    const schema = buildSdl(`scalar DateTime
      interface Node { id: ID! }
      type Movie implements Node { id: ID! title: String! year: Int }
      type Series implements Node { id: ID! title: String! seasons: Int! }
      union Result = Movie | Series
      enum Kind { MOVIE SERIES }
      type Query { node(id: ID!): Node, search: [Result!]!, at: DateTime!, kind: Kind }`);
    const dir = mkdtempSync(join(tmpdir(), 'mcp-ops-'));
    writeFileSync(
      join(dir, 'q.graphql'),
      'query Q($full: Boolean!) { first: node(id: "1") { id ... on Movie { year } ...S } search { __typename ... on Movie { title } } at kind @include(if: $full) }\nfragment S on Series { seasons }\n',
    );
    expect(TrustedOperations.load(schema, { dir }).get('Q')!.outputSchema).toEqual({
      type: 'object',
      properties: {
        first: {
          type: ['object', 'null'],
          properties: { id: { type: 'string' }, year: { type: ['integer', 'null'] }, seasons: { type: 'integer' } },
          required: ['id'],
          additionalProperties: false,
        },
        search: {
          type: 'array',
          items: {
            type: 'object',
            properties: { __typename: { type: 'string' }, title: { type: 'string' } },
            required: ['__typename'],
            additionalProperties: false,
          },
        },
        at: { type: 'string', format: 'date-time' },
        kind: { type: ['string', 'null'], enum: ['MOVIE', 'SERIES', null] },
      },
      required: ['first', 'search', 'at'],
      additionalProperties: false,
    });
  });

  it('derives nested input objects, lists and custom scalars', async () => {
    const schema = buildSdl(
      'scalar DateTime\ninput Range { from: DateTime!, to: DateTime }\ntype Query { q(ranges: [Range!]!, tags: [String]): Int }',
    );
    const dir = mkdtempSync(join(tmpdir(), 'mcp-ops-'));
    writeFileSync(
      join(dir, 'q.graphql'),
      'query Q($ranges: [Range!]!, $tags: [String]) { q(ranges: $ranges, tags: $tags) }\n',
    );
    expect(TrustedOperations.load(schema, { dir }).get('Q')!.inputSchema).toEqual({
      type: 'object',
      properties: {
        ranges: {
          type: 'array',
          items: {
            type: 'object',
            properties: { from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' } },
            required: ['from'],
            additionalProperties: false,
          },
        },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['ranges'],
      additionalProperties: false,
    });
  });

  it('MCP_ALLOW_FREEFORM adds execute_graphql, which still refuses mutations without MCP_ALLOW_MUTATIONS', async () => {
    const t = await startTestGateway({ MCP_ALLOW_FREEFORM: 'true' });
    const client = await connect(t);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('execute_graphql');
      const ok = await client.callTool({ name: 'execute_graphql', arguments: { query: '{ upstreams { id } }' } });
      expect((ok.structuredContent as any).data.upstreams.map((u: { id: string }) => u.id)).toContain('omdb');
      t.clearUpstreamRequests();
      // One field failing leaves the others' data, and the answer is still a tool error: not all the data asked for came.
      const partial = await client.callTool({
        name: 'execute_graphql',
        arguments: { query: '{ upstreams { id } title { title } }' },
      });
      expect(partial.isError).toBe(true);
      expect((partial.structuredContent as any).data.upstreams.map((u: { id: string }) => u.id)).toContain('omdb');
      expect((partial.structuredContent as any).errors[0]).toMatchObject({
        path: ['title'],
        extensions: { code: 'BAD_USER_INPUT' },
      });
      const refused = await client.callTool({
        name: 'execute_graphql',
        arguments: { query: 'mutation { deleteServiceHealth(id: "Exchange") }' },
      });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0].text).toBe(
        'execute_graphql runs queries only: mutations need MCP_ALLOW_MUTATIONS.',
      );
      expect(t.upstreamRequests()).toHaveLength(0);
    } finally {
      await client.close();
      await t.close();
    }
  });
});

describe('/mcp under GATEWAY_DOMAINS', () => {
  it('offers the shipped tools of the served domains only, and starts', async () => {
    const t = await startTestGateway({ GATEWAY_DOMAINS: 'titles' });
    const client = await connect(t);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['TitleLookup', 'TitleSearch']);
    } finally {
      await client.close();
      await t.close();
    }
  });
});

describe('/mcp with PERSISTED_OPERATIONS_FILE', () => {
  it("runs the trusted operations (they are the gateway's own), and still refuses a free-form query the manifest does not list", async () => {
    const manifest = join(mkdtempSync(join(tmpdir(), 'persisted-')), 'manifest.json');
    writeFileSync(
      manifest,
      JSON.stringify({
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [{ id: 'a1', name: 'Upstreams', type: 'query', body: 'query Upstreams { upstreams { id } }' }],
      }),
    );
    const t = await startTestGateway({ PERSISTED_OPERATIONS_FILE: manifest, MCP_ALLOW_FREEFORM: 'true' });
    const client = await connect(t);
    try {
      const tool = await client.callTool({ name: 'ServiceHealth', arguments: { id: 'Exchange' } });
      expect(tool.isError).toBe(false);
      expect((tool.structuredContent as any).data.admin.serviceAnnouncement.healthOverview.id).toBe('Exchange');
      t.clearUpstreamRequests();
      const freeform = await client.callTool({
        name: 'execute_graphql',
        arguments: { query: '{ chatProviders { id } }' },
      });
      expect((freeform.structuredContent as any).errors[0].extensions).toMatchObject({
        code: 'FORBIDDEN',
        reason: 'PERSISTED_QUERY_NOT_FOUND',
      });
      expect(t.upstreamRequests()).toHaveLength(0);
    } finally {
      await client.close();
      await t.close();
    }
  });
});
