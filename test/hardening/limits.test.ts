import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import WebSocket from 'ws';
import { collect, wsClient } from '../support/ws.js';

describe('operation limits', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({
      GATEWAY_MAX_DEPTH: '3',
      GATEWAY_MAX_ALIASES: '3',
      GATEWAY_MAX_TOKENS: '60',
      GATEWAY_MAX_FIELDS: '8',
      GATEWAY_MAX_DOCUMENT_BYTES: '400',
    });
  });
  afterAll(() => t.close());

  it('refuses an operation deeper than GATEWAY_MAX_DEPTH with QUERY_TOO_COMPLEX naming limit and value', async () => {
    const { status, body } = await t.query(
      '{ upstreams { id } __type(name: "Query") { fields { type { name } } } }',
      undefined,
      { accept: 'application/graphql-response+json' },
    );
    expect(status).toBe(400);
    expect(body.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'GATEWAY_MAX_DEPTH',
      max: 3,
      found: 4,
    });
    expect(body.errors![0].message).toBe(
      'Depth limit of 3 exceeded, found 4: simplify the operation or raise GATEWAY_MAX_DEPTH.',
    );
  });

  it('refuses more aliases than GATEWAY_MAX_ALIASES', async () => {
    const { body } = await t.query(
      '{ a: upstreams { id } b: upstreams { id } c: upstreams { id } d: upstreams { id } }',
    );
    expect(body.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'GATEWAY_MAX_ALIASES',
      max: 3,
      found: 4,
    });
  });

  it('counts fields through fragments against GATEWAY_MAX_FIELDS', async () => {
    const { body } = await t.query('{ ...F ...F ...F } fragment F on Query { upstreams { id mode baseUrl } }');
    const fields = body.errors!.find((e) => e.extensions!.limit === 'GATEWAY_MAX_FIELDS');
    expect(fields!.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', max: 8 });
    expect(fields!.message).toBe(
      'Field count limit of 8 exceeded: simplify the operation or raise GATEWAY_MAX_FIELDS.',
    );
  });

  it('stops lexing past GATEWAY_MAX_TOKENS', async () => {
    const { body } = await t.query(`{ ${'upstreams { id } '.repeat(20)} }`);
    expect(body.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'GATEWAY_MAX_TOKENS',
      max: 60,
    });
  });

  it('refuses documents larger than GATEWAY_MAX_DOCUMENT_BYTES before parsing', async () => {
    const { status, body } = await t.query(`{ upstreams { id } } # ${'x'.repeat(500)}`);
    expect(status).toBe(400);
    expect(body.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'GATEWAY_MAX_DOCUMENT_BYTES',
      max: 400,
    });
  });

  it('applies the same limits over the WebSocket', async () => {
    const client = wsClient(t.gateway.wsUrl);
    const { error } = await collect(
      client,
      '{ a: upstreams { id } b: upstreams { id } c: upstreams { id } d: upstreams { id } }',
    );
    await client.dispose();
    expect((error as Array<{ extensions: Record<string, unknown> }>)[0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'GATEWAY_MAX_ALIASES',
    });
  });

  it('lets operations within every limit through', async () => {
    const { body } = await t.query('{ a: upstreams { id } b: upstreams { mode } }');
    expect(body.errors).toBeUndefined();
  });
});

describe('WebSocket connection limits', () => {
  let t: TestGateway;
  beforeAll(async () => {
    // The init timeout applies to every client of this gateway: 1 s, so that a healthy client's connection_init on a
    // loaded machine is never late for it (the 4408 test waits for it once).
    t = await startTestGateway({
      GATEWAY_WS_MAX_OPERATIONS: '2',
      GATEWAY_WS_MAX_MESSAGE_BYTES: '2000',
      GATEWAY_WS_CONNECTION_INIT_TIMEOUT_MS: '1000',
    });
  });
  afterAll(() => t.close());

  it('refuses a third concurrent operation on one connection with RATE_LIMITED naming the cap, as its one result', async () => {
    const client = wsClient(t.gateway.wsUrl);
    const long = 'subscription { serverTime(intervalMs: 50, count: 100) }';
    const stops = [0, 1].map(() =>
      client.subscribe({ query: long }, { next: () => undefined, error: () => undefined, complete: () => undefined }),
    );
    await new Promise((r) => setTimeout(r, 100));
    const third = await collect(client, long);
    stops.forEach((s) => s());
    await client.dispose();
    // `next` then `complete`, not an `error` message: a router forwards a result's errors (routerRefusals.test.ts).
    expect(third.error).toBeUndefined();
    expect(third.results).toHaveLength(1);
    expect(third.results[0].errors?.[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      limit: 'GATEWAY_WS_MAX_OPERATIONS',
      max: 2,
      fix: expect.stringContaining('TRUSTED_ROUTER_KEYS'),
    });
    expect(
      await t.gateway.services.metrics.registry.getSingleMetricAsString('gateway_fair_share_refusals_total'),
    ).toMatch(/gateway_fair_share_refusals_total\{limit="GATEWAY_WS_MAX_OPERATIONS"\} 1/);
  });

  it('closes a socket that never sends connection_init within GATEWAY_WS_CONNECTION_INIT_TIMEOUT_MS with 4408', async () => {
    const ws = new WebSocket(t.gateway.wsUrl, 'graphql-transport-ws');
    const code = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('socket not closed within 5 s')), 5000);
      ws.on('close', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    expect(code).toBe(4408);
  });

  it('closes the socket on a message larger than GATEWAY_WS_MAX_MESSAGE_BYTES', async () => {
    const printed = vi.spyOn(console, 'error');
    try {
      const client = wsClient(t.gateway.wsUrl);
      const { error } = await collect(client, `{ upstreams { id } } # ${'x'.repeat(3000)}`);
      await client.dispose();
      expect((error as { code?: number }).code).toBe(1009);
      // One structured warning, no stack trace on stderr.
      expect(printed).not.toHaveBeenCalled();
      expect(t.logs.json().filter((l) => l.msg === 'WebSocket connection closed on a protocol error')).toEqual([
        expect.objectContaining({
          level: 'warn',
          code: 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH',
          error: 'Max payload size exceeded',
        }),
      ]);
    } finally {
      printed.mockRestore();
    }
  });
});
