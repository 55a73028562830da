import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationController } from '../../../src/context/operationController.js';
import { FairQueue } from '../../../src/upstreams/http/fairQueue.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { wsClient } from '../../support/ws.js';

const KEY_A = 'client-a-key-0123456789';
const KEY_B = 'client-b-key-0123456789';
const STREAM =
  'subscription ($input: ChatCompletionInput!) { chatCompletionStream(input: $input) { delta { content } finishReason } }';
const input = (content: string) => ({
  provider: 'deepseek',
  model: 'deepseek-flash',
  messages: [{ role: 'USER', content }],
});

describe('a provider’s connections shared between clients (CHAT_PROVIDER_MAX_CONNECTIONS)', () => {
  let gw: TestGateway;
  const clients: Client[] = [];
  beforeAll(async () => {
    gw = await startTestGateway(
      { GATEWAY_API_KEYS: `${KEY_A},${KEY_B}`, CHAT_PROVIDER_MAX_CONNECTIONS: '4', DEEPSEEK_RPM: '1000' },
      // Long answers, slowly: client A's streams hold their connections for the whole test.
      { chatTokenDelayMs: 50, chatRpm: { deepseek: 0 } },
    );
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await gw?.close();
  });

  const sentBy = (who: string) => gw.upstreamRequests('deepseek').filter((r) => r.body.includes(`"${who} `)).length;

  it('keeps a connection for client B while client A has more streams than it may hold, so B’s first token does not wait for A', async () => {
    const a = wsClient(gw.gateway.url.replace('http', 'ws'), { 'x-api-key': KEY_A });
    const b = wsClient(gw.gateway.url.replace('http', 'ws'), { 'x-api-key': KEY_B });
    clients.push(a, b);
    let aEnded = 0;
    for (let i = 0; i < 6; i++) {
      a.subscribe(
        { query: STREAM, variables: { input: input(`A ${i} [[long:2000]]`) } },
        { next: () => undefined, error: () => aEnded++, complete: () => aEnded++ },
      );
    }
    // A may hold 3 of the 4 connections (all but an eighth, at least one, kept for others); its other 3 wait in line.
    for (let i = 0; i < 200 && sentBy('A') < 3; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(sentBy('A')).toBe(3);

    const first = await new Promise<unknown>((resolve, reject) => {
      b.subscribe(
        { query: STREAM, variables: { input: input('B 0 [[long:3]]') } },
        { next: resolve, error: reject, complete: () => undefined },
      );
    });
    expect(first).toMatchObject({ data: { chatCompletionStream: { delta: { content: expect.any(String) } } } });
    // B's request went out while all of A's streams were still running, and before any of A's waiting ones.
    expect(aEnded).toBe(0);
    expect({ a: sentBy('A'), b: sentBy('B') }).toEqual({ a: 3, b: 1 });
  });
});

describe('a stream waiting in line for its provider’s connection', () => {
  let gw: TestGateway;
  let client: Client | undefined;
  beforeAll(async () => {
    gw = await startTestGateway(
      { CHAT_PROVIDER_MAX_CONNECTIONS: '1', DEEPSEEK_RPM: '1000' },
      { chatTokenDelayMs: 50, chatRpm: { deepseek: 0 } },
    );
  });
  afterAll(async () => {
    await client?.dispose();
    await gw?.close();
  });

  const sent = (marker: string) => gw.upstreamRequests('deepseek').filter((r) => r.body.includes(`"${marker} `)).length;

  it('sends no upstream request when its client completes it, and the next stream in line gets the connection', async () => {
    client = wsClient(gw.gateway.url.replace('http', 'ws'));
    const stopHolder = client.subscribe(
      { query: STREAM, variables: { input: input('HOLDER [[long:2000]]') } },
      { next: () => undefined, error: () => undefined, complete: () => undefined },
    );
    for (let i = 0; i < 200 && sent('HOLDER') < 1; i++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(sent('HOLDER')).toBe(1);

    // The one connection is held: this stream waits in line, then its client gives up.
    const stopWaiter = client.subscribe(
      { query: STREAM, variables: { input: input('WAITER [[long:3]]') } },
      { next: () => undefined, error: () => undefined, complete: () => undefined },
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    stopWaiter();
    const next = new Promise<string[]>((resolve, reject) => {
      const pieces: string[] = [];
      client!.subscribe<{ chatCompletionStream: { delta: { content: string | null } } }>(
        { query: STREAM, variables: { input: input('NEXT [[long:3]]') } },
        {
          next: (msg) => void pieces.push(msg.data?.chatCompletionStream.delta.content ?? ''),
          error: reject,
          complete: () => resolve(pieces),
        },
      );
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect({ holder: sent('HOLDER'), waiter: sent('WAITER'), next: sent('NEXT') }).toEqual({
      holder: 1,
      waiter: 0,
      next: 0,
    });

    // The holder's client leaves: its connection goes to the stream after the one that gave up.
    stopHolder();
    expect((await next).join('').length).toBeGreaterThan(0);
    expect({ holder: sent('HOLDER'), waiter: sent('WAITER'), next: sent('NEXT') }).toEqual({
      holder: 1,
      waiter: 0,
      next: 1,
    });
  });
});

describe('FairQueue', () => {
  it('gives freed slots to the waiting clients in turn, not to the one that queued most', async () => {
    const queue = new FairQueue(2, 'test', 0);
    const order: string[] = [];
    const held = [await queue.acquire('a'), await queue.acquire('a')];
    const waiting = [
      ...['a', 'a', 'a'].map((c) => queue.acquire(c).then((r) => (order.push(c), r))),
      queue.acquire('b').then((r) => (order.push('b'), r)),
    ];
    expect(queue.waiting).toBe(4);
    held[0]();
    held[1]();
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['a', 'b']);
    (await waiting[0])();
    (await waiting[3])();
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['a', 'b', 'a', 'a']);
  });

  it('lets one client hold at most slots - reserved, and leaves the line when the caller gives up', async () => {
    const queue = new FairQueue(4, 'test', 1);
    expect(queue.perClient).toBe(3);
    for (let i = 0; i < 3; i++) await queue.acquire('a');
    const controller = new AbortController();
    const fourth = queue.acquire('a', controller.signal);
    expect(queue.waiting).toBe(1);
    controller.abort();
    await expect(fourth).rejects.toThrow(/cancelled while it waited for a connection/);
    expect(queue.waiting).toBe(0);
    await queue.acquire('b');
  });

  it('follows an operation’s controller without making its signal: an abort leaves the line, a grant unfollows', async () => {
    const queue = new FairQueue(2, 'test', 1);
    const first = await queue.acquire('a');
    const leaving = new OperationController();
    const waiting = queue.acquire('a', leaving);
    leaving.abort();
    await expect(waiting).rejects.toThrow(/cancelled while it waited for a connection/);
    expect(queue.waiting).toBe(0);
    const served = new OperationController();
    const granted = queue.acquire('a', served);
    expect(queue.waiting).toBe(1);
    first();
    const release = await granted;
    // Aborted after its grant: it holds its slot (the caller releases it), and nothing is called twice.
    served.abort();
    expect(queue.waiting).toBe(0);
    expect(leaving.signalMade || served.signalMade).toBe(false);
    release();
    expect(queue.tryAcquire('a')).toBeTypeOf('function');
    // Aborted already: refused at once, never in line.
    await expect(queue.acquire('a', leaving)).rejects.toThrow(/cancelled/);
    expect(queue.waiting).toBe(0);
  });
});
