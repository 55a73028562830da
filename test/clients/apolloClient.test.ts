import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { describe, expect, it } from 'vitest';
import { wsClient } from '../support/ws.js';
import {
  COMPLETE,
  SERVICE_HEALTH,
  STREAM,
  TITLE,
  chatInput,
  healthRequests,
  useClientGateway,
  type StreamChunk,
} from './operations.js';

const ctx = useClientGateway();

/** Apollo Client as a browser app configures it: HttpLink for operations, optionally a WebSocket link for subscriptions. */
function apollo(transport: 'multipart' | 'ws') {
  return client(transport);
}

/** The client, optionally with the handler that asks for and reads `@defer` parts (as Apollo Router sends them). */
function client(transport: 'multipart' | 'ws', incrementalHandler?: Defer20220824Handler) {
  const http = new HttpLink({ uri: ctx.t.gateway.url });
  const ws = wsClient(ctx.t.gateway.wsUrl);
  const link =
    transport === 'ws'
      ? ApolloLink.split(({ operationType }) => operationType === 'subscription', new GraphQLWsLink(ws), http)
      : http; // HttpLink alone sends subscriptions with Accept: multipart/mixed;subscriptionSpec=1.0
  return {
    client: new ApolloClient({ link, cache: new InMemoryCache(), incrementalHandler }),
    dispose: () => ws.dispose(),
  };
}

/** Subscribes and resolves with every chunk once the stream completes. */
function streamed(client: ApolloClient, provider: string, model: string): Promise<StreamChunk[]> {
  return new Promise((resolve, reject) => {
    const chunks: StreamChunk[] = [];
    client
      .subscribe({ query: gql(STREAM), variables: { input: chatInput(provider, model) }, fetchPolicy: 'no-cache' })
      .subscribe({
        next: (r) =>
          r.error
            ? reject(r.error)
            : chunks.push((r.data as { chatCompletionStream: StreamChunk }).chatCompletionStream),
        error: reject,
        complete: () => resolve(chunks),
      });
  });
}

describe('Apollo Client 4', () => {
  it('runs the service-health query over HttpLink with one upstream Graph request', async () => {
    const { client, dispose } = apollo('multipart');
    const { data, error } = await client.query({ query: gql(SERVICE_HEALTH) });
    expect(error).toBeUndefined();
    const nodes = (data as any).admin.serviceAnnouncement.healthOverviews.nodes;
    expect(nodes).toHaveLength(3);
    expect(nodes.every((n: any) => Array.isArray(n.issues.nodes) && typeof n.status === 'string')).toBe(true);
    expect(healthRequests(ctx.t)).toHaveLength(1);
    await dispose();
  });

  it('looks a title up over HttpLink', async () => {
    const { client, dispose } = apollo('multipart');
    const { data } = await client.query({ query: gql(TITLE), variables: { id: 'tt0078346' } });
    expect((data as any).title).toMatchObject({ imdbId: 'tt0078346', title: 'Superman', year: '1978' });
    expect(ctx.t.upstreamRequests('omdb')).toHaveLength(1);
    await dispose();
  });

  it.each(['multipart', 'ws'] as const)(
    'streams chatCompletionStream over %s; the accumulated text equals the mutation content',
    async (transport) => {
      const { client, dispose } = apollo(transport);
      const { data } = await client.mutate({
        mutation: gql(COMPLETE),
        variables: { input: chatInput('moonshot', 'moonshot-v1-8k') },
      });
      const content = (data as any).createChatCompletion.content as string;
      const chunks = await streamed(client, 'moonshot', 'moonshot-v1-8k');
      expect(chunks.length).toBeGreaterThan(3);
      expect(chunks.map((c) => c.delta.content ?? '').join('')).toBe(content);
      expect(chunks.at(-1)).toMatchObject({ finishReason: 'STOP', usage: { totalTokens: expect.any(Number) } });
      expect(ctx.t.upstreamRequests('moonshot')).toHaveLength(2);
      await dispose();
    },
  );

  it("reads @defer parts with Defer20220824Handler: the list first, each title's details as they arrive, one OMDb request per title", async () => {
    const { client: apolloClient, dispose } = client('multipart', new Defer20220824Handler());
    // The details are slow: the list must render before them.
    ctx.t.sandbox.faults.push({ upstream: 'omdb', times: 6, delayMs: 400, match: 'i=tt' });
    const query = gql(
      `query Search { searchTitles(query: "star wars") { items { imdbId title ... @defer { directors imdbRating } } } }`,
    );
    const seen = await new Promise<any[]>((resolve, reject) => {
      const results: any[] = [];
      const sub = apolloClient.watchQuery({ query, fetchPolicy: 'no-cache' }).subscribe({
        next: (r) => {
          if (r.error) return reject(r.error);
          // While parts arrive the result is `streaming` (and still loading); nothing is there before the first.
          if (r.dataState === 'empty') return;
          results.push(r);
          if (r.dataState === 'complete') {
            sub.unsubscribe();
            resolve(results);
          }
        },
        error: reject,
      });
    });
    const first = seen[0].data.searchTitles.items;
    expect(seen[0].dataState).toBe('streaming');
    expect(first.length).toBe(6);
    expect(first.some((i: any) => i.directors === undefined)).toBe(true);
    const last = seen.at(-1).data.searchTitles.items;
    expect(last.every((i: any) => Array.isArray(i.directors) && typeof i.imdbRating === 'number')).toBe(true);
    const omdb = ctx.t.upstreamRequests('omdb');
    expect(omdb.filter((r) => r.url.includes('s='))).toHaveLength(1);
    expect(omdb.filter((r) => r.url.includes('i=tt'))).toHaveLength(6);
    await dispose();
  });
});
