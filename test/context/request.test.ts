import { ApolloServer } from '@apollo/server';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createContext, newRequestId, requestIdFrom, type GatewayContext } from '../../src/context/request.js';
import type { GatewayServices } from '../../src/context/services.js';

/** A services object with a logger that counts the per-request children made of it. */
function countingServices(): { services: GatewayServices; children: Array<Record<string, unknown>> } {
  const children: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'silent' });
  const child = log.child.bind(log);
  log.child = ((bindings: Record<string, unknown>) => {
    children.push(bindings);
    return child(bindings);
  }) as typeof log.child;
  return { services: { log } as unknown as GatewayServices, children };
}

describe('the per-request context', () => {
  it('makes no logger for an operation that logs nothing, though Apollo copies the context of every operation', async () => {
    const { services, children } = countingServices();
    let seen: GatewayContext | undefined;
    const apollo = new ApolloServer<GatewayContext>({
      typeDefs: 'type Query { hello(log: Boolean): String }',
      resolvers: {
        Query: {
          hello: (_: unknown, args: { log?: boolean }, ctx: GatewayContext) => {
            seen = ctx;
            if (args.log) ctx.log.info('said hello');
            return `hello ${ctx.requestId}`;
          },
        },
      },
    });
    await apollo.start();
    const contextValue = createContext(services, { requestId: 'r-1', signal: new AbortController().signal });
    const quiet = await apollo.executeOperation({ query: '{ hello }' }, { contextValue });
    expect(quiet.body).toMatchObject({ kind: 'single', singleResult: { data: { hello: 'hello r-1' } } });
    expect(seen).not.toBe(contextValue); // Apollo's copy, not ours
    expect(children).toEqual([]);

    await apollo.executeOperation({ query: '{ a: hello(log: true) b: hello(log: true) }' }, { contextValue });
    // One child for the operation that logged, bound to its request id, however often it logged.
    expect(children).toEqual([{ requestId: 'r-1' }]);
    // Apollo's copy shares the operation's state with the context the pipeline holds.
    expect(seen?.perOperation).toBe(contextValue.perOperation);
    await apollo.stop();
  });
});

describe('request ids', () => {
  it('keeps a well-formed id the caller sent and makes a fresh random UUID otherwise', () => {
    expect(requestIdFrom('abc-123.x:y_z')).toBe('abc-123.x:y_z');
    expect(requestIdFrom(['first-id', 'second-id'])).toBe('first-id');
    for (const bad of [undefined, '', 'has space', 'a'.repeat(129), 'line\nbreak', '<script>'])
      expect(requestIdFrom(bad)).toMatch(UUID_V4);
  });

  it('makes a different id for each request that sent none', () => {
    const ids = Array.from({ length: 1000 }, () => requestIdFrom(undefined));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('makes version 4 UUIDs whose every random digit takes every value, past each refill of its random bytes', () => {
    const first = newRequestId();
    const kept = `${first}`;
    const ids = Array.from({ length: 1000 }, () => newRequestId());
    // Each id is its own string, not a view of the buffer the next one is written into.
    expect(first).toBe(kept);
    expect(new Set([first, ...ids]).size).toBe(1001);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    for (let at = 0; at < 36; at++) {
      if ([8, 13, 14, 18, 23].includes(at)) continue;
      // 1,000 draws of 16 values (4 for the variant's digit): one missing would be a bias, not chance (p < 1e-25).
      expect(new Set(ids.map((id) => id[at])).size).toBe(at === 19 ? 4 : 16);
    }
  });
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
