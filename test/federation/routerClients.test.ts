import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Proc } from '../../src/bench/lib/proc.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startHiveGateway } from '../support/hiveGateway.js';
import { guildSupergraph, servedSubgraph } from './composition.js';

const ROUTER_KEY = 'router-key-0123456789';

/**
 * Hive Gateway as a federation router in front of this gateway, set up as docs/federation.md tells its operator
 * ("Behind a router: the end client"): the router presents a key of TRUSTED_ROUTER_KEYS and forwards each client's
 * `x-client-id` (`propagateHeaders`), which reaches this gateway in each graphql-ws operation's `extensions.headers`
 * over the one connection Hive multiplexes its subscribers on.
 */
describe('subscribers behind Hive Gateway, each its own client', () => {
  let dir: string;
  let gw: TestGateway;
  let hive: Proc;
  let hiveUrl: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'router-clients-'));
    // The defaults of GATEWAY_WS_MAX_OPERATIONS (50) and CLIENT_MAX_SUBSCRIPTIONS (256) stay.
    gw = await startTestGateway({
      GATEWAY_API_KEYS: 'client-key-0123456789',
      TRUSTED_ROUTER_KEYS: ROUTER_KEY,
      ROUTER_CLIENT_HEADER: 'x-client-id',
    });
    const file = join(dir, 'supergraph.graphql');
    writeFileSync(
      file,
      guildSupergraph([await servedSubgraph('gateway', gw.gateway.url, { 'x-api-key': ROUTER_KEY })]),
    );
    writeFileSync(
      join(dir, 'gateway.config.mjs'),
      `export const gatewayConfig = {
        supergraph: ${JSON.stringify(file)},
        transportEntries: {
          gateway: {
            headers: [['x-api-key', ${JSON.stringify(ROUTER_KEY)}]],
            options: {
              subscriptions: {
                kind: 'ws',
                location: '/graphql',
                headers: [['x-api-key', ${JSON.stringify(ROUTER_KEY)}]],
                options: { connectionParams: { 'x-api-key': ${JSON.stringify(ROUTER_KEY)} } },
              },
            },
          },
        },
        propagateHeaders: { fromClientToSubgraphs: ({ request }) => ({ 'x-client-id': request.headers.get('x-client-id') ?? undefined }) },
      };\n`,
    );
    ({ proc: hive, url: hiveUrl } = await startHiveGateway(dir));
  }, 120_000);
  afterAll(async () => {
    await hive?.stop();
    await gw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** One client's subscription through Hive Gateway over GraphQL over SSE: the events it received. */
  async function subscribe(endClient: string, query: string): Promise<unknown[]> {
    const res = await fetch(hiveUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-client-id': endClient },
      body: JSON.stringify({ query }),
      signal: AbortSignal.timeout(30_000),
    });
    const events: unknown[] = [];
    const text = await res.text();
    for (const block of text.split('\n\n')) {
      const data = /^data: ?(.*)$/m.exec(block)?.[1];
      if (/^event: next/m.test(block) && data) events.push(JSON.parse(data));
    }
    return events;
  }

  /** The subscription operations this gateway ran since log line `from`, and over how many connections. */
  function subscriptionsSince(from: number) {
    const ops = gw.logs
      .json()
      .slice(from)
      .filter((l) => l.msg === 'operation' && l.type === 'subscription');
    // An operation's request id starts with its connection's.
    return {
      ok: ops.filter((l) => l.outcome === 'ok').length,
      connections: new Set(ops.map((l) => String(l.requestId).split(':')[0])).size,
    };
  }
  // Each lasts three seconds: all 200 are open at once.
  const SUBSCRIPTION = 'subscription { serverTime(intervalMs: 1500, count: 2) }';
  const received = (streams: unknown[][]) =>
    streams.filter(
      (events) =>
        events.length === 2 &&
        events.every((e) => typeof (e as { data?: { serverTime?: unknown } }).data?.serverTime === 'string'),
    ).length;

  it('delivers an update to 200 of 200 subscribers of a cold start, when Hive opens a connection for each (more than CLIENT_MAX_CONNECTIONS)', async () => {
    const from = gw.logs.lines.length;
    const streams = await Promise.all(Array.from({ length: 200 }, (_, i) => subscribe(`user-${i}`, SUBSCRIPTION)));
    expect(received(streams)).toBe(200);
    const seen = subscriptionsSince(from);
    expect(seen.ok).toBe(200);
    console.info(
      `[router clients] cold start: 200 of 200 subscribers received their updates over ${seen.connections} graphql-ws connections from Hive Gateway`,
    );
  }, 60_000);

  it('delivers an update to 200 of 200 subscribers that Hive multiplexes over one graphql-ws connection (more than GATEWAY_WS_MAX_OPERATIONS)', async () => {
    // Hive makes its subscriptions executor on first use: once made, every subscriber shares its one connection.
    await subscribe('warm-up', SUBSCRIPTION);
    const from = gw.logs.lines.length;
    const streams = await Promise.all(Array.from({ length: 200 }, (_, i) => subscribe(`user-${i}`, SUBSCRIPTION)));
    expect(received(streams)).toBe(200);
    expect(subscriptionsSince(from)).toEqual({ ok: 200, connections: 1 });
  }, 60_000);

  it('answers a query the router sends over HTTP with its key', async () => {
    const res = await fetch(hiveUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-client-id': 'user-1' },
      body: JSON.stringify({ query: '{ upstreams { id } }' }),
    });
    expect(((await res.json()) as { data: { upstreams: unknown[] } }).data.upstreams).toHaveLength(6);
  });
});
