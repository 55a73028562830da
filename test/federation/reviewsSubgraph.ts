import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { readFileSync } from 'node:fs';

/** The SDL of the test subgraph, also given to `npm run supergraph`. */
export const reviewsSdlFile = new URL('./reviews.graphql', import.meta.url).pathname;

export const REVIEWS = [
  { rating: 5, text: 'Still flies.', imdbId: 'tt0078346' },
  { rating: 4, text: 'Red pill.', imdbId: 'tt0133093' },
  { rating: 3, text: 'Sequel please.', imdbId: 'tt0078346' },
  { rating: 5, text: 'Why so serious?', imdbId: 'tt0468569' },
];
export const WATCHED = ['Exchange', 'SharePoint', 'NoSuchService', 'microsoftteams'];

interface Received {
  query: string;
  variables?: Record<string, unknown>;
}

/** The test subgraph on a free loopback port; `received` lists every operation it was sent. */
export async function startReviewsSubgraph(): Promise<{ url: string; received: Received[]; stop(): Promise<void> }> {
  const received: Received[] = [];
  const schema = buildSubgraphSchema({
    typeDefs: parse(readFileSync(reviewsSdlFile, 'utf8')),
    resolvers: {
      Query: {
        recentReviews: () => REVIEWS,
        watchedServices: () => WATCHED.map((id) => ({ id })),
      },
      Review: { title: (r: { imdbId: string }) => ({ imdbId: r.imdbId }) },
      Title: {
        __resolveReference: (ref: { imdbId: string }) => ref,
        reviews: (t: { imdbId: string }) => REVIEWS.filter((r) => r.imdbId === t.imdbId),
      },
      ServiceHealth: {
        __resolveReference: (ref: { id: string }) => ref,
        runbookUrl: (s: { id: string }) => `https://runbooks.example/${s.id.toLowerCase()}`,
      },
    } as never,
  });
  const server = new ApolloServer({
    schema,
    plugins: [
      ApolloServerPluginInlineTraceDisabled(),
      {
        async requestDidStart({ request }) {
          received.push({ query: request.query ?? '', variables: request.variables });
        },
      },
    ],
  });
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
  return { url, received, stop: () => server.stop() };
}
