/**
 * Composition with other teams' subgraphs (@theguild/federation-composition, in-process): a subgraph using the full
 * Relay `PageInfo` composes with this one, and a gateway serving only some domains (GATEWAY_DOMAINS) leaves the other
 * domains' root fields to other subgraphs.
 */
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { subgraphSdl } from '../../src/schema/build.js';

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
    expect(result.supergraphSdl).toMatch(/chatProviders: \[ChatProvider!\]! @join__field\(graph: GATEWAY\)/);
    expect(result.supergraphSdl).toMatch(/admin: String @join__field\(graph: OTHER\)/);
  });
});
