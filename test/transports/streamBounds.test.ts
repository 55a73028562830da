import { afterEach, describe, expect, it } from 'vitest';
import { writtenChatEvents } from '../../src/sandbox/chat/wire.js';
import { STREAM, eventually, settled } from '../support/chat.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { rawHttp } from '../support/rawHttp.js';
import { rawSubscriber } from '../support/ws.js';

/**
 * STREAM_MAX_BUFFERED_BYTES and STREAM_STALL_TIMEOUT_MS on every streaming transport alike, as one table: each row is
 * a transport that opens long chat streams for a client that stops reading. Tokens are padded to 16 KiB
 * (`[[long:N:B]]`) so that the loopback socket's kernel buffers fill after a few hundred events.
 */
const LONG_TOKENS = 100_000;
const LONG = {
  provider: 'glm',
  model: 'glm-4-flash',
  messages: [{ role: 'USER', content: `Write at length. [[long:${LONG_TOKENS}:16384]]` }],
};
const QUERY = '{ chatProviders { id } }';
const JSON_TYPE = 'application/json';

/** A client that stopped reading, as the test sees it. */
interface PausedClient {
  /** Sends one more (short) operation on the same connection, so that a message is due. */
  sendQuery?(): Promise<void>;
  resume(): void;
  /** Resolves once the connection closed; the WebSocket close code and reason where there is one. */
  closed: Promise<{ code: number; reason: string } | undefined>;
}

interface TransportRow {
  name: string;
  /** The `transport` label of the gateway's stream metrics. */
  metric: 'ws' | 'sse' | 'multipart';
  /** How many streams one connection carries (1: one operation per HTTP response). */
  streamsPerConnection: number;
  /** Opens `streams` long chat streams on one connection and stops reading it once its response began. */
  open(t: TestGateway, streams: number): Promise<PausedClient>;
  /** The WebSocket close, by reason; undefined for HTTP, whose connection is cut. */
  closeCode?: Record<'stalled' | 'buffer_full', number>;
}

const TRANSPORTS: TransportRow[] = [
  {
    name: 'graphql-ws',
    metric: 'ws',
    streamsPerConnection: 20,
    closeCode: { stalled: 4408, buffer_full: 4413 },
    async open(t, streams) {
      const sub = await rawSubscriber(t.gateway.wsUrl);
      sub.pause();
      for (let i = 0; i < streams; i++) sub.subscribe(`long-${i}`, STREAM, { input: LONG });
      return { resume: sub.resume, closed: sub.closed, sendQuery: async () => sub.subscribe('query', QUERY) };
    },
  },
  {
    name: 'GraphQL over SSE, distinct connections',
    metric: 'sse',
    streamsPerConnection: 1,
    async open(t) {
      const client = rawHttp(t.gateway.url, {
        method: 'POST',
        headers: { accept: 'text/event-stream', 'content-type': JSON_TYPE },
        body: JSON.stringify({ query: STREAM, variables: { input: LONG } }),
      });
      expect(await client.status).toBe(200);
      client.pause();
      return { resume: client.resume, closed: client.closed.then(() => undefined) };
    },
  },
  {
    name: 'GraphQL over SSE, single connection',
    metric: 'sse',
    streamsPerConnection: 20,
    async open(t, streams) {
      const reserved = await fetch(t.gateway.url, { method: 'PUT' });
      expect(reserved.status).toBe(201);
      const token = await reserved.text();
      const client = rawHttp(t.gateway.url, {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'x-graphql-event-stream-token': token },
      });
      expect(await client.status).toBe(200);
      client.pause();
      // 202, or 404 once the stream was closed as too slow while the later operations were being sent.
      const send = async (id: string, query: string, variables?: Record<string, unknown>) => {
        const res = await fetch(t.gateway.url, {
          method: 'POST',
          headers: { 'content-type': JSON_TYPE, 'x-graphql-event-stream-token': token },
          body: JSON.stringify({ query, variables, extensions: { operationId: id } }),
        });
        expect([202, 404]).toContain(res.status);
      };
      for (let i = 0; i < streams; i++) await send(`long-${i}`, STREAM, { input: LONG });
      return {
        resume: client.resume,
        closed: client.closed.then(() => undefined),
        sendQuery: () => send('query', QUERY),
      };
    },
  },
  {
    name: 'Apollo multipart',
    metric: 'multipart',
    streamsPerConnection: 1,
    async open(t) {
      const client = rawHttp(t.gateway.url, {
        method: 'POST',
        headers: { accept: 'multipart/mixed;subscriptionSpec="1.0",application/json', 'content-type': JSON_TYPE },
        body: JSON.stringify({ query: STREAM, variables: { input: LONG } }),
      });
      expect(await client.status).toBe(200);
      client.pause();
      return { resume: client.resume, closed: client.closed.then(() => undefined) };
    },
  },
];

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(new URL('/metrics', t!.gateway.url))).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

const longRequests = () => t!.upstreamRequests('glm').filter((r) => r.body.includes('[[long:'));

describe.each(TRANSPORTS)('$name', (row) => {
  it('pauses the upstream of a client that stopped reading, then closes it after STREAM_STALL_TIMEOUT_MS and aborts its upstream request', async () => {
    const cap = 256 * 1024;
    t = await startTestGateway({
      STREAM_MAX_BUFFERED_BYTES: String(cap),
      STREAM_STALL_TIMEOUT_MS: '1000',
      GATEWAY_WS_KEEP_ALIVE_MS: '120000',
    });
    const before = writtenChatEvents();
    const client = await row.open(t, 1);
    const labels = `transport="${row.metric}",reason="stalled"`;
    expect(
      await eventually(async () => (await metric('gateway_stream_slow_client_closes_total', labels)) === 1, 60_000),
    ).toBe(true);
    expect(await eventually(() => longRequests().length === 1 && longRequests()[0].aborted, 10_000)).toBe(true);
    // Backpressure reached the provider: it wrote a small part of the answer, and the gateway held at most the cap.
    expect(writtenChatEvents() - before).toBeLessThan(LONG_TOKENS / 10);
    expect(await metric('gateway_stream_buffered_bytes_peak', `transport="${row.metric}"`)).toBeLessThanOrEqual(cap);
    expect(
      await metric('gateway_stream_slow_client_closes_total', `transport="${row.metric}",reason="buffer_full"`),
    ).toBe(0);
    client.resume();
    const closed = await client.closed;
    if (row.closeCode) expect(closed?.code).toBe(row.closeCode.stalled);
  }, 90_000);
});

// One operation per response (SSE distinct, multipart) pauses before it could pass the cap: only the stall ends it.
describe.each(TRANSPORTS.filter((row) => row.streamsPerConnection > 1))(
  '$name, several streams on one connection',
  (row) => {
    it('closes a connection whose streams hold more than STREAM_MAX_BUFFERED_BYTES when another message is due, and aborts every upstream request', async () => {
      const cap = 64 * 1024;
      t = await startTestGateway({
        STREAM_MAX_BUFFERED_BYTES: String(cap),
        STREAM_STALL_TIMEOUT_MS: '0',
        GATEWAY_WS_KEEP_ALIVE_MS: '120000',
      });
      const client = await row.open(t, row.streamsPerConnection);
      // Once the kernel buffers are full, the messages already on their way (one per stream of 16 KiB) pass the limit.
      await settled(writtenChatEvents, 1_000, 60_000);
      // Should they have stopped just below it, a query result is due next; it is not held back like a stream.
      await client.sendQuery!();
      const labels = `transport="${row.metric}",reason="buffer_full"`;
      expect(
        await eventually(async () => (await metric('gateway_stream_slow_client_closes_total', labels)) === 1, 30_000),
      ).toBe(true);
      // Every stream that reached its provider was aborted (single-connection SSE may be cut before all 20 started).
      expect(await eventually(() => longRequests().every((r) => r.aborted), 30_000)).toBe(true);
      expect(longRequests().length).toBeGreaterThan(1);
      if (row.metric === 'ws') expect(longRequests()).toHaveLength(row.streamsPerConnection);
      client.resume();
      const closed = await client.closed;
      if (row.closeCode) expect(closed?.code).toBe(row.closeCode.buffer_full);
    }, 90_000);
  },
);
