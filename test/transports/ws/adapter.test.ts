import { makeExecutableSchema } from '@graphql-tools/schema';
import { parse, subscribe, type FormattedExecutionResult } from 'graphql';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import {
  completedId,
  parsedMessage,
  graphqlWsAdapter,
  subscribeMessage,
  WsConnection,
  type GraphqlWsAdapter,
  type WsOperationRecord,
} from '../../../src/transports/ws/adapter.js';

const DONE = { value: undefined, done: true as const };

/** An operation as the connection keeps it; graphql-ws's core returns it on the client's complete and on close. */
class TestOp implements WsOperationRecord {
  readonly controller = new AbortController();
  constructor(
    private readonly conn: Conn,
    private readonly id: string,
    private readonly ended: string[],
  ) {}
  return() {
    if (this.conn.ended(this.id)) this.ended.push(this.id);
    return Promise.resolve(DONE);
  }
  [Symbol.asyncIterator]() {
    return { next: () => Promise.resolve(DONE) };
  }
}
type Conn = WsConnection<TestOp>;

/**
 * The adapter on a loopback HTTP server with a one-field schema whose subscription yields once and then waits on a
 * read only an abort ends (as a chat stream blocked on its upstream): what the adapter owns, without the gateway.
 */
async function start(keepAliveMs = 0, connectionInitWaitTimeout?: number) {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const ended: string[] = [];
  const operated: string[] = [];
  const connections: Conn[] = [];
  const schema = makeExecutableSchema({
    typeDefs: 'type Query { ok: Boolean } type Subscription { ticks: Int once: Int }',
    resolvers: {
      Subscription: {
        once: {
          subscribe: async function* () {
            yield 7;
          },
          resolve: (n: number) => n,
        },
        ticks: {
          subscribe: async function* (_root: unknown, _args: unknown, op: TestOp) {
            yield 1;
            await new Promise((resolve) => op.controller.signal.addEventListener('abort', resolve));
          },
          resolve: (n: number) => n,
        },
      },
    },
  });
  const adapter: GraphqlWsAdapter<Conn> = graphqlWsAdapter<Conn>({
    maxPayload: 1024,
    keepAliveMs,
    log,
    redact: (text) => text,
    core: connectionInitWaitTimeout === undefined ? {} : { connectionInitWaitTimeout },
    async operate(conn, id, payload) {
      operated.push(id);
      if (payload.query === 'refused') return conn.error(id, [{ message: 'refused' }]);
      // Admitted after a wait (the gateway's admission may wait): a client's complete meanwhile ends it before it runs.
      await new Promise((resolve) => setTimeout(resolve, payload.query.startsWith('#slow') ? 100 : 0));
      if (!conn.active(id)) return;
      const op = new TestOp(conn, id, ended);
      conn.started(id, op);
      const results = (await subscribe({
        schema,
        document: parse(payload.query),
        contextValue: op,
      })) as AsyncGenerator<FormattedExecutionResult>;
      for await (const result of results) conn.next(`{"id":${JSON.stringify(id)},"type":"next","payload":`, result);
      conn.complete(id);
      void op.return();
    },
  });
  const server: Server = createServer();
  server.on('upgrade', (req, tcp, head) =>
    adapter.upgrade(req, tcp, head, (socket) => {
      const conn: Conn = new WsConnection(`c${connections.length}`, socket, req, tcp, {
        limits: { maxBufferedBytes: 1 << 20, stallTimeoutMs: 0 },
        metrics: new GatewayMetrics(),
        log,
      });
      connections.push(conn);
      return conn;
    }),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return {
    lines,
    ended,
    operated,
    url,
    connections,
    adapter,
    /** A client past connection_ack, with every message it received. */
    async client(options: { autoPong?: boolean } = {}) {
      const ws = new WebSocket(url, 'graphql-transport-ws', options);
      const received: Array<Record<string, unknown>> = [];
      ws.on('message', (data) => received.push(JSON.parse(String(data)) as Record<string, unknown>));
      await once(ws, 'open');
      ws.send(JSON.stringify({ type: 'connection_init' }));
      await vi.waitFor(() => expect(received).toContainEqual({ type: 'connection_ack' }));
      const closed = once(ws, 'close').then(([code]) => code as number);
      return { ws, received, closed };
    },
    disposed: false,
    async close() {
      if (!this.disposed) await adapter.dispose();
      server.close();
    },
  };
}

let t: Awaited<ReturnType<typeof start>> | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('graphql-ws adapter (transports/ws/adapter.ts)', () => {
  it("aborts an operation at once on the client's complete, even with its source blocked on a read, and ends it once; a repeated or unknown complete is ignored", async () => {
    t = await start();
    const { ws, received } = await t.client();
    ws.send(JSON.stringify({ id: 'a', type: 'subscribe', payload: { query: 'subscription { ticks }' } }));
    await vi.waitFor(() => expect(received).toContainEqual({ id: 'a', type: 'next', payload: { data: { ticks: 1 } } }));
    const op = t.connections[0].operations.get('a')!;
    // Without the abort graphql-ws would await the generator's return(), which waits for a read that never ends.
    for (const id of ['a', 'a', 'unknown']) ws.send(JSON.stringify({ id, type: 'complete' }));
    await vi.waitFor(() => expect(t!.ended).toEqual(['a']));
    expect(op.controller.signal.aborted).toBe(true);
    // The connection stays open and answers; nothing was sent for the completed or the unknown id.
    ws.send(JSON.stringify({ type: 'ping' }));
    await vi.waitFor(() => expect(received.at(-1)).toEqual({ type: 'pong' }));
    expect(received.filter((m) => m.id !== undefined && m.type !== 'next')).toEqual([]);
    expect(t.ended).toEqual(['a']);
    expect(t.connections[0].operations.size).toBe(0);
  });

  it("runs a subscribe itself with graphql-ws's checks: 4401 before the ack, 4400 for an invalid one, 4409 for an id in use", async () => {
    t = await start();
    // Before connection_init's ack.
    const early = new WebSocket(t.url, 'graphql-transport-ws');
    await once(early, 'open');
    early.send(JSON.stringify({ id: 'a', type: 'subscribe', payload: { query: 'subscription { ticks }' } }));
    expect((await once(early, 'close'))[0]).toBe(4401);
    // Invalid: graphql-ws's core closes the socket as it would.
    for (const payload of [{}, { query: 1 }, { query: 'subscription { ticks }', variables: [] }]) {
      const { ws, closed } = await t.client();
      ws.send(JSON.stringify({ id: 'a', type: 'subscribe', payload }));
      expect(await closed).toBe(4400);
    }
    const { ws: empty, closed: emptyClosed } = await t.client();
    empty.send(JSON.stringify({ id: '', type: 'subscribe', payload: { query: 'subscription { ticks }' } }));
    expect(await emptyClosed).toBe(4400);
    expect(t.operated).toEqual([]);
    // An id still running, and one still being admitted.
    for (const query of ['subscription { ticks }', '#slow\nsubscription { ticks }']) {
      const { ws, closed } = await t.client();
      ws.send(JSON.stringify({ id: 'dup', type: 'subscribe', payload: { query } }));
      if (!query.startsWith('#'))
        await vi.waitFor(() => expect(t!.connections.at(-1)!.operations.has('dup')).toBe(true));
      ws.send(JSON.stringify({ id: 'dup', type: 'subscribe', payload: { query } }));
      expect(await closed).toBe(4409);
    }
    expect(t.operated).toEqual(['dup', 'dup']);
    expect(subscribeMessage({ id: 'a', type: 'subscribe', payload: { query: '{ ok }' } })).toEqual({
      id: 'a',
      type: 'subscribe',
      payload: { query: '{ ok }' },
    });
    expect(subscribeMessage({ id: 'a', type: 'complete' })).toBeUndefined();
  });

  it('sends an operation that ends by itself as next then complete, a refusal as error, nothing for one completed while admitted; each id is free again after', async () => {
    t = await start();
    const { ws, received } = await t.client();
    ws.send(JSON.stringify({ id: 'a', type: 'subscribe', payload: { query: 'subscription { once }' } }));
    await vi.waitFor(() => expect(received).toContainEqual({ id: 'a', type: 'complete' }));
    ws.send(JSON.stringify({ id: 'a', type: 'subscribe', payload: { query: 'refused' } }));
    await vi.waitFor(() =>
      expect(received).toContainEqual({ id: 'a', type: 'error', payload: [{ message: 'refused' }] }),
    );
    ws.send(JSON.stringify({ id: 'b', type: 'subscribe', payload: { query: '#slow\nsubscription { once }' } }));
    ws.send(JSON.stringify({ id: 'b', type: 'complete' }));
    ws.send(JSON.stringify({ id: 'a', type: 'subscribe', payload: { query: '#slow\nsubscription { once }' } }));
    await vi.waitFor(() => expect(received.filter((m) => m.id === 'a' && m.type === 'complete')).toHaveLength(2));
    expect(received.filter((m) => m.id !== undefined)).toEqual([
      { id: 'a', type: 'next', payload: { data: { once: 7 } } },
      { id: 'a', type: 'complete' },
      { id: 'a', type: 'error', payload: [{ message: 'refused' }] },
      { id: 'a', type: 'next', payload: { data: { once: 7 } } },
      { id: 'a', type: 'complete' },
    ]);
    expect(t.ended).toEqual(['a', 'a']);
    expect(t.connections[0].operations.size).toBe(0);
  });

  it('takes an id that names an Object property (__proto__, constructor) as any other id', async () => {
    t = await start();
    const { ws, received } = await t.client();
    for (const id of ['__proto__', 'constructor', 'hasOwnProperty'])
      ws.send(JSON.stringify({ id, type: 'subscribe', payload: { query: 'subscription { ticks }' } }));
    await vi.waitFor(() => expect(received.filter((m) => m.type === 'next')).toHaveLength(3));
    ws.send(JSON.stringify({ id: '__proto__', type: 'subscribe', payload: { query: 'subscription { ticks }' } }));
    expect((await once(ws, 'close'))[0]).toBe(4409);
    await vi.waitFor(() => expect([...t!.ended].sort()).toEqual(['__proto__', 'constructor', 'hasOwnProperty']));
  });

  it("returns every running operation when the socket closes (graphql-ws's core, from its record)", async () => {
    t = await start();
    const { ws, received } = await t.client();
    for (const id of ['a', 'b'])
      ws.send(JSON.stringify({ id, type: 'subscribe', payload: { query: 'subscription { ticks }' } }));
    await vi.waitFor(() => expect(received.filter((m) => m.type === 'next')).toHaveLength(2));
    ws.close(1000);
    await vi.waitFor(() => expect([...t!.ended].sort()).toEqual(['a', 'b']));
    expect(t.connections[0].operations.size).toBe(0);
  });

  it('sends nothing once the socket closed', async () => {
    t = await start();
    const { ws } = await t.client();
    const conn = t.connections[0];
    const serverClosed = once(conn.socket, 'close');
    ws.close(1000);
    await serverClosed;
    // ws itself would count the bytes of a send after close in bufferedAmount (and call back with an error).
    expect(() => conn.send(JSON.stringify({ type: 'pong' }))).not.toThrow();
    expect(conn.socket.bufferedAmount).toBe(0);
  });

  it('logs a protocol error (an invalid frame, a message over maxPayload) as one warn line, nothing on the console', async () => {
    const printed = vi.spyOn(console, 'error');
    try {
      t = await start();
      const invalid = await t.client();
      invalid.ws.send(Buffer.from([0xff, 0xfe, 0xfd]), { binary: false });
      expect(await invalid.closed).toBe(1007);
      const large = await t.client();
      large.ws.send(JSON.stringify({ type: 'ping', payload: { pad: 'x'.repeat(2000) } }));
      expect(await large.closed).toBe(1009);
      await vi.waitFor(() =>
        expect(t!.lines.filter((l) => l.msg === 'WebSocket connection closed on a protocol error')).toHaveLength(2),
      );
      expect(t.lines.filter((l) => l.msg === 'WebSocket connection closed on a protocol error')).toEqual([
        expect.objectContaining({ level: 40, connection: 'c0', code: 'WS_ERR_INVALID_UTF8' }),
        expect.objectContaining({ level: 40, connection: 'c1', code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' }),
      ]);
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
    }
  });

  it('terminates a socket that answers no ping by the next one, and keeps one that does', async () => {
    t = await start(400);
    const answering = await t.client();
    const silent = await t.client({ autoPong: false });
    // Closed without a close frame (1006): the peer is taken to be gone.
    expect(await silent.closed).toBe(1006);
    expect(answering.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('closes a socket without connection_init in time with 4408, and keeps no timer for one that sent it', async () => {
    t = await start(0, 300);
    const ready = await t.client();
    // The acknowledged connection's wait is dropped at once (the core kept its own for the connection's life)...
    expect(t.connections[0].initWait).toBeUndefined();
    const silent = new WebSocket(t.url, 'graphql-transport-ws');
    const [code, reason] = (await once(silent, 'close')) as [number, Buffer];
    expect([code, String(reason)]).toEqual([4408, 'Connection initialisation timeout']);
    // ...and it is still open after the wait that closed the silent one, which never reached the core's onConnect.
    expect(ready.ws.readyState).toBe(WebSocket.OPEN);
    expect(t.connections[1].protocol).toBeUndefined();
  });

  it('sends next messages framed by the adapter whole and in order, multi-byte text and a large one among them, all before a close in the same tick', async () => {
    t = await start();
    const { received, closed } = await t.client();
    const conn = t.connections[0];
    const prefix = (id: string) => `{"id":${JSON.stringify(id)},"type":"next","payload":`;
    const texts = ['a', '。🙂 «quote" \\ end', 'x'.repeat(70_000), 'after the large one'];
    // One tick: the small ones share the adapter's frames, the large one goes through ws between them.
    texts.forEach((text, i) => conn.next(prefix(String(i)), { data: { text } }));
    conn.close(4000, 'done');
    expect(await closed).toBe(4000);
    expect(received.slice(1)).toEqual(
      texts.map((text, i) => ({ id: String(i), type: 'next', payload: { data: { text } } })),
    );
  });

  it('closes every socket with 1001 (Going Away) on dispose', async () => {
    t = await start();
    const { closed } = await t.client();
    await t.adapter.dispose();
    t.disposed = true;
    expect(await closed).toBe(1001);
  });

  it("reads only a client's complete message, never a subscribe that mentions one", () => {
    const completeOf = (text: string) => completedId(parsedMessage(text));
    expect(completeOf('{"id":"a1","type":"complete"}')).toBe('a1');
    expect(completeOf(' { "type" : "complete", "id" : "x" } ')).toBe('x');
    expect(completeOf('{"id":"a","type":"subscribe","payload":{"query":"{ complete }"}}')).toBeUndefined();
    expect(
      completeOf('{"id":"a","type":"subscribe","payload":{"query":"subscription { s(arg: \\"complete\\") }"}}'),
    ).toBeUndefined();
    expect(completeOf('{"type":"complete"}')).toBeUndefined();
    expect(completeOf('[{"id":"a","type":"complete"}]')).toBeUndefined();
    // Not JSON: handed to graphql-ws as text, which closes the socket with 4400.
    expect(parsedMessage('{"id":"a","type":"complete"')).toBe('{"id":"a","type":"complete"');
    expect(completeOf('{"id":"a","type":"complete"')).toBeUndefined();
    // A JSON string holding a message is not decoded twice.
    const quoted = JSON.stringify('{"id":"a","type":"complete"}');
    expect(parsedMessage(quoted)).toBe(quoted);
  });
});
