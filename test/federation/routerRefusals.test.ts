/**
 * Subscriptions through Hive Gateway at this gateway's default caps, over both of Hive's subgraph transports (its
 * default, GraphQL over SSE by GET, and graphql-ws multiplexed over one connection): with a key of
 * TRUSTED_ROUTER_KEYS every one is answered; without it, the refusals a client sees through Hive name the cap (or CSRF
 * prevention) and the fix, and this gateway counts and logs them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import {
  startHiveGateway,
  sseEvents,
  startInstance,
  subgraphOf,
  supergraph,
  type GraphQLAnswer,
  type HiveOptions,
  type Instance,
  type Router,
} from './routing.js';

const ROUTER_KEY = 'router-key-0123456789abcdef';
const HEALTH = 100;
const CHAT = 20;

let sandbox: Sandbox;
let instance: Instance;

/** One client's subscription through a router over GraphQL over SSE, its events as they come. */
class Stream {
  readonly events: GraphQLAnswer[] = [];
  done = false;
  private readonly abort = new AbortController();
  readonly finished: Promise<void>;

  constructor(url: string, query: string, variables?: Record<string, unknown>) {
    this.finished = this.read(url, query, variables).catch((error: unknown) => {
      if (!this.abort.signal.aborted) this.events.push({ errors: [{ message: `transport: ${String(error)}` }] });
    });
  }

  private async read(url: string, query: string, variables?: Record<string, unknown>): Promise<void> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query, variables }),
      signal: this.abort.signal,
    });
    if (!res.ok || !res.body) {
      this.events.push({ errors: [{ message: `HTTP ${res.status}: ${await res.text()}` }] });
      return;
    }
    for await (const { event, data } of sseEvents(res.body as AsyncIterable<Uint8Array>)) {
      if (event === 'complete') this.done = true;
      else if (data) this.events.push(JSON.parse(data) as GraphQLAnswer);
    }
    this.done = true;
  }

  get refused(): boolean {
    return this.events.some((e) => e.errors?.length);
  }

  close(): Promise<void> {
    this.abort.abort();
    return this.finished;
  }
}

const HEALTH_QUERY = 'subscription { serviceHealthChanged { kind serviceHealth { id status } } }';
const CHAT_QUERY =
  'subscription ($input: ChatCompletionInput!) { chatCompletionStream(input: $input) { delta { content } finishReason } }';
const CHAT_INPUT = { provider: 'glm', model: 'glm-4-flash', messages: [{ role: 'USER', content: 'Hello router' }] };

/** Polls the live health feed of this gateway has made. */
const livePolls = () =>
  (instance.gateway.services.domains as { liveHealth: { poller: { pollCount: number } } }).liveHealth.poller.pollCount;

/** `serviceHealthChanged` subscriptions open in this gateway now. */
const liveSubscribers = () =>
  (instance.gateway.services.domains as { liveHealth: { subscriberCount: number } }).liveHealth.subscriberCount;

/**
 * 100 `serviceHealthChanged` and 20 chat streams through `router` at once: how many health subscriptions received the
 * incident the sandbox opens once all are in place, how many chat streams finished, and the refusals seen.
 */
async function burst(router: Router): Promise<{ health: number; chat: number; refusals: GraphQLAnswer[] }> {
  // The subscriptions of the last burst are gone.
  await expect.poll(liveSubscribers, { timeout: 10_000 }).toBe(0);
  const health = Array.from({ length: HEALTH }, () => new Stream(router.url, HEALTH_QUERY));
  const chat = Array.from({ length: CHAT }, () => new Stream(router.url, CHAT_QUERY, { input: CHAT_INPUT }));
  const all = [...health, ...chat];
  // Every health subscription is open here or was refused.
  await expect
    .poll(() => liveSubscribers() + health.filter((s) => s.refused || s.done).length, {
      timeout: 30_000,
      interval: 100,
    })
    .toBe(HEALTH);
  // The live poller's first poll of a run is a baseline that reports nothing: the incident comes once a poll ran after
  // every subscription was in place, so a loaded machine cannot push that baseline past the incident.
  const polled = livePolls();
  await expect.poll(livePolls, { timeout: 10_000, interval: 50 }).toBeGreaterThan(polled);
  await fetch(`${sandbox.origin}/_sandbox/graph/incident`, {
    method: 'POST',
    body: JSON.stringify({ service: 'Exchange' }),
  });
  const answered = () => health.filter((s) => !s.refused && s.events.length > 0).length;
  const waiting = health.filter((s) => !s.refused).length;
  await expect.poll(answered, { timeout: 30_000, interval: 100 }).toBe(waiting);
  await Promise.all(chat.map((s) => s.finished));
  await Promise.all(health.map((s) => s.close()));
  return {
    health: answered(),
    chat: chat.filter((s) => s.events.at(-1)?.data && (s.events.at(-1)!.data as any).chatCompletionStream).length,
    refusals: all.filter((s) => s.refused).map((s) => s.events.find((e) => e.errors)!),
  };
}

beforeAll(async () => {
  sandbox = await startSandbox({ settings: { chatTokenDelayMs: 5 } });
  instance = await startInstance(
    'ops',
    { TRUSTED_ROUTER_KEYS: ROUTER_KEY, GRAPH_POLL_INTERVAL_MS: '200', RESPONSE_CACHE_MAX_BYTES: '0' },
    sandbox,
  );
}, 60_000);

afterAll(async () => {
  await instance?.gateway.close();
  await sandbox?.close();
});

/** Refusals of this gateway's `cap` counted since start (gateway_fair_share_refusals_total{limit}). */
async function refusalsCounted(cap: string): Promise<number> {
  const metric = await instance.gateway.services.metrics.fairShareRefusals.get();
  return metric.values.find((v) => v.labels.limit === cap)?.value ?? 0;
}

/** Starts Hive Gateway over this gateway alone, with `options`, for the tests of one describe block. */
function hiveWith(options: HiveOptions): () => Router {
  let hive: Router;
  beforeAll(async () => {
    hive = await startHiveGateway(
      'Hive Gateway',
      supergraph('guild', [await subgraphOf(instance)]),
      'hive-js',
      options,
    );
  });
  afterAll(() => hive?.stop());
  return () => hive;
}

describe.each<[string, HiveOptions]>([
  ['graphql-ws (multiplexed over one connection)', { subscriptions: 'ws', routerKey: ROUTER_KEY }],
  ['its default transport (GraphQL over SSE by GET)', { subscriptions: 'http', routerKey: ROUTER_KEY }],
])('Hive Gateway with a router key, over %s, at the default caps', (_name, options) => {
  const hive = hiveWith(options);

  it(`answers ${HEALTH} serviceHealthChanged and ${CHAT} chat streams at once, every one`, async () => {
    const result = await burst(hive());
    expect(result.refusals).toEqual([]);
    expect([result.health, result.chat]).toEqual([HEALTH, CHAT]);
  }, 90_000);
});

describe('Hive Gateway without a router key, over graphql-ws, at the default caps', () => {
  const hive = hiveWith({ subscriptions: 'ws' });

  it('answers GATEWAY_WS_MAX_OPERATIONS (50) of them; each other one gets a RATE_LIMITED error naming the cap and its fix, counted and logged', async () => {
    const counted = await refusalsCounted('GATEWAY_WS_MAX_OPERATIONS');
    const result = await burst(hive());
    expect(result.health + result.chat).toBe(50);
    expect(result.refusals).toHaveLength(HEALTH + CHAT - 50);
    for (const refusal of result.refusals) {
      expect(refusal.errors).toHaveLength(1);
      expect(refusal.errors![0].message).toMatch(
        /^Too many concurrent operations: GATEWAY_WS_MAX_OPERATIONS allows 50 for one connection\. .*TRUSTED_ROUTER_KEYS/,
      );
      expect(refusal.errors![0].extensions).toMatchObject({
        code: 'RATE_LIMITED',
        limit: 'GATEWAY_WS_MAX_OPERATIONS',
        max: 50,
        fix: expect.stringContaining('raise GATEWAY_WS_MAX_OPERATIONS'),
      });
    }
    expect((await refusalsCounted('GATEWAY_WS_MAX_OPERATIONS')) - counted).toBe(HEALTH + CHAT - 50);
    // One line a minute for the cap, whatever the count: the rest are in the metric.
    const lines = instance.logs.json().filter((l) => l.limit === 'GATEWAY_WS_MAX_OPERATIONS');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', max: 50 });
    expect(String(lines[0].msg)).toMatch(/^refused with RATE_LIMITED: Too many concurrent operations/);
  }, 90_000);
});

describe('Hive Gateway without a router key, over its default transport', () => {
  const hive = hiveWith({ subscriptions: 'http' });

  it('gets every subscription refused by CSRF prevention before anything runs, the error naming the header or key that passes', async () => {
    sandbox.record.clear();
    const refused = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const stream = new Stream(hive().url, HEALTH_QUERY);
        await stream.finished;
        return stream.events;
      }),
    );
    for (const events of refused) {
      expect(events).toHaveLength(1);
      expect(events[0].errors![0].message).toMatch(
        /Cross-Site Request Forgery.*apollo-require-preflight.*TRUSTED_ROUTER_KEYS/,
      );
      expect(events[0].errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'BAD_REQUEST' });
    }
    expect(liveSubscribers()).toBe(0);
  }, 60_000);
});

describe("CSRF prevention and a router's key, sent straight to this gateway", () => {
  /** A subscription by plain GET, as Hive Gateway's default transport sends it; its status and first bytes. */
  async function subscribeByGet(headers: Record<string, string>): Promise<{ status: number; text: string }> {
    const url = `${instance.gateway.url}?query=${encodeURIComponent('subscription { serverTime(intervalMs: 10, count: 1) }')}`;
    const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers } });
    return { status: res.status, text: await res.text() };
  }

  it('lets a GET with a key of TRUSTED_ROUTER_KEYS stream, and refuses one with any other key, or none, as a browser could send it', async () => {
    const router = await subscribeByGet({ 'x-api-key': ROUTER_KEY });
    expect(router.status).toBe(200);
    expect(router.text).toMatch(/event: next[\s\S]*serverTime[\s\S]*event: complete/);
    const others: Array<Record<string, string>> = [
      {},
      { 'x-api-key': `${ROUTER_KEY}x` },
      { 'x-api-key': ROUTER_KEY.slice(0, -1) },
    ];
    for (const headers of others) {
      const refused = await subscribeByGet(headers);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('Cross-Site Request Forgery');
    }
  });
});

describe("a client's cap met through Hive Gateway with the key (a router naming no end client is one client)", () => {
  let capped: Instance;
  const hives: Router[] = [];
  beforeAll(async () => {
    capped = await startInstance('ops', { TRUSTED_ROUTER_KEYS: ROUTER_KEY, CLIENT_MAX_SUBSCRIPTIONS: '5' }, sandbox);
    const sdl = supergraph('guild', [await subgraphOf(capped)]);
    for (const subscriptions of ['ws', 'http'] as const)
      hives.push(await startHiveGateway(subscriptions, sdl, 'hive-js', { subscriptions, routerKey: ROUTER_KEY }));
  });
  afterAll(async () => {
    await Promise.all(hives.map((h) => h.stop()));
    await capped?.gateway.close();
  });

  it.each([
    ['graphql-ws', 0],
    ['SSE by GET', 1],
  ])(
    'over %s: answers 5 of 8 and gives the others the RATE_LIMITED error naming CLIENT_MAX_SUBSCRIPTIONS and its fix',
    async (_transport, i) => {
      const streams = Array.from(
        { length: 8 },
        () => new Stream(hives[i].url, 'subscription { serverTime(intervalMs: 300, count: 3) }'),
      );
      await Promise.all(streams.map((s) => s.finished));
      expect(streams.filter((s) => !s.refused && s.events.length === 3)).toHaveLength(5);
      const refusals = streams.filter((s) => s.refused).map((s) => s.events[0].errors![0]);
      expect(refusals).toHaveLength(3);
      for (const e of refusals) {
        expect(e.message).toMatch(/^Too many open subscriptions: CLIENT_MAX_SUBSCRIPTIONS allows 5 for one client\./);
        expect(e.extensions).toMatchObject({
          code: 'RATE_LIMITED',
          limit: 'CLIENT_MAX_SUBSCRIPTIONS',
          max: 5,
          fix: expect.stringContaining('ROUTER_CLIENT_HEADER'),
        });
      }
    },
    60_000,
  );
});
