import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LiveHealth } from '../../../src/domains/enterprise/live/feed.js';
import type { PollReport } from '../../../src/domains/enterprise/live/poller.js';
import { CallbackRouter } from '../../support/callbackRouter.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { wsClient } from '../../support/ws.js';
import { ManualClock } from '../../support/pollClock.js';

const HEALTH = `subscription Health($services: [ID!]) {
  serviceHealthChanged(services: $services) { kind previousStatus serviceHealth { id status } }
}`;
const STREAM = `subscription Stream($input: ChatCompletionInput!) {
  chatCompletionStream(input: $input) { index delta { content } finishReason usage { totalTokens } }
}`;
const CHAT_INPUT = { provider: 'glm', model: 'glm-4-flash', messages: [{ role: 'USER', content: 'Say hello.' }] };
const ROUTER_KEY = 'router-key-0123456789';

const until = (check: () => void, timeout = 15_000) => vi.waitFor(check, { timeout, interval: 20 });
/** Room a loaded two-core machine may need beyond a heartbeat period before a check is late. */
const SLACK_MS = 1500;

describe('subscriptions over HTTP callbacks, against a router emulated from the spec', () => {
  let router: CallbackRouter;
  let gw: TestGateway;
  let live: LiveHealth;
  const clock = new ManualClock();

  beforeAll(async () => {
    router = await CallbackRouter.start();
    gw = await startTestGateway(
      {
        SUBSCRIPTION_CALLBACK_HOSTS: `router.internal,${new URL(router.origin).host}`,
        GRAPH_POLL_INTERVAL_MS: '60000',
        TRUSTED_ROUTER_KEYS: ROUTER_KEY,
      },
      {},
      { domains: { liveHealth: { clock } }, callbackTimeoutMs: 1000 },
    );
    live = gw.gateway.services.domains.liveHealth;
  });
  afterAll(async () => {
    await gw?.close();
    await router?.close();
  });
  afterEach(() => {
    expect(router.violations).toEqual([]);
    router.checkAnswer = 204;
    router.checkProtocol = 'callback/1.0';
  });

  /** One polling interval passes: the poll runs and reports. */
  async function pollOnce(): Promise<PollReport> {
    const report = once(live.poller, 'poll');
    clock.fire();
    return ((await report) as [PollReport])[0];
  }

  it('answers {data: null} only after the router accepted its check, sends each live health change as next, a check within every heartbeat period, and stops at the first 404', async () => {
    const {
      status,
      body,
      subscription: s,
    } = await router.subscribe(gw.gateway.url, HEALTH, {
      variables: { services: ['Exchange'] },
      heartbeatIntervalMs: 400,
    });
    expect([status, body]).toEqual([200, { data: null }]);
    expect(s.messages.map((m) => m.action)).toEqual(['check']);
    await until(() => expect(live.subscriberCount).toBe(1));
    await until(() => expect(live.poller.scheduled).toBe(true));

    const update = await gw.query(
      'mutation { updateServiceHealth(id: "Exchange", input: { status: SERVICE_DEGRADATION }) { id } }',
    );
    expect(update.body.errors).toBeUndefined();
    expect(await pollOnce()).toMatchObject({ outcome: 'ok', changes: 1 });
    await until(() => expect(router.messagesOf(s, 'next')).toHaveLength(1));
    expect(router.messagesOf(s, 'next')[0].body.payload).toMatchObject({
      data: {
        serviceHealthChanged: {
          kind: 'STATUS_CHANGED',
          serviceHealth: { id: 'Exchange', status: 'SERVICE_DEGRADATION' },
        },
      },
    });

    // Heartbeats: at least three periods pass, none without its check.
    await until(() => expect(router.messagesOf(s, 'check').length).toBeGreaterThanOrEqual(4));
    expect(router.heartbeatGaps(s, SLACK_MS)).toEqual([]);

    // The router ends it: the next check is answered 404, and the gateway ends the subscription there.
    router.terminate(s.id);
    await until(() => expect(live.subscriberCount).toBe(0));
    const sent = s.messages.length;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(s.messages).toHaveLength(sent);
    expect(router.messagesOf(s, 'complete')).toEqual([]);
    // The verifier authenticates this gateway to the router: it is never logged.
    expect(gw.logs.lines.some((l) => l.includes(s.verifier))).toBe(false);
  });

  it('streams a chat completion as next messages, then complete without errors', async () => {
    const {
      status,
      body,
      subscription: s,
    } = await router.subscribe(gw.gateway.url, STREAM, {
      variables: { input: CHAT_INPUT },
    });
    expect([status, body]).toEqual([200, { data: null }]);
    const complete = await s.completed;
    expect(complete.body.errors).toBeUndefined();
    const chunks = router.messagesOf(s, 'next').map((m) => m.body.payload.data.chatCompletionStream);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.at(-1)).toMatchObject({
      finishReason: expect.any(String),
      usage: { totalTokens: expect.any(Number) },
    });
    expect(chunks.map((c) => c.delta.content ?? '').join('')).not.toBe('');
    expect(s.messages.map((m) => m.action)).toEqual(['check', ...chunks.map(() => 'next'), 'complete']);
  });

  it("sends an error of the stream in its last next (as graphql-ws does, and Apollo Server's callback plugin), then complete", async () => {
    // The provider breaks off its stream after two events.
    const fault = await fetch(`${gw.sandbox.origin}/_sandbox/faults`, {
      method: 'POST',
      body: JSON.stringify({ upstream: 'glm', times: 1, cutAfterChunks: 2 }),
    });
    expect(fault.status).toBe(200);
    const { body, subscription: s } = await router.subscribe(gw.gateway.url, STREAM, {
      variables: { input: CHAT_INPUT },
    });
    expect(body).toEqual({ data: null });
    await s.completed;
    const payloads = router.messagesOf(s, 'next').map((m) => m.body.payload);
    expect(payloads).toHaveLength(3);
    expect(payloads[2]).toMatchObject({
      data: null,
      errors: [
        {
          message: 'The glm stream broke off after 2 chunks (other side closed).',
          extensions: { code: 'UPSTREAM_ERROR' },
        },
      ],
    });
    expect(s.messages.map((m) => m.action)).toEqual(['check', 'next', 'next', 'next', 'complete']);
  });

  it('refuses a subscription whose arguments its resolver refuses on the POST, after the check and with no other message', async () => {
    const {
      status,
      body,
      subscription: s,
    } = await router.subscribe(gw.gateway.url, STREAM, {
      variables: { input: { ...CHAT_INPUT, model: 'no-such-model' } },
    });
    expect(body.data ?? null).toBeNull();
    expect(body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(status).toBeLessThan(500);
    expect(router.messagesOf(s, 'next')).toEqual([]);
    expect(router.messagesOf(s, 'complete')).toEqual([]);
  });

  it('refuses a router that accepts its check in a protocol version it does not speak', async () => {
    router.checkProtocol = 'callback/2.0';
    const { status, body, subscription: s } = await router.subscribe(gw.gateway.url, HEALTH);
    expect(status).toBe(400);
    expect(body.errors[0]).toMatchObject({
      message: expect.stringContaining('speaks "callback/2.0", not callback/1.0'),
      extensions: { reason: 'CALLBACK_CHECK_FAILED' },
    });
    expect(s.messages.map((m) => m.action)).toEqual(['check']);
    router.terminate(s.id);
  });

  it('sends one message at a time to a slow router, in order and none lost', async () => {
    router.nextDelayMs = 250;
    try {
      const { body, subscription: s } = await router.subscribe(
        gw.gateway.url,
        'subscription { serverTime(count: 6, intervalMs: 10) }',
      );
      expect(body).toEqual({ data: null });
      await s.completed;
      expect(router.maxInFlight).toBe(1);
      const times = router.messagesOf(s, 'next').map((m) => m.body.payload.data.serverTime as string);
      expect(times).toHaveLength(6);
      // In order, none lost: what the router has not taken waits in the subscription's own bounded buffer
      // (execution/eventStream.ts, as for a slow WebSocket client), not in the callback transport.
      expect([...times].sort()).toEqual(times);
    } finally {
      router.nextDelayMs = 0;
    }
  });

  describe('hostile callbacks: refused before any request to the callbackUrl', () => {
    const refusals: Array<[string, (origin: string, id: string) => string, string]> = [
      [
        'a host SUBSCRIPTION_CALLBACK_HOSTS does not list',
        (o) => `http://localhost:${new URL(o).port}/callback/x`,
        'FORBIDDEN',
      ],
      ['the listed host on another port', () => 'http://127.0.0.1:9/callback/x', 'FORBIDDEN'],
      [
        'a user name and password in it',
        (o, id) => o.replace('http://', 'http://user:secret@') + `/callback/${id}`,
        'BAD_USER_INPUT',
      ],
      ['a file: URL', () => 'file:///etc/passwd', 'BAD_USER_INPUT'],
      ['a gopher: URL on the listed host', (o) => o.replace('http:', 'gopher:'), 'BAD_USER_INPUT'],
      ['not a URL', () => 'callback', 'BAD_USER_INPUT'],
    ];
    it.each(refusals)('refuses a callbackUrl with %s', async (_, url, code) => {
      const before = router.received;
      const { status, body } = await router.subscribe(gw.gateway.url, HEALTH, {
        callbackUrl: url(router.origin, 'x'),
      });
      expect(body.errors[0].extensions.code).toBe(code);
      expect(status).toBe(code === 'FORBIDDEN' ? 403 : 200);
      expect(router.received).toBe(before);
      expect(live.subscriberCount).toBe(0);
    });

    it('refuses extensions.subscription on a query, and a heartbeat interval that would flood the router', async () => {
      const before = router.received;
      const query = await router.subscribe(gw.gateway.url, '{ upstreams { id } }');
      expect(query.body.errors[0]).toMatchObject({
        message: expect.stringContaining('this operation is a query'),
        extensions: { code: 'BAD_USER_INPUT' },
      });
      const flood = await router.subscribe(gw.gateway.url, HEALTH, { heartbeatIntervalMs: 1 });
      expect(flood.body.errors[0].message).toContain('heartbeatIntervalMs is 1');
      expect(router.received).toBe(before);
    });
  });

  it.each([
    [400, 'answered 400'],
    [404, 'answered 404'],
    ['hang' as const, 'did not answer'],
  ])(
    'answers the POST with CALLBACK_CHECK_FAILED when the router answers its check %s, and starts nothing',
    async (answer, why) => {
      router.checkAnswer = answer;
      const { status, body, subscription: s } = await router.subscribe(gw.gateway.url, HEALTH);
      expect(status).toBe(400);
      expect(body.errors[0]).toMatchObject({
        message: expect.stringContaining(why),
        extensions: { code: 'BAD_USER_INPUT', reason: 'CALLBACK_CHECK_FAILED' },
      });
      expect(s.messages.map((m) => m.action)).toEqual(['check']);
      expect(live.subscriberCount).toBe(0);
    },
  );
});

describe('callback subscriptions whose router goes away, and the caps they share with graphql-ws', () => {
  let router: CallbackRouter;
  let gw: TestGateway;

  beforeAll(async () => {
    router = await CallbackRouter.start();
    gw = await startTestGateway({
      SUBSCRIPTION_CALLBACK_HOSTS: new URL(router.origin).host,
      TRUSTED_ROUTER_KEYS: ROUTER_KEY,
    });
  });
  afterAll(async () => {
    await gw?.close();
    await router?.close();
  });

  const live = () => gw.gateway.services.domains.liveHealth;

  it('releases a subscription whose router stopped answering: no answer to its heartbeat ends it, counted as a stalled stream', async () => {
    const gone = await CallbackRouter.start();
    const other = await startTestGateway(
      { SUBSCRIPTION_CALLBACK_HOSTS: new URL(gone.origin).host },
      {},
      { callbackTimeoutMs: 500 },
    );
    try {
      const { body } = await gone.subscribe(other.gateway.url, HEALTH, { heartbeatIntervalMs: 300 });
      expect(body).toEqual({ data: null });
      await until(() => expect(other.gateway.services.domains.liveHealth.subscriberCount).toBe(1));
      await gone.close();
      await until(() => expect(other.gateway.services.domains.liveHealth.subscriberCount).toBe(0));
      const metrics = await (await fetch(`${other.gateway.origin}/metrics`)).text();
      expect(metrics).toContain('gateway_stream_slow_client_closes_total{transport="callback",reason="stalled"} 1');
      expect(metrics).toMatch(/gateway_upstream_requests_total\{upstream="callback",status="204"\} [1-9]/);
      expect(gone.violations).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('holds 300 callback subscriptions of one client to CLIENT_MAX_SUBSCRIPTIONS (256), the cap graphql-ws shares, and gives the shares back when the router ends them', async () => {
    const key = { 'x-api-key': ROUTER_KEY };
    // Heartbeats 10 s apart: none is due while the 300 are admitted, so no accepted one can end (a check answered late
    // at load) and give its share to a later one inside the burst (seen at load 8: 265 accepted, 35 refused).
    const answers = await Promise.all(
      Array.from({ length: 300 }, () =>
        router.subscribe(gw.gateway.url, HEALTH, { heartbeatIntervalMs: 10_000, headers: key }),
      ),
    );
    const accepted = answers.filter((a) => a.body.data === null && !a.body.errors);
    const refused = answers.filter((a) => a.body.errors?.[0]?.extensions?.code === 'RATE_LIMITED');
    expect(answers.filter((a) => !accepted.includes(a) && !refused.includes(a)).map((a) => a.body)).toEqual([]);
    expect([accepted.length, refused.length]).toEqual([256, 44]);
    // A refused one never reached the router: one check for each accepted one, and the refusals' 429.
    for (const a of refused) {
      expect(a.subscription.messages).toEqual([]);
      expect(a.status).toBe(429);
    }
    expect(router.violations).toEqual([]);

    // The same client over graphql-ws is over the same cap.
    const ws = wsClient(gw.gateway.wsUrl, { 'x-api-key': ROUTER_KEY });
    const refusedOverWs = await new Promise<unknown>((resolve) =>
      ws.subscribe({ query: HEALTH }, { next: resolve, error: resolve, complete: () => resolve('complete') }),
    );
    expect(JSON.stringify(refusedOverWs)).toContain('RATE_LIMITED');

    // The router ends them all: each one's next heartbeat is answered 404, and its share comes back.
    for (const a of accepted) router.terminate(a.subscription.id);
    await until(() => expect(live().subscriberCount).toBe(0), 30_000);
    const again = await router.subscribe(gw.gateway.url, HEALTH, { headers: key });
    expect(again.body).toEqual({ data: null });
    router.terminate(again.subscription.id);
    await ws.dispose();
    expect(router.violations).toEqual([]);
  }, 60_000);
});

describe('callback subscriptions while SUBSCRIPTION_CALLBACK_HOSTS is unset', () => {
  it('refuses them with an error naming the setting, and calls nothing', async () => {
    const router = await CallbackRouter.start();
    const gw = await startTestGateway();
    try {
      const { status, body } = await router.subscribe(gw.gateway.url, HEALTH);
      expect(status).toBe(403);
      expect(body.errors[0]).toMatchObject({
        message: expect.stringContaining('SUBSCRIPTION_CALLBACK_HOSTS'),
        extensions: { code: 'FORBIDDEN', reason: 'CALLBACK_HOST_NOT_ALLOWED' },
      });
      expect(router.received).toBe(0);
    } finally {
      await gw.close();
      await router.close();
    }
  });
});

describe('callback subscriptions at shutdown', () => {
  it('ends each one with complete before the gateway closes', async () => {
    const router = await CallbackRouter.start();
    const gw = await startTestGateway({
      SUBSCRIPTION_CALLBACK_HOSTS: new URL(router.origin).host,
      SHUTDOWN_GRACE_MS: '200',
    });
    try {
      const { body, subscription: s } = await router.subscribe(gw.gateway.url, HEALTH);
      expect(body).toEqual({ data: null });
      await gw.close();
      expect(router.messagesOf(s, 'complete')).toHaveLength(1);
      expect(router.violations).toEqual([]);
    } finally {
      await router.close();
    }
  });
});
