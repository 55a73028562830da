import { defineConfig } from '@graphql-mesh/compose-cli';
import { loadOpenAPISubgraph } from '@omnigraph/openapi';

/**
 * mesh-compose configuration for the peer (compiled to dist/bench/peer/mesh.config.js and passed with -c).
 * PEER_OPENAPI_FILE: the description written by the harness for this run's sandbox origin.
 * The nested fields our graph has (a service's issues, a search item's details) are added with `@resolveTo`,
 * Mesh v1's way to join one operation's result to another.
 */
export const composeConfig = defineConfig({
  subgraphs: [
    {
      sourceHandler: loadOpenAPISubgraph('Sandbox', {
        source: process.env.PEER_OPENAPI_FILE ?? 'sandbox.openapi.json',
        // Replaced by a token the sandbox issued (scenarios/peer.ts): the same check the gateway's token gets.
        operationHeaders: { Authorization: 'Bearer peer-graph-token.bench.invalid' },
        queryParams: { apikey: 'sandbox' },
      }),
    },
  ],
  additionalTypeDefs: /* GraphQL */ `
    extend type ServiceHealth {
      issues(top: Int): ServiceHealthIssueCollection
        @resolveTo(sourceName: "Sandbox", sourceTypeName: "Query", sourceFieldName: "serviceHealthIssues",
          requiredSelectionSet: "{ id }", sourceArgs: { id: "{root.id}", _DOLLAR_top: "{args.top}" })
    }
    extend type OmdbSearchItem {
      details: OmdbTitle
        @resolveTo(sourceName: "Sandbox", sourceTypeName: "Query", sourceFieldName: "title",
          requiredSelectionSet: "{ imdbID }", sourceArgs: { i: "{root.imdbID}" })
    }
  `,
});
