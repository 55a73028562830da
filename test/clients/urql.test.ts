import { Client, fetchExchange, subscriptionExchange, type SubscriptionForwarder } from '@urql/core';
import { createClient as createSseClient } from 'graphql-sse';
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

/** urql as its docs set it up: fetchExchange for queries and mutations, subscriptionExchange over graphql-ws or SSE. */
function urql(transport: 'ws' | 'sse') {
  const ws = wsClient(ctx.t.gateway.wsUrl);
  const sse = createSseClient({ url: ctx.t.gateway.url, retryAttempts: 0 });
  const forwardSubscription: SubscriptionForwarder = (request) => {
    const input = { ...request, query: request.query ?? '' };
    return {
      subscribe(sink) {
        const unsubscribe =
          transport === 'ws' ? ws.subscribe(input, sink as never) : sse.subscribe(input, sink as never);
        return { unsubscribe };
      },
    };
  };
  const client = new Client({
    url: ctx.t.gateway.url,
    // urql sends queries as GET by default, which the gateway's CSRF prevention refuses without a preflight header.
    preferGetMethod: false,
    // urql aborts every finished fetch on teardown; Node's fetch then rejects a body promise nobody awaits.
    fetch: (url, init) => fetch(url, { ...init, signal: undefined }),
    exchanges: [fetchExchange, subscriptionExchange({ forwardSubscription })],
  });
  return { client, dispose: async () => (await ws.dispose(), sse.dispose()) };
}

/** Collects chunks until the last one (the one with a finishReason) arrives. */
function streamed(client: Client, provider: string, model: string): Promise<StreamChunk[]> {
  return new Promise((resolve, reject) => {
    const chunks: StreamChunk[] = [];
    const { unsubscribe } = client
      .subscription<{ chatCompletionStream: StreamChunk }>(STREAM, { input: chatInput(provider, model) })
      .subscribe((r) => {
        if (r.error) return reject(r.error);
        const chunk = r.data!.chatCompletionStream;
        chunks.push(chunk);
        if (chunk.finishReason) {
          queueMicrotask(() => unsubscribe());
          resolve(chunks);
        }
      });
  });
}

describe('urql (@urql/core 6)', () => {
  it('runs the service-health query over fetchExchange with one upstream Graph request', async () => {
    const { client, dispose } = urql('ws');
    const { data, error } = await client.query(SERVICE_HEALTH, {}).toPromise();
    expect(error).toBeUndefined();
    expect(data.admin.serviceAnnouncement.healthOverviews.nodes).toHaveLength(3);
    expect(healthRequests(ctx.t)).toHaveLength(1);
    await dispose();
  });

  it('looks a title up over fetchExchange', async () => {
    const { client, dispose } = urql('ws');
    const { data } = await client.query(TITLE, { id: 'tt0078346' }).toPromise();
    expect(data.title).toMatchObject({ imdbId: 'tt0078346', title: 'Superman', runtimeMinutes: 143 });
    await dispose();
  });

  it.each(['ws', 'sse'] as const)(
    'streams chatCompletionStream over %s; the accumulated text equals the mutation content',
    async (transport) => {
      const { client, dispose } = urql(transport);
      const { data } = await client.mutation(COMPLETE, { input: chatInput('ark', 'doubao-pro') }).toPromise();
      const chunks = await streamed(client, 'ark', 'doubao-pro');
      expect(chunks.length).toBeGreaterThan(3);
      expect(chunks.map((c) => c.delta.content ?? '').join('')).toBe(data.createChatCompletion.content);
      expect(chunks.at(-1)!.usage?.totalTokens).toBeGreaterThan(0);
      expect(ctx.t.upstreamRequests('ark')).toHaveLength(2);
      await dispose();
    },
  );
});
