/**
 * The demand-control directives a router reads (@cost, @listSize, Federation 2.9): derived from the planners' cost
 * hints at build time, imported by the subgraph's @link, and kept by both composers in the supergraph, so Apollo
 * Router's or Hive's demand control in front of this subgraph prices its fields.
 */
import { composeServices as composeWithApollo } from '@apollo/composition';
import { composeServices as composeWithGuild } from '@theguild/federation-composition';
import {
  getNamedType,
  getNullableType,
  graphql,
  isCompositeType,
  isListType,
  isObjectType,
  Kind,
  parse,
  print,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { costHints } from '../../src/domains/index.js';
import { buildSchema, subgraphSdl, subgraphTypeDefs } from '../../src/schema/build.js';
import { buildSubgraphSchema } from '@apollo/subgraph';

const HEALTH =
  'healthOverviews(orderBy: [ServiceHealthOrder!], first: Int = 100, after: String): ServiceHealthConnection @cost(weight: 11) @listSize(assumedSize: 100, slicingArguments: ["first"], sizedFields: ["nodes", "edges"], requireOneSlicingArgument: false)';

/** The demand-control directives of one field of a (super)graph SDL, printed with their arguments in name order (composers order them their own way). */
function costDirectives(sdl: string, type: string, field: string): string[] {
  const def = parse(sdl).definitions.find(
    (d) =>
      (d.kind === Kind.OBJECT_TYPE_DEFINITION || d.kind === Kind.OBJECT_TYPE_EXTENSION) &&
      d.name.value === type &&
      d.fields?.some((f) => f.name.value === field),
  );
  const node = def && 'fields' in def ? def.fields?.find((f) => f.name.value === field) : undefined;
  return (node?.directives ?? [])
    .filter((d) => d.name.value === 'cost' || d.name.value === 'listSize')
    .map((d) =>
      print({ ...d, arguments: [...(d.arguments ?? [])].sort((a, b) => a.name.value.localeCompare(b.name.value)) }),
    );
}

describe('@cost and @listSize in the subgraph SDL', () => {
  it('imports them with Federation 2.9 and weighs the fields that send upstream requests, sizing lists by their arguments', async () => {
    const sdl = await subgraphSdl();
    expect(sdl).toMatch(
      /@link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.9", import: \[[^\]]*"@cost", "@listSize"\]\)/,
    );
    expect(sdl).toContain(HEALTH);
    expect(sdl).toMatch(/title\(imdbId: ID[^)]*\): Title @tag\(name: "titles"\) @cost\(weight: 11\)/);
    expect(sdl).toMatch(
      /deleteServiceHealth\(id: ID!, ifMatch: String\): Boolean @tag\(name: "enterprise"\) @cost\(weight: 10\)/,
    );
    expect(sdl).toMatch(/items: \[Title\]! @listSize\(assumedSize: 10\)/);
    // A list one request brings whole weighs the request's share per element: 26 episodes, 1 each (10 / 26, rounded up).
    expect(sdl).toMatch(/\n\s*episodes: \[Title\] @cost\(weight: 1\) @listSize\(assumedSize: 26\)/);
    // A field a search item or a season's episode does not carry looks the title up: it weighs the lookup.
    expect(sdl).toMatch(/\n\s*rated: String @cost\(weight: 10\)\n/);
    expect(sdl).toMatch(/ratings: \[TitleRating!\]! @cost\(weight: 4\) @listSize\(assumedSize: 3\)/);
    // Fields every listing carries, and fields that read their parent's answer, keep the default weight.
    expect(sdl).toMatch(/\n\s*imdbId: ID!\n\s*title: String!\n/);
    expect(sdl).toMatch(/\n\s*status: ServiceHealthStatus!\n/);
  });

  it('gives a slicing argument its assumed size as a default in the SDL a router reads, not in the executable schema', async () => {
    const schema = await buildSchema();
    const announcement = schema.getType('ServiceAnnouncement');
    const first = isObjectType(announcement)
      ? announcement.getFields().healthOverviews.args.find((a) => a.name === 'first')
      : undefined;
    expect(first).toBeDefined();
    // A resolver sees an omitted `first` as omitted, as before; introspection shows no default either.
    expect(first!.defaultValue).toBeUndefined();
    const { data } = (await graphql({
      schema,
      source: '{ _service { sdl } }',
      contextValue: {},
    })) as { data: { _service: { sdl: string } } };
    expect(data._service.sdl).toContain(
      'healthOverviews(orderBy: [ServiceHealthOrder!], first: Int = 100, after: String)',
    );
  });

  it("gives every list of objects a size, so a router's own default never decides (a connection's nodes and edges take the connection's)", async () => {
    const schema = await buildSchema();
    const unsized: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('_')) continue;
      for (const field of Object.values(type.getFields())) {
        if (
          field.name.startsWith('_') ||
          !isListType(getNullableType(field.type)) ||
          !isCompositeType(getNamedType(field.type))
        )
          continue;
        const sized = field.astNode?.directives?.some((d) => d.name.value === 'listSize');
        if (!sized && !type.name.endsWith('Connection')) unsized.push(`${type.name}.${field.name}`);
      }
    }
    expect(unsized).toEqual([]);
  });

  it("names only types and fields of schema/ in the domains' cost hints", async () => {
    const schema = buildSubgraphSchema({ typeDefs: await subgraphTypeDefs() });
    const unknown = Object.keys(costHints).filter((coordinate) => {
      const [type, field] = coordinate.split('.');
      const t = schema.getType(type);
      return !isObjectType(t) || (field !== undefined && !t.getFields()[field]);
    });
    expect(unknown).toEqual([]);
  });

  it.each([
    [
      'Apollo',
      (sdl: string) =>
        composeWithApollo([{ name: 'gateway', url: 'http://127.0.0.1:4000/graphql', typeDefs: parse(sdl) }]),
    ],
    [
      'the Guild',
      (sdl: string) =>
        composeWithGuild([{ name: 'gateway', url: 'http://127.0.0.1:4000/graphql', typeDefs: parse(sdl) }]),
    ],
  ])("survive composition with %s's composer", async (_name, compose) => {
    const result = compose(await subgraphSdl()) as { errors?: readonly Error[]; supergraphSdl?: string };
    expect(result.errors ?? []).toEqual([]);
    const supergraph = result.supergraphSdl!;
    expect(supergraph).toMatch(/@link\(url: "https:\/\/specs\.apollo\.dev\/cost\/v0\.1", import: \["@listSize"\]\)/);
    expect(costDirectives(supergraph, 'ServiceAnnouncement', 'healthOverviews')).toEqual([
      '@cost(weight: 11)',
      '@listSize(assumedSize: 100, requireOneSlicingArgument: false, sizedFields: ["nodes", "edges"], slicingArguments: ["first"])',
    ]);
    expect(costDirectives(supergraph, 'Query', 'searchTitles')).toEqual(['@cost(weight: 11)']);
    expect(costDirectives(supergraph, 'Title', 'episodes')).toEqual(['@cost(weight: 1)', '@listSize(assumedSize: 26)']);
    expect(costDirectives(supergraph, 'Title', 'rated')).toEqual(['@cost(weight: 10)']);
    expect(costDirectives(supergraph, 'TitleSearchPage', 'items')).toEqual(['@listSize(assumedSize: 10)']);
  });

  it('keeps them under a type prefix (the directives follow the renamed types)', async () => {
    const sdl = await subgraphSdl(undefined, { typePrefix: 'Ops' });
    expect(sdl).toMatch(
      /healthOverviews\([^)]*\): OpsServiceHealthConnection @cost\(weight: 11\) @listSize\(assumedSize: 100/,
    );
    const result = composeWithGuild([{ name: 'gateway', url: 'http://127.0.0.1:4000/graphql', typeDefs: parse(sdl) }]);
    expect(result.errors ?? []).toEqual([]);
  });
});
