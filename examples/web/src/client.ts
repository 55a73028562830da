import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { ErrorLink } from '@apollo/client/link/error';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { OperationTypeNode } from 'graphql';
import UploadHttpLink from 'apollo-upload-client/UploadHttpLink.mjs';
import isExtractableFile from 'apollo-upload-client/isExtractableFile.mjs';
import { createClient } from 'graphql-ws';
import { isUnreachable, reportUnreachable } from './connection.js';

/** Set at build time from GATEWAY_URL (examples/web/vite.config.ts). */
declare const __GATEWAY_URL__: string;
export const gatewayUrl: string = __GATEWAY_URL__;

/**
 * One Apollo Client for the page: subscriptions over graphql-ws on the gateway's /graphql, an operation with a file
 * (a document to attach) as a GraphQL multipart request (apollo-upload-client), everything else over HTTP. Queries
 * with `@defer` arrive as multipart/mixed parts (deferSpec=20220824), which Defer20220824Handler merges. A request
 * that gets no answer the page may read (a gateway that refuses this origin, or none running) makes the page say
 * which (connection.tsx).
 */
export function createApolloClient(url: string = gatewayUrl): ApolloClient {
  const wsLink = new GraphQLWsLink(createClient({ url: url.replace(/^http/, 'ws'), lazy: true }));
  const httpLink = new HttpLink({ uri: url });
  // The gateway's CSRF rule (Apollo Server's): a multipart request needs a header only a preflighted request can carry.
  const uploadLink = new UploadHttpLink({ uri: url, headers: { 'Apollo-Require-Preflight': 'true' } });
  const isSubscription = ({ query }: ApolloLink.Operation) => {
    const definition = getMainDefinition(query);
    return definition.kind === 'OperationDefinition' && definition.operation === OperationTypeNode.SUBSCRIPTION;
  };
  const carriesFile = ({ variables }: ApolloLink.Operation) =>
    Object.values(variables ?? {}).some((value) => isExtractableFile(value));
  const explainFailures = new ErrorLink(({ error }) => {
    if (isUnreachable(error)) reportUnreachable(url);
  });
  return new ApolloClient({
    link: explainFailures.concat(
      ApolloLink.split(isSubscription, wsLink, ApolloLink.split(carriesFile, uploadLink, httpLink)),
    ),
    cache: new InMemoryCache({
      // Search items and health rows are normalised by their ids, so a live change updates the board in place.
      typePolicies: { Title: { keyFields: ['imdbId'] } },
    }),
    incrementalHandler: new Defer20220824Handler(),
  });
}
