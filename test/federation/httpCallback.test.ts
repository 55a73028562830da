/**
 * Hive Gateway 2.15 as a federation router that subscribes to this gateway over Apollo's HTTP callback protocol (its
 * `http-callback` subscription transport, its webhooks answering the callbacks), set up as docs/federation.md tells
 * the operator: the router's key (TRUSTED_ROUTER_KEYS) on every request, its callback host in
 * SUBSCRIPTION_CALLBACK_HOSTS; every other setting at its default. Clients subscribe to Hive over GraphQL over SSE.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PollReport } from '../../src/domains/enterprise/live/poller.js';
import { freePort, root, spawnProc, waitReady, type Proc } from '../../src/bench/lib/proc.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { ManualClock } from '../support/pollClock.js';
import { guildSupergraph, servedSubgraph } from './composition.js';

const ROUTER_KEY = 'router-key-0123456789';
/**
 * Subscribers opened at once; `HTTP_CALLBACK_SUBSCRIBERS=300` measures the issue's figure. Past 256 (with the 20 chat
 * streams, past 236) the router, one client without ROUTER_CLIENT_HEADER, meets CLIENT_MAX_SUBSCRIPTIONS; and Hive
 * Gateway 2.15 registers its callback listener only after it sent the subscription, so on a loaded machine some of
 * many simultaneous checks meet its 404 (docs/federation.md).
 */
const SUBSCRIBERS = Number(process.env.HTTP_CALLBACK_SUBSCRIBERS ?? 100);
const CHATS = 20;
const HEALTH = 'subscription Health { serviceHealthChanged { kind serviceHealth { id status } } }';
const STREAM = `subscription Chat { chatCompletionStream(input: { provider: "glm", model: "glm-4-flash", messages: [{ role: USER, content: "Say hello." }] }) { delta { content } finishReason } }`;

/** One client's subscription through Hive over SSE: its `next` payloads, until it completes or `signal` aborts. */
async function subscribe(
  url: string,
  query: string,
  signal: AbortSignal,
  onEvent?: (event: unknown) => void,
): Promise<unknown[]> {
  const events: unknown[] = [];
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query }),
      signal,
    });
    let buffer = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: ?(.*)$/m.exec(block)?.[1];
        if (/^event: next/m.test(block) && data) {
          events.push(JSON.parse(data));
          onEvent?.(events.at(-1));
        }
        if (/^event: complete/m.test(block)) return events;
      }
    }
  } catch {
    // Aborted by the test, or Hive ended it (a subscription it timed out): what came is what it got.
  }
  return events;
}

describe('subscriptions through Hive Gateway over http-callback, at the defaults with a router key', () => {
  let dir: string;
  let gw: TestGateway;
  let hive: Proc;
  let hiveUrl: string;
  const clock = new ManualClock();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'http-callback-'));
    // Hive's callback endpoint is its own port: told to the gateway (SUBSCRIPTION_CALLBACK_HOSTS) and to Hive
    // (`public_url`) before Hive starts.
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    gw = await startTestGateway(
      { TRUSTED_ROUTER_KEYS: ROUTER_KEY, SUBSCRIPTION_CALLBACK_HOSTS: new URL(origin).host },
      {},
      { domains: { liveHealth: { clock } } },
    );
    const file = join(dir, 'supergraph.graphql');
    writeFileSync(file, guildSupergraph([await servedSubgraph('gateway', gw.gateway.url)]));
    const key = JSON.stringify(ROUTER_KEY);
    writeFileSync(
      join(dir, 'gateway.config.mjs'),
      `export const gatewayConfig = {
        supergraph: ${JSON.stringify(file)},
        webhooks: true,
        transportEntries: {
          gateway: {
            headers: [['x-api-key', ${key}]],
            options: {
              subscriptions: {
                kind: 'http-callback',
                location: ${JSON.stringify(gw.gateway.url)},
                headers: [['x-api-key', ${key}]],
                options: { public_url: ${JSON.stringify(`${origin}/callback`)}, heartbeat_interval: 10000 },
              },
            },
          },
        },
      };\n`,
    );
    hive = spawnProc(
      'hive-gateway',
      join(root, 'node_modules/.bin/hive-gateway'),
      ['supergraph', '--port', String(port), '--host', '127.0.0.1'],
      { LOG_LEVEL: 'warn' },
      dir,
    );
    await waitReady(hive, `${origin}/healthcheck`, 60_000);
    hiveUrl = `${origin}/graphql`;
  }, 120_000);
  afterAll(async () => {
    await hive?.stop();
    await gw?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const live = () => gw.gateway.services.domains.liveHealth;

  it(`answers ${SUBSCRIBERS} live health subscribers and ${CHATS} chat streams of one router: each chat stream whole, each subscriber that the gateway opened its change, and releases them when Hive drops them`, async () => {
    const controller = new AbortController();
    let heard = 0;
    const isChange = (e: any) => e?.data?.serviceHealthChanged?.serviceHealth?.id === 'Exchange';
    const health = Array.from({ length: SUBSCRIBERS }, () =>
      subscribe(hiveUrl, HEALTH, controller.signal, (e) => isChange(e) && heard++),
    );
    const chats = Array.from({ length: CHATS }, () => subscribe(hiveUrl, STREAM, controller.signal));
    const chatEvents = await Promise.all(chats);
    const wholeChats = chatEvents.filter(
      (events) => (events.at(-1) as any)?.data?.chatCompletionStream?.finishReason,
    ).length;

    // Settled: each subscriber Hive forwarded is open at the gateway, or its POST was answered with the reason (a
    // refusal at admission, or a check the router did not accept).
    const healthOps = () =>
      gw.logs.json().filter((l) => l.msg === 'operation' && l.transport === 'callback' && l.operation === 'Health');
    const notStarted = () => {
      const checkFailed = new Set(
        gw.logs
          .json()
          .filter((l) => l.msg === 'callback subscription not started: its router did not accept the check')
          .map((l) => l.requestId),
      );
      return healthOps().filter((l) => checkFailed.has(l.requestId) || l.outcome !== 'ok');
    };
    // (Or it began and already ended: Hive timed it out on a loaded machine, and answered its next check 404.)
    await vi.waitFor(() => expect(live().subscriberCount + healthOps().length).toBe(SUBSCRIBERS), {
      timeout: 90_000,
      interval: 200,
    });
    const open = live().subscriberCount;

    const update = await gw.query(
      'mutation { updateServiceHealth(id: "Exchange", input: { status: SERVICE_DEGRADATION }) { id } }',
    );
    expect(update.body.errors).toBeUndefined();
    const report = once(live().poller, 'poll');
    clock.fire();
    expect(((await report) as [PollReport])[0]).toMatchObject({ outcome: 'ok', changes: 1 });
    // Each subscriber hears it once; one that Hive timed out meanwhile (no message within its interval on a loaded
    // machine) is gone there, and its next check here is answered 404.
    await vi.waitFor(() => expect(heard).toBe(open), { timeout: 20_000, interval: 100 }).catch(() => undefined);
    expect(heard).toBeLessThanOrEqual(open);
    const reasons: Record<string, number> = {};
    const ended = healthOps().length - notStarted().length;
    if (ended) reasons['ended by a 404 before the change'] = ended;
    for (const l of notStarted()) {
      const why = l.outcome === 'ok' ? 'check not accepted' : String(l.errorCodes);
      reasons[why] = (reasons[why] ?? 0) + 1;
    }
    console.info(
      `[http-callback] through Hive Gateway 2.15.1 at the defaults with a router key: ${heard} of ${SUBSCRIBERS} serviceHealthChanged subscribers heard the change (${open} opened here), ${wholeChats} of ${CHATS} chat streams whole; not started: ${JSON.stringify(reasons)}`,
    );
    expect(wholeChats).toBe(CHATS);
    expect(heard).toBeGreaterThan(0);

    // Hive drops each aborted client's subscription; its webhook then answers the next heartbeat with 404, which ends
    // the subscription here (its share and the live feed's subscriber released).
    controller.abort();
    await Promise.all(health);
    await vi.waitFor(() => expect(live().subscriberCount).toBe(0), { timeout: 30_000, interval: 200 });
  }, 180_000);
});
