import { parse, getOperationAST } from 'graphql';
import type { Client } from 'graphql-ws';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors/codes.js';
import { clientKey, FairShare, type Lease } from '../../../src/pipeline/rules/fairShare.js';
import { runningChatWriters } from '../../../src/sandbox/chat/wire.js';
import { STREAM, eventually } from '../../support/chat.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { rawHttp } from '../../support/rawHttp.js';
import { rawSubscriber, wsClient } from '../../support/ws.js';

const LIMITS = {
  maxConnections: 100,
  clientMaxConnections: 2,
  clientMaxSubscriptions: 3,
  clientMaxChatStreams: 2,
  maxSubscriptions: 5,
};
const KEY_A = 'key-a-0123456789abcdef';
const KEY_B = 'key-b-0123456789abcdef';

/** A share taken in process (no cluster: the answer is synchronous). */
const lease = (taken: Lease | GatewayError | Promise<Lease | GatewayError> | undefined): Lease => {
  if (!taken || taken instanceof GatewayError || taken instanceof Promise)
    throw new Error(`expected a lease, got ${taken instanceof Promise ? 'a promise' : taken?.message}`);
  return taken;
};
const operation = (text: string) => {
  const document = parse(text);
  return [document, getOperationAST(document)!] as const;
};

describe('FairShare', () => {
  it('refuses the share past CLIENT_MAX_SUBSCRIPTIONS with RATE_LIMITED naming the limit, and lets another client in', () => {
    const share = new FairShare(LIMITS, { keyed: false });
    const leases = [1, 2, 3].map(() => lease(share.acquire('a', ['subscription'])));
    const refused = share.acquire('a', ['subscription']);
    expect(refused).toBeInstanceOf(GatewayError);
    const fix =
      'Close some or raise CLIENT_MAX_SUBSCRIPTIONS; a federation router presents a key of TRUSTED_ROUTER_KEYS and names each end client in ROUTER_CLIENT_HEADER (each then has a share of its own).';
    expect((refused as GatewayError).extensions).toEqual({
      code: 'RATE_LIMITED',
      limit: 'CLIENT_MAX_SUBSCRIPTIONS',
      max: 3,
      fix,
    });
    expect((refused as GatewayError).message).toBe(
      `Too many open subscriptions: CLIENT_MAX_SUBSCRIPTIONS allows 3 for one client. ${fix}`,
    );
    lease(share.acquire('b', ['subscription']));
    // Released twice, given back once.
    leases[0].release();
    leases[0].release();
    expect(share.heldBy('a').subscription).toBe(2);
    lease(share.acquire('a', ['subscription']));
    expect(share.acquire('a', ['subscription'])).toBeInstanceOf(GatewayError);
  });

  it('counts MAX_SUBSCRIPTIONS over every client, and takes all kinds of a lease or none', () => {
    const share = new FairShare(LIMITS, { keyed: false });
    for (const client of ['a', 'b', 'c', 'd', 'e']) lease(share.acquire(client, ['subscription']));
    const refused = share.acquire('f', ['subscription', 'chatStream']) as GatewayError;
    expect(refused.extensions).toMatchObject({ code: 'RATE_LIMITED', limit: 'MAX_SUBSCRIPTIONS', max: 5 });
    expect(share.heldBy('f')).toEqual({ connection: 0, subscription: 0, chatStream: 0 });
  });

  it('takes a subscription for every subscription and a chat stream for chatCompletionStream (also through a fragment), nothing for a query', () => {
    const share = new FairShare(LIMITS, { keyed: false });
    const client = { remoteAddress: '10.0.0.1' };
    expect(share.admitOperation(client, ...operation('{ chatProviders { id } }'))).toBeUndefined();
    lease(share.admitOperation(client, ...operation('subscription { serverTime }')));
    lease(
      share.admitOperation(
        client,
        ...operation('subscription S { ...F } fragment F on Subscription { chatCompletionStream(input: $i) { id } }'),
      ),
    );
    expect(share.heldBy(share.clientOf(client))).toEqual({ connection: 0, subscription: 2, chatStream: 1 });
  });

  it('tells clients apart by API key when keys are configured, by address otherwise, and never keeps the key itself', () => {
    const keyed = new FairShare(LIMITS, { keyed: true });
    const a = keyed.clientOf({ apiKey: KEY_A, remoteAddress: '10.0.0.1' });
    expect(a).not.toContain(KEY_A);
    expect(keyed.clientOf({ apiKey: KEY_A, remoteAddress: '10.0.0.2' })).toBe(a);
    expect(keyed.clientOf({ apiKey: KEY_B, remoteAddress: '10.0.0.1' })).not.toBe(a);
    const open = new FairShare(LIMITS, { keyed: false });
    expect(open.clientOf({ apiKey: KEY_A, remoteAddress: '10.0.0.1' })).toBe(
      open.clientOf({ apiKey: KEY_B, remoteAddress: '10.0.0.1' }),
    );
  });

  it('tells apart the subjects of verified tokens (/mcp with MCP_AUTH=jwt) before keys and addresses, on the pools too', () => {
    for (const share of [new FairShare(LIMITS, { keyed: true }), new FairShare(LIMITS, { keyed: false })]) {
      const alice = share.clientOf({ subject: 'alice', apiKey: KEY_A, remoteAddress: '10.0.0.1' });
      expect(share.clientOf({ subject: 'alice', remoteAddress: '10.0.0.2' })).toBe(alice);
      expect(share.clientOf({ subject: 'bob', apiKey: KEY_A, remoteAddress: '10.0.0.1' })).not.toBe(alice);
    }
    const alice = clientKey(false, { subject: 'alice', remoteAddress: '10.0.0.1' });
    expect(clientKey(true, { subject: 'alice', apiKey: KEY_A })).toBe(alice);
    expect(clientKey(false, { remoteAddress: '10.0.0.1' })).not.toBe(alice);
    expect(clientKey(true, { subject: 'bob', apiKey: KEY_A })).not.toBe(alice);
  });
});

describe('fair share through the server', () => {
  let t: TestGateway | undefined;
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
    await t?.close();
    t = undefined;
  });

  const get = (key: string) =>
    rawHttp(t!.gateway.url, {
      method: 'GET',
      path: '/graphql?query=%7B__typename%7D',
      headers: { 'x-api-key': key, 'apollo-require-preflight': 'true' },
    });

  it('answers a socket past CLIENT_MAX_CONNECTIONS or MAX_CONNECTIONS with 429 RATE_LIMITED, while other clients are served', async () => {
    t = await startTestGateway({
      GATEWAY_API_KEYS: `${KEY_A},${KEY_B}`,
      CLIENT_MAX_CONNECTIONS: '2',
      MAX_CONNECTIONS: '4',
    });
    const a = [get(KEY_A), get(KEY_A)];
    expect(await Promise.all(a.map((c) => c.status))).toEqual([200, 200]);
    const third = get(KEY_A);
    expect(await third.status).toBe(429);
    await third.closed;
    expect(third.received()).toContain('"code":"RATE_LIMITED","limit":"CLIENT_MAX_CONNECTIONS","max":2');
    // Another client is served; then everyone together is at MAX_CONNECTIONS.
    const b = [get(KEY_B), get(KEY_B)];
    expect(await Promise.all(b.map((c) => c.status))).toEqual([200, 200]);
    const over = get(KEY_B);
    expect(await over.status).toBe(429);
    expect(over.received()).toContain('"limit":"MAX_CONNECTIONS","max":4');
    // A socket given back makes room.
    a[0].socket.destroy();
    await a[0].closed;
    expect(await eventually(async () => (await get(KEY_A).status) === 200, 5_000)).toBe(true);
  });

  it('closes a WebSocket past CLIENT_MAX_CONNECTIONS with 4429, counted under the key of its upgrade request', async () => {
    t = await startTestGateway({ GATEWAY_API_KEYS: `${KEY_A},${KEY_B}`, CLIENT_MAX_CONNECTIONS: '1' });
    const upgrade = (key: string) => rawSubscriber(t!.gateway.wsUrl, { 'x-api-key': key }, { 'x-api-key': key });
    const first = await upgrade(KEY_A);
    await expect(upgrade(KEY_A)).rejects.toThrow(
      'closed with 4429 Rate limited: CLIENT_MAX_CONNECTIONS before connection_ack',
    );
    const other = await upgrade(KEY_B);
    first.ws.close();
    other.ws.close();
  });

  it('counts CLIENT_MAX_SUBSCRIPTIONS across graphql-ws, SSE and multipart: the next one is refused with RATE_LIMITED on each', async () => {
    t = await startTestGateway({ CLIENT_MAX_SUBSCRIPTIONS: '2', GATEWAY_API_KEYS: `${KEY_A},${KEY_B}` });
    const ticking = 'subscription { serverTime(intervalMs: 50, count: 1000) }';
    const headers = { 'content-type': 'application/json', 'x-api-key': KEY_A };
    const ws = await rawSubscriber(t.gateway.wsUrl, { 'x-api-key': KEY_A });
    ws.subscribe('one', ticking);
    await ws.results('one', 1);
    const sse = rawHttp(t.gateway.url, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream' },
      body: JSON.stringify({ query: ticking }),
    });
    expect(await sse.status).toBe(200);
    // Both are open: graphql-ws gets the refusal as the operation's one result (a router forwards it), SSE and
    // multipart a 429.
    ws.subscribe('two', ticking);
    expect(await ws.results('two', 1)).toMatchObject([
      { errors: [{ extensions: { code: 'RATE_LIMITED', limit: 'CLIENT_MAX_SUBSCRIPTIONS', max: 2 } }] },
    ]);
    const overSse = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream' },
      body: JSON.stringify({ query: ticking }),
    });
    expect(overSse.status).toBe(429);
    expect((await overSse.json()).errors[0].extensions.code).toBe('RATE_LIMITED');
    const multipart = { ...headers, accept: 'multipart/mixed;subscriptionSpec="1.0",application/json' };
    const overMultipart = await fetch(t.gateway.url, {
      method: 'POST',
      headers: multipart,
      body: JSON.stringify({ query: ticking }),
    });
    expect(overMultipart.status).toBe(429);
    // Another client is not affected; and closing one of the first client's streams makes room for it again.
    const other = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { ...multipart, 'x-api-key': KEY_B },
      body: JSON.stringify({ query: 'subscription { serverTime(intervalMs: 10, count: 2) }' }),
    });
    expect(other.status).toBe(200);
    await other.text();
    sse.socket.destroy();
    const again = await eventually(async () => {
      const res = await fetch(t!.gateway.url, {
        method: 'POST',
        headers: multipart,
        body: JSON.stringify({ query: 'subscription { serverTime(intervalMs: 10, count: 2) }' }),
      });
      await res.text();
      return res.status === 200;
    }, 5_000);
    expect(again).toBe(true);
    ws.ws.close();
  });

  it('refuses one client its chat streams past CLIENT_MAX_CHAT_STREAMS, and another client starts its stream while the first is at its cap', async () => {
    t = await startTestGateway(
      { CLIENT_MAX_CHAT_STREAMS: '4', GATEWAY_API_KEYS: `${KEY_A},${KEY_B}` },
      { chatTokenDelayMs: 5 },
    );
    const long = {
      provider: 'glm',
      model: 'glm-4-flash',
      messages: [{ role: 'USER', content: 'Write at length. [[long:100000]]' }],
    };
    const greedy = wsClient(t.gateway.wsUrl, { 'x-api-key': KEY_A });
    clients.push(greedy);
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      greedy.subscribe(
        { query: STREAM, variables: { input: long } },
        {
          next: (result) => {
            if (!outcomes[i]) outcomes[i] = (result.errors?.[0]?.extensions?.code as string | undefined) ?? 'token';
          },
          error: (errors) => (outcomes[i] = (errors as Array<{ extensions: { code: string } }>)[0].extensions.code),
          complete: () => undefined,
        },
      );
    }
    expect(await eventually(() => outcomes.filter(Boolean).length === 6, 10_000)).toBe(true);
    expect(outcomes.filter((o) => o === 'token')).toHaveLength(4);
    expect(outcomes.filter((o) => o === 'RATE_LIMITED')).toHaveLength(2);
    expect(runningChatWriters()).toBe(4);

    const polite = wsClient(t.gateway.wsUrl, { 'x-api-key': KEY_B });
    clients.push(polite);
    const firstToken = await new Promise<unknown>((resolve, reject) => {
      const stop = polite.subscribe(
        { query: STREAM, variables: { input: { ...long, messages: [{ role: 'USER', content: 'Say hello.' }] } } },
        {
          next: (r) => {
            stop();
            resolve(r.data);
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
    expect(firstToken).toMatchObject({ chatCompletionStream: { provider: 'glm' } });
    // The first client was still at its cap when the second one's stream started.
    expect(runningChatWriters()).toBeGreaterThanOrEqual(4);
    expect(t.upstreamRequests('glm').filter((r) => r.body.includes('[[long:') && !r.aborted)).toHaveLength(4);
  });
});
