/**
 * Composition next to the subgraphs a company already runs, with Apollo's composer (@apollo/composition) and the
 * Guild's (@theguild/federation-composition): what fails without SUBGRAPH_TYPE_PREFIX / SUBGRAPH_RENAMES and composes
 * with them; domain instances that compose once the gateway domain is served by one of them; progressive `@override`
 * in both directions; a tag-based contract. Routing the results: routers.test.ts.
 */
import { parse } from 'graphql';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { GatewayDomain, SubgraphOptions } from '../../src/config/env.js';
import { subgraphSdl } from '../../src/schema/build.js';
import { people } from './company/people.js';
import type { OurNames } from './company/names.js';
import { support } from './company/support.js';
import {
  composition,
  compositionErrors,
  contractSupergraph,
  supergraph,
  type Composer,
  type Subgraph,
} from './routing.js';

const COMPOSERS: Composer[] = ['apollo', 'guild'];

const subgraph = (name: string, sdl: string): Subgraph => ({
  name,
  url: `http://127.0.0.1:4000/${name}`,
  typeDefs: parse(sdl),
});
/** This subgraph's SDL, built once per set of options for both composers' tests (each build is ~0.15 s of CPU). */
const built = new Map<string, Promise<string>>();
const ours = async (options: SubgraphOptions = {}, domains?: GatewayDomain[], name = 'ops') => {
  const key = JSON.stringify([options, domains]);
  if (!built.has(key)) built.set(key, subgraphSdl(domains, options));
  return subgraph(name, await built.get(key)!);
};
/** Error codes and how often each occurs, e.g. `{ SATISFIABILITY_ERROR: 34 }`. */
const tally = (codes: string[]) => codes.reduce<Record<string, number>>((t, c) => ({ ...t, [c]: (t[c] ?? 0) + 1 }), {});

/** A ```graphql block of docs/federation.md by its first line, `# <name>: …`: the guide's examples are what is composed here. */
const guide = readFileSync(new URL('../../docs/federation.md', import.meta.url), 'utf8');
function guideExample(name: string): string {
  const block = [...guide.matchAll(/```graphql\n([\s\S]*?)```/g)]
    .map((m) => m[1])
    .find((b) => b.startsWith(`# ${name}:`));
  if (!block) throw new Error(`docs/federation.md has no graphql example starting "# ${name}:"`);
  return block;
}

/** The company's subgraphs once this one is in: they refer to its entities by the names it serves them under. */
const companyOf = (names: OurNames) => [subgraph('people', people(names).sdl), subgraph('support', support(names).sdl)];

describe.each(COMPOSERS)("composed with %s's composer", (composer) => {
  describe('without a prefix or renames (the names of schema/)', () => {
    it('fails next to a people directory whose OrderDirection has one more value: ENUM_VALUE_MISMATCH', async () => {
      expect(tally(compositionErrors(composer, [await ours(), subgraph('people', people().sdl)]))).toEqual({
        ENUM_VALUE_MISMATCH: 1,
      });
    });

    it('fails next to its job Title @key(id) once the enum agrees: 34 unsatisfiable paths between the two Titles', async () => {
      const sameEnum = people().sdl.replace('ASC DESC UNSORTED', 'ASC DESC');
      expect(tally(compositionErrors(composer, [await ours(), subgraph('people', sameEnum)]))).toEqual({
        SATISFIABILITY_ERROR: 34,
      });
    });

    it('fails next to a support desk with its own ChatMessage entity: 8 unsatisfiable paths', async () => {
      expect(tally(compositionErrors(composer, [await ours(), subgraph('support', support().sdl)]))).toEqual({
        SATISFIABILITY_ERROR: 8,
      });
    });
  });

  it("composes with both company subgraphs under SUBGRAPH_TYPE_PREFIX=Ops, sharing Relay's PageInfo", async () => {
    const list = [
      await ours({ typePrefix: 'Ops' }),
      ...companyOf({ Title: 'OpsTitle', ServiceHealth: 'OpsServiceHealth' }),
    ];
    const { errors, supergraphSdl: sdl } = composition(composer, list);
    expect(errors).toEqual([]);
    expect(sdl).toMatch(/type PageInfo[^{]*@join__type\(graph: OPS\)\s+@join__type\(graph: PEOPLE\)/);
    expect(sdl).toMatch(/type Title[^{]*@join__type\(graph: PEOPLE, key: "id"\)/);
    expect(sdl).toMatch(
      /type OpsTitle[^{]*@join__type\(graph: OPS, key: "imdbId"\)\s+@join__type\(graph: PEOPLE, key: "imdbId", resolvable: false\)/,
    );
    expect(sdl).toMatch(/enum OrderDirection\s+@join__type\(graph: PEOPLE\)/);
    expect(sdl).toMatch(/enum OpsOrderDirection\s+@join__type\(graph: OPS\)/);
  });

  it('composes with SUBGRAPH_RENAMES=Title=Movie,ChatMessage=ChatReply,OrderDirection=SortDirection alone', async () => {
    const list = [
      await ours({ renames: { Title: 'Movie', ChatMessage: 'ChatReply', OrderDirection: 'SortDirection' } }),
      ...companyOf({ Title: 'Movie', ServiceHealth: 'ServiceHealth' }),
    ];
    const { errors, supergraphSdl } = composition(composer, list);
    expect(errors).toEqual([]);
    expect(supergraphSdl).toMatch(
      /type ServiceHealth[^{]*@join__type\(graph: OPS, key: "id"\)\s+@join__type\(graph: SUPPORT, key: "id"\)/,
    );
  });

  describe('one instance per domain', () => {
    it('did not compose while every instance served upstreams, Upstream and serverTime: INVALID_FIELD_SHARING', async () => {
      const each = await Promise.all(
        (['enterprise', 'titles', 'chat'] as const).map((d) => ours({}, [d, 'gateway'], d)),
      );
      expect(tally(compositionErrors(composer, each))).toEqual({ INVALID_FIELD_SHARING: 5 });
    });

    it('composes with the gateway domain on one of them, next to both company subgraphs, with a prefix or without', async () => {
      for (const [options, names] of [
        [{ typePrefix: 'Ops' }, { Title: 'OpsTitle', ServiceHealth: 'OpsServiceHealth' }],
        [
          { renames: { Title: 'Movie', ChatMessage: 'ChatReply', OrderDirection: 'SortDirection' } },
          { Title: 'Movie', ServiceHealth: 'ServiceHealth' },
        ],
      ] as Array<[SubgraphOptions, OurNames]>) {
        const instances = [
          await ours(options, ['enterprise', 'gateway'], 'ops_enterprise'),
          await ours(options, ['titles'], 'ops_titles'),
          await ours(options, ['chat'], 'ops_chat'),
        ];
        expect(compositionErrors(composer, [...instances, ...companyOf(names)])).toEqual([]);
        expect(compositionErrors(composer, instances)).toEqual([]);
      }
    });
  });

  describe('progressive @override', () => {
    /** A company catalogue that served movie plots before this subgraph came (docs/federation.md, "Moving fields"). */
    const movies = guideExample('movies');

    it('moves a company field into this subgraph with SUBGRAPH_OVERRIDES=OpsTitle.plot=movies@percent(10)', async () => {
      expect(
        tally(compositionErrors(composer, [await ours({ typePrefix: 'Ops' }), subgraph('movies', movies)])),
      ).toEqual({ INVALID_FIELD_SHARING: 1 });
      const taking = await ours({
        typePrefix: 'Ops',
        overrides: [{ type: 'OpsTitle', field: 'plot', from: 'movies', label: 'percent(10)' }],
      });
      const sdl = supergraph(composer, [taking, subgraph('movies', movies)]);
      expect(sdl).toMatch(
        /plot: String @join__field\(graph: MOVIES, overrideLabel: "percent\(10\)"\) @join__field\(graph: OPS, override: "movies", overrideLabel: "percent\(10\)"\)/,
      );
      // At 100 % the label is dropped and the company stops serving the field: the move is done.
      const done = await ours({ typePrefix: 'Ops', overrides: [{ type: 'OpsTitle', field: 'plot', from: 'movies' }] });
      expect(supergraph(composer, [done, subgraph('movies', movies)])).toMatch(
        /plot: String @join__field\(graph: OPS, override: "movies"\)/,
      );
    });

    it('moves one of this subgraph\'s fields to a company subgraph that declares @override(from: "ops", label: "percent(25)")', async () => {
      const taking = guideExample('catalog');
      const sdl = supergraph(composer, [await ours({ typePrefix: 'Ops' }), subgraph('catalog', taking)]);
      expect(sdl).toMatch(
        /rated: String @join__field\(graph: CATALOG, override: "ops", overrideLabel: "percent\(25\)"\) @join__field\(graph: OPS, overrideLabel: "percent\(25\)"\)/,
      );
    });
  });
});

describe("contracts on the domain tags (the Guild's composer, as Hive's schema contracts)", () => {
  it("drops the chat domain's root fields and types, keeps the company's own ChatMessage and every other domain", async () => {
    const { publicSdl } = contractSupergraph(
      [await ours({ typePrefix: 'Ops' }), ...companyOf({ Title: 'OpsTitle', ServiceHealth: 'OpsServiceHealth' })],
      ['chat'],
    );
    const api = parse(publicSdl);
    const root = (name: string) =>
      api.definitions.flatMap((d) =>
        'name' in d && d.name?.value === name && 'fields' in d ? (d.fields ?? []).map((f) => f.name.value) : [],
      );
    expect(root('Query').sort()).toEqual([
      'admin',
      'employees',
      'jobTitle',
      'searchTitles',
      'supportChat',
      'tickets',
      'title',
      'upstreams',
    ]);
    expect(root('Mutation')).not.toContain('createChatCompletion');
    expect(root('Subscription').sort()).toEqual(['serverTime', 'serviceHealthChanged', 'serviceMessagePosted']);
    expect(publicSdl).not.toMatch(/\bOpsChat|\bchatProviders\b|\bOpsEmbedding/);
    expect(publicSdl).toMatch(/type ChatMessage\b/);
  });

  it('keeps only the domains a variant does not exclude', async () => {
    const { publicSdl } = contractSupergraph([await ours({ typePrefix: 'Ops' })], ['chat', 'enterprise', 'gateway']);
    const query = parse(publicSdl).definitions.find((d) => 'name' in d && d.name?.value === 'Query');
    expect(query && 'fields' in query ? query.fields?.map((f) => f.name.value) : []).toEqual(['title', 'searchTitles']);
    expect(publicSdl).not.toMatch(/type Mutation|type Subscription|PageInfo/);
  });
});
