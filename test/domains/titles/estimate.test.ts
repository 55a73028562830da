import { Kind, parse, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { estimateOmdbBeforeRun } from '../../../src/domains/titles/estimate.js';
import type { GatewayServices } from '../../../src/context/services.js';
import type { OmdbAnswer, OmdbClient } from '../../../src/upstreams/omdb/client.js';
import { omdbQueryKey, type OmdbQuery } from '../../../src/upstreams/omdb/query.js';
import type { OmdbTitleJson } from '../../../src/upstreams/omdb/types.js';
import { buildSchema } from '../../../src/schema/build.js';

let schema: GraphQLSchema;
beforeAll(async () => {
  schema = await buildSchema();
});

/** An OMDb client whose cache holds `cached` (by query key): the estimate reads nothing else of it. */
function servicesWith(cached: Record<string, OmdbAnswer>): GatewayServices {
  const omdb = { peek: (q: OmdbQuery) => cached[omdbQueryKey(q)] } as unknown as OmdbClient;
  return { clients: { omdb } } as unknown as GatewayServices;
}

function estimate(query: string, variables: Record<string, unknown>, services: GatewayServices): number | undefined {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  return estimateOmdbBeforeRun({ schema, operation, fragments, variableValues: variables }, services).omdb;
}

const movie = (imdbID: string, Type = 'movie'): OmdbAnswer => ({
  kind: 'title',
  title: { Response: 'True', imdbID, Title: `Title ${imdbID}`, Type } as unknown as OmdbTitleJson,
});

/** Title lookups alone: estimated from the document's lookups, without the walk. */
const LOOKUPS = `query ($id: ID!, $other: ID) {
  a: title(imdbId: $id) { title }
  b: title(imdbId: "TT0944947") { year ...More }
  c: title(imdbId: $other) { title }
  d: title(imdbId: "not an id") { title }
  e: title(title: "Breaking Bad", type: SERIES) { imdbId }
}
fragment More on Title { genres ratings { source value } }`;

/**
 * The same lookups walked whole: a selection a variable can skip makes the estimate walk the operation, as every
 * operation was estimated before (and as one with search pages, entity references or series still is).
 */
const WALKED = LOOKUPS.replace(
  'query ($id: ID!, $other: ID) {',
  'query ($id: ID!, $other: ID, $walk: Boolean = false) { __typename @include(if: $walk)',
);

describe('the OMDb estimate of title lookups', () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, OmdbAnswer>, number]> = [
    [
      'nothing cached: distinct queries, whatever their case, a bad id counting none',
      { id: 'tt0944947', other: 'tt0903747' },
      {},
      3,
    ],
    ['some cached', { id: 'tt0944947', other: 'tt0903747' }, { 'i=tt0944947': movie('tt0944947', 'series') }, 2],
    [
      'a variable left out',
      { id: 'tt0111161' },
      { 'i=tt0944947': { kind: 'notFound', error: 'Incorrect IMDb ID.' } },
      2,
    ],
    [
      'everything cached',
      { id: 'tt0944947', other: 'tt0903747' },
      {
        'i=tt0944947': movie('tt0944947'),
        'i=tt0903747': movie('tt0903747'),
        [omdbQueryKey({ kind: 'byTitle', title: 'Breaking Bad', type: 'series', plot: 'short' })]: movie('tt0903747'),
      },
      0,
    ],
  ];
  for (const [name, variables, cached, expected] of cases) {
    it(`counts what the whole walk counts: ${name}`, () => {
      const services = servicesWith(cached);
      expect(estimate(WALKED, { ...variables, walk: false }, services)).toBe(expected);
      expect(estimate(LOOKUPS, variables, services)).toBe(expected);
      // Asked again (the document's decision kept), the answer is the same.
      expect(estimate(LOOKUPS, variables, services)).toBe(expected);
    });
  }

  it('still walks a lookup that selects what needs more requests below it', () => {
    const services = servicesWith({});
    // An uncached title's seasons: its season lists and their episodes, by the estimate's bounds.
    expect(estimate('{ title(imdbId: "tt0944947") { seasons { number episodes { title } } } }', {}, services)).toBe(9);
    expect(
      estimate(
        '{ title(imdbId: "tt0944947") { title } searchTitles(query: "star") { items { title } } }',
        {},
        services,
      ),
    ).toBe(2);
  });
});
