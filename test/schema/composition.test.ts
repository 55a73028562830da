/**
 * Composition with other teams' subgraphs (@theguild/federation-composition, in-process): a subgraph using the full
 * Relay `PageInfo` composes with this one, and a gateway serving only some domains (GATEWAY_DOMAINS) leaves the other
 * domains' root fields to other subgraphs.
 */
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { subgraphSdl } from '../../src/schema/build.js';
import { supergraph } from '../federation/routing.js';

/** Another team's subgraph with Relay connections: `PageInfo` in the full Relay shape, shared. */
const RELAY_SUBGRAPH = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@shareable"])
  type Query { tickets(first: Int, after: String): TicketConnection! }
  type Ticket @key(fields: "id") { id: ID! subject: String! }
  type TicketEdge { cursor: String! node: Ticket! }
  type TicketConnection { edges: [TicketEdge!]! pageInfo: PageInfo! }
  type PageInfo @shareable {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }
`;

/** A subgraph that owns the enterprise and titles root fields itself. */
const OWNS_ADMIN_AND_TITLE = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])
  type Query { admin: String title(imdbId: ID): String searchTitles(query: String!): [String!]! }
`;

function compose(gatewaySdl: string, other: string) {
  return composeServices([
    { name: 'gateway', url: 'http://127.0.0.1:4000/graphql', typeDefs: parse(gatewaySdl) },
    { name: 'other', url: 'http://127.0.0.1:4001/graphql', typeDefs: parse(other) },
  ]);
}

const errorCodes = (result: ReturnType<typeof compose>) => (result.errors ?? []).map((e) => e.extensions?.code);

describe('composition', () => {
  it('composes with a subgraph whose PageInfo has the full Relay shape', async () => {
    const result = compose(await subgraphSdl(), RELAY_SUBGRAPH);
    expect(result.errors ?? []).toEqual([]);
    expect(result.supergraphSdl).toMatch(/type PageInfo[^{]*\{[^}]*hasPreviousPage: Boolean![^}]*startCursor: String/s);
  });

  it('did not before PageInfo had hasPreviousPage and startCursor (the shape this gateway used to serve)', async () => {
    const before = (await subgraphSdl())
      .replace(/\s*hasPreviousPage: Boolean!/, '')
      .replace(/\s*"""[^"]*"""\s*startCursor: String|\s*"[^"]*"\s*startCursor: String|\s*startCursor: String/, '');
    expect(before).not.toContain('startCursor');
    expect(errorCodes(compose(before, RELAY_SUBGRAPH))).toContain('SATISFIABILITY_ERROR');
  });

  it('leaves Query.admin, title and searchTitles to another subgraph when GATEWAY_DOMAINS=chat', async () => {
    expect(errorCodes(compose(await subgraphSdl(), OWNS_ADMIN_AND_TITLE))).toContain('INVALID_FIELD_SHARING');
    const chatOnly = await subgraphSdl(['chat']);
    expect(chatOnly).not.toMatch(/\badmin\b|\btitle\(|Title\b/);
    const result = compose(chatOnly, OWNS_ADMIN_AND_TITLE);
    expect(result.errors ?? []).toEqual([]);
    expect(result.supergraphSdl).toMatch(/chatProviders: \[ChatProvider!\]! [^\n]*@join__field\(graph: GATEWAY\)/);
    expect(result.supergraphSdl).toMatch(/admin: String @join__field\(graph: OTHER\)/);
  });
});

/** A company subgraph with its own `@cacheControl`, composed from the same spec URL as Hive Gateway's examples do. */
const COMPANY_WITH_CACHE_HINTS = `
  extend schema
    @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key", "@composeDirective"])
    @link(url: "https://the-guild.dev/mesh/v1.0", import: ["@cacheControl"])
    @composeDirective(name: "@cacheControl")
  enum CacheControlScope { PUBLIC PRIVATE }
  directive @cacheControl(maxAge: Int, scope: CacheControlScope, inheritMaxAge: Boolean) on FIELD_DEFINITION | OBJECT | INTERFACE | UNION
  type Query { tickets: [Ticket!]! @cacheControl(maxAge: 30) }
  type Ticket @key(fields: "id") @cacheControl(maxAge: 30) { id: ID! subject: String! }
`;

describe.each(['apollo', 'guild'] as const)("@cacheControl in the supergraph (%s's composer)", (composer) => {
  it("keeps each type's and field's hint (@composeDirective), so a router's response cache reads them", async () => {
    const ours = { name: 'gateway', url: 'http://127.0.0.1:4000/graphql', typeDefs: parse(await subgraphSdl()) };
    const company = {
      name: 'tickets',
      url: 'http://127.0.0.1:4001/graphql',
      typeDefs: parse(COMPANY_WITH_CACHE_HINTS),
    };
    const sdl = supergraph(composer, [ours, company]);
    expect(sdl).toContain('@link(url: "https://the-guild.dev/mesh/v1.0", import: ["@cacheControl"])');
    expect(sdl).toMatch(/directive @cacheControl\(maxAge: Int, scope: CacheControlScope, inheritMaxAge: Boolean\)/);
    // Per entity type: a title a day, a service's health a minute; the company's own hints next to them.
    expect(sdl).toMatch(/type Title[^{]*@cacheControl\(maxAge: 86400\)/);
    expect(sdl).toMatch(/type ServiceHealth[^{]*@cacheControl\(maxAge: 60\)/);
    expect(sdl).toMatch(/type Ticket[^{]*@cacheControl\(maxAge: 30\)/);
    expect(sdl).toMatch(/chatUsage\(day: Date\): \[ChatUsage!\]![^\n]*@cacheControl\(maxAge: 0, scope: PRIVATE\)/);
    // Every use of both subgraphs (each defines the directive once, the supergraph once): none lost in composition.
    const uses = (text: string) => (text.match(/@cacheControl\(/g)?.length ?? 0) - 1;
    const own = uses(await subgraphSdl());
    expect(own).toBeGreaterThan(20);
    expect(uses(sdl)).toBe(own + uses(COMPANY_WITH_CACHE_HINTS));
  });
});
