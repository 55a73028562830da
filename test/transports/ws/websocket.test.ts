import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { collect, rawSubscriber, wsClient } from '../../support/ws.js';

describe('GraphQL over WebSocket (graphql-transport-ws)', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(() => t.close());

  it('streams a subscription on the same port and path as HTTP, then completes', async () => {
    const client = wsClient(t.gateway.wsUrl);
    const { results, error } = await collect<{ serverTime: string }>(
      client,
      'subscription Clock { serverTime(intervalMs: 20, count: 3) }',
    );
    await client.dispose();
    expect(error).toBeUndefined();
    expect(results).toHaveLength(3);
    const times = results.map((r) => Date.parse(r.data!.serverTime));
    expect(times.every((x, i) => i === 0 || x >= times[i - 1])).toBe(true);
    const line = t.logs.json().find((l) => l.operation === 'Clock' && l.msg === 'operation');
    expect(line).toMatchObject({ type: 'subscription', outcome: 'ok', transport: 'ws' });
  });

  it('writes each result as the next message graphql-ws would, for any operation id a client may choose', async () => {
    const sub = await rawSubscriber(t.gateway.wsUrl);
    const frames: string[] = [];
    sub.ws.on('message', (data) => frames.push(data.toString()));
    // The id is echoed inside the message made by the operation itself: quotes, backslashes and non-ASCII escaped.
    const id = 'a"b\\c\u2028é';
    sub.subscribe(id, 'subscription Clock { serverTime(intervalMs: 10, count: 3) }');
    await sub.results(id, 3);
    const nexts = frames.filter((f) => (JSON.parse(f) as { type: string }).type === 'next');
    expect(nexts).toHaveLength(3);
    for (const text of nexts) {
      const message = JSON.parse(text) as { id: string; type: string; payload: { data: { serverTime: string } } };
      expect(message.id).toBe(id);
      // Byte for byte what graphql-ws's stringifyMessage({ id, type, payload }) writes.
      expect(text).toBe(JSON.stringify({ id, type: 'next', payload: message.payload }));
      expect(Object.keys(message.payload)[0]).toBe('data');
    }
    sub.ws.close();
  });

  it('runs queries over the socket too', async () => {
    const client = wsClient(t.gateway.wsUrl);
    const { results } = await collect<{ upstreams: unknown[] }>(client, '{ upstreams { id } }');
    await client.dispose();
    expect(results[0].data!.upstreams).toHaveLength(6);
  });

  it('refuses bad arguments before starting, with the contract code and the bad value', async () => {
    const client = wsClient(t.gateway.wsUrl);
    const { results, error } = await collect(client, 'subscription { serverTime(intervalMs: 1) }');
    await client.dispose();
    const errors = (results[0]?.errors ?? error) as Array<{ message: string; extensions: { code: string } }>;
    expect(errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(errors[0].message).toMatch(/intervalMs must be 10\.\.60000 milliseconds, got 1/);
  });

  it('formats parse and validation errors with contract codes', async () => {
    const client = wsClient(t.gateway.wsUrl);
    const invalid = await collect(client, 'subscription { nope }');
    const broken = await collect(client, 'subscription { serverTime(');
    await client.dispose();
    expect((invalid.error as Array<{ extensions: unknown }>)[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'GRAPHQL_VALIDATION_FAILED',
    });
    expect((broken.error as Array<{ extensions: unknown }>)[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'GRAPHQL_PARSE_FAILED',
    });
  });

  it('stops the producer at once when the client completes the subscription', async () => {
    const client = wsClient(t.gateway.wsUrl);
    const received: string[] = [];
    await new Promise<void>((resolve) => {
      const stop = client.subscribe<{ serverTime: string }>(
        { query: 'subscription Early { serverTime(intervalMs: 10, count: 1000) }' },
        {
          next: (r) => {
            received.push(r.data!.serverTime);
            if (received.length === 2) {
              stop();
              resolve();
            }
          },
          error: resolve,
          complete: resolve,
        },
      );
    });
    // 1000 ticks would take 10 s: the operation logged as finished within 2 s of `complete` proves the producer stopped.
    await vi.waitFor(
      () => expect(t.logs.json().find((l) => l.operation === 'Early' && l.msg === 'operation')).toBeDefined(),
      { timeout: 2_000, interval: 20 },
    );
    await client.dispose();
    expect(received).toHaveLength(2);
  });

  it('ends an operation once however often the client completes it, and ignores a complete for an id it never used', async () => {
    const sub = await rawSubscriber(t.gateway.wsUrl);
    sub.subscribe('twice', 'subscription Twice { serverTime(intervalMs: 10, count: 1000) }');
    await sub.results('twice', 1);
    for (const id of ['twice', 'twice', 'never']) sub.ws.send(JSON.stringify({ id, type: 'complete' }));
    // The connection still serves: a later operation runs to its end.
    sub.subscribe('after', 'subscription After { serverTime(intervalMs: 10, count: 1) }');
    await sub.results('after', 1);
    const lines = (name: string) => t.logs.json().filter((l) => l.operation === name && l.msg === 'operation');
    await vi.waitFor(() => expect(lines('After')).toHaveLength(1), { timeout: 2_000, interval: 20 });
    expect(lines('Twice')).toHaveLength(1);
    sub.ws.close();
    expect((await sub.closed).code).toBe(1005);
    expect(lines('Twice')).toHaveLength(1);
  });

  it('rejects WebSocket upgrades on other paths', async () => {
    const client = wsClient(t.gateway.wsUrl.replace('/graphql', '/other'));
    const { error } = await collect(client, 'subscription { serverTime(count: 1) }');
    expect(error).toBeDefined();
    await client.dispose();
  });
});
