import { getOperationAST, parse, type GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { CachePolicies } from '../../../src/pipeline/rules/cachePolicy.js';
import { buildSchema } from '../../../src/schema/build.js';

let schema: GraphQLSchema;
let policies: CachePolicies;
beforeAll(async () => {
  schema = await buildSchema();
  policies = new CachePolicies(schema);
});

const policyOf = (query: string) => {
  const document = parse(query);
  return policies.of(document, getOperationAST(document)!);
};

describe('the cache policy of an operation', () => {
  it('is the smallest maxAge of what it selects, tagged with the domains it reads', () => {
    expect(policyOf(`{ title(imdbId: "tt0078748") { title ratings { source value } } }`)).toEqual({
      maxAge: 86400,
      scope: 'PUBLIC',
      domains: ['titles'],
    });
    expect(policyOf(`{ searchTitles(query: "alien") { items { title } } }`)).toMatchObject({ maxAge: 3600 });
    const both = policyOf(
      `{ title(imdbId: "tt0078748") { title } admin { serviceAnnouncement { healthOverviews { nodes { id issues { nodes { id } } } pageInfo { endCursor } } } } }`,
    );
    expect(both).toEqual({ maxAge: 60, scope: 'PUBLIC', domains: ['enterprise', 'titles'] });
  });

  it('follows fragments, and gives _entities the hints of the entity types it names', () => {
    expect(
      policyOf(
        `query { admin { ...A } } fragment A on Admin { serviceAnnouncement { healthOverview(id: "x") { id } } }`,
      ),
    ).toMatchObject({ maxAge: 60 });
    expect(
      policyOf(`query ($r: [_Any!]!) { _entities(representations: $r) { ... on Title { title } } }`),
    ).toMatchObject({ maxAge: 86400 });
    expect(
      policyOf(
        `query ($r: [_Any!]!) { _entities(representations: $r) { ... on Title { title } ... on ServiceHealth { id } } }`,
      ),
    ).toMatchObject({ maxAge: 60 });
  });

  it('is private for chat usage, and not cacheable for it, mutations, introspection or no field at all', () => {
    expect(policyOf(`{ chatUsage { provider totalTokens } }`)).toEqual({
      maxAge: 0,
      scope: 'PRIVATE',
      domains: ['chat'],
    });
    expect(policyOf(`mutation { deleteServiceHealth(id: "Exchange") }`)).toEqual({
      maxAge: 0,
      scope: 'PUBLIC',
      domains: ['enterprise'],
    });
    expect(policyOf(`{ __schema { queryType { name } } }`)).toMatchObject({ maxAge: 0 });
    expect(policyOf(`{ __typename }`)).toMatchObject({ maxAge: 0 });
  });

  it('is computed once per document', () => {
    const document = parse(`{ upstreams { id mode } }`);
    const operation = getOperationAST(document)!;
    const first = policies.of(document, operation);
    expect(first).toEqual({ maxAge: 300, scope: 'PUBLIC', domains: ['gateway'] });
    expect(policies.of(document, operation)).toBe(first);
  });
});
