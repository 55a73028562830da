/**
 * Fault storms per upstream under concurrent load, injected through the sandbox's fault queue: within the retry
 * budget no operation fails and each costs exactly the retries the policy allows; beyond it the failing upstream's
 * fields are null with the right code while the other upstreams' fields still resolve; the circuit breaker opens
 * after repeated failures, answers without an upstream request while open, and closes after one good probe.
 * Every test runs on its own gateway and sandbox (the breaker and the OMDb quota are gateway-wide state), and every
 * test ends with the gateway still answering /healthz.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildSeed } from '../../src/sandbox/graph/data.js';
import { seedTitles } from '../../src/sandbox/omdb/seed.js';
import type { RecordedRequest } from '../../src/sandbox/record.js';
import type { Fault, UpstreamName } from '../../src/sandbox/types.js';
import { COMPLETION, eventually, streamAll, user } from '../support/chat.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { wsClient } from '../support/ws.js';

/** Concurrent operations per storm. */
const N = 20;
/** Consecutive failed requests that open an upstream's circuit (DEFAULT_BREAKER.threshold). */
const BREAKER_THRESHOLD = 5;
/** Attempts of a Graph or OMDb GET (DEFAULT_RETRY_POLICY.maxAttempts), and of a chat completion (chat client). */
const GET_ATTEMPTS = 4;
const CHAT_ATTEMPTS = 3;

/** One distinct service and title per operation, so that a fault can target exactly one operation (`match`). */
const SERVICES = buildSeed()
  .services.slice(0, N)
  .map((r) => ({ id: r.id, service: r.value.service as string }));
const TITLES = seedTitles()
  .filter((t) => t.type === 'movie')
  .slice(0, N)
  .map((t) => ({ imdbId: t.imdbID, title: t.title }));
const graphMatch = (i: number) => `healthOverviews/${SERVICES[i].id}?`;
const omdbMatch = (i: number) => `i=${TITLES[i].imdbId}`;

/** One operation over all three domains: a Graph entity, an OMDb title, and the chat provider list. */
const MIXED = `query Mixed($service: ID!, $imdbId: ID!) {
  admin { serviceAnnouncement { healthOverview(id: $service) { id service } } }
  title(imdbId: $imdbId) { imdbId title }
  chatProviders { id variant }
}`;
const GRAPH_PATH = ['admin', 'serviceAnnouncement', 'healthOverview'];

const CHAT = { id: 'moonshot', model: 'moonshot-v1-8k' } as const;
const STREAMING = { id: 'glm', model: 'glm-4-flash' } as const;

type GraphQLError = { message: string; path?: unknown[]; extensions?: Record<string, any> };
type Result = { status: number; body: { data?: any; errors?: GraphQLError[] } };

let t: TestGateway | undefined;
afterEach(async () => {
  if (!t) return;
  const gw = t;
  t = undefined;
  try {
    // No crash: whatever the storm did, the gateway still answers.
    const health = await fetch(`${gw.gateway.origin}/healthz`);
    expect(health.status).toBe(200);
  } finally {
    await gw.close();
  }
});

async function start(env: Record<string, string> = {}): Promise<TestGateway> {
  // Storms repeat the same operations, and each must reach the faulty upstream: no response cache.
  t = await startTestGateway({ RESPONSE_CACHE_MAX_BYTES: '0', ...env });
  return t;
}

const times = <T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> =>
  Promise.all(Array.from({ length: n }, (_, i) => fn(i)));
const mixed = (i: number): Promise<Result> => t!.query(MIXED, { service: SERVICES[i].id, imdbId: TITLES[i].imdbId });
const complete = (i: number): Promise<Result> =>
  t!.query(COMPLETION, {
    input: { provider: CHAT.id, model: CHAT.model, messages: [user(`Storm operation ${i}: say something short.`)] },
  });
const requestsMatching = (upstream: UpstreamName, text: string): RecordedRequest[] =>
  t!.upstreamRequests(upstream).filter((r) => r.url.includes(text));
const statuses = (requests: readonly RecordedRequest[]) => requests.map((r) => r.status);

/** Operation i's data, field by field, as the sandbox seeds it. */
const graphData = (i: number) => ({ id: SERVICES[i].id, service: SERVICES[i].service });
const titleData = (i: number) => ({ imdbId: TITLES[i].imdbId, title: TITLES[i].title });

function expectProviders(data: any): void {
  expect(data.chatProviders.map((p: { id: string }) => p.id)).toEqual(
    expect.arrayContaining(['glm', 'ark', 'deepseek', 'moonshot']),
  );
}

function expectWhole(r: Result, i: number): void {
  expect(r.body.errors).toBeUndefined();
  expect(r.body.data.admin.serviceAnnouncement.healthOverview).toEqual(graphData(i));
  expect(r.body.data.title).toEqual(titleData(i));
  expectProviders(r.body.data);
}

const circuitOpen = (upstream: string) => ({ code: 'UPSTREAM_ERROR', upstream, upstreamCode: 'CIRCUIT_OPEN' });
const isCircuitOpen = (e: GraphQLError | undefined) => e?.extensions?.upstreamCode === 'CIRCUIT_OPEN';

/** The fault kinds of a storm, as sandbox faults, and what the sandbox records for a request that got one. */
const KINDS = [
  { kind: '429 with Retry-After: 0', fault: { status: 429, retryAfter: 0 }, recorded: 429 },
  { kind: '503 without Retry-After (backoff)', fault: { status: 503 }, recorded: 503 },
  { kind: 'connection reset', fault: { reset: true }, recorded: null },
] as const;

/**
 * What an operation sees once a Graph or OMDb fault outlasts the retries. `breaker`: the fault counts as a failure,
 * so under concurrent load the circuit may open mid-storm and later operations get CIRCUIT_OPEN instead.
 */
const BEYOND: Record<
  'graph' | 'omdb',
  Record<(typeof KINDS)[number]['kind'], { extensions: Record<string, unknown>; breaker: boolean }>
> = {
  graph: {
    '429 with Retry-After: 0': {
      extensions: {
        code: 'UPSTREAM_RATE_LIMITED',
        upstream: 'graph',
        status: 429,
        upstreamCode: 'TooManyRequests',
        retryAfter: 0,
      },
      breaker: false,
    },
    '503 without Retry-After (backoff)': {
      extensions: { code: 'UPSTREAM_ERROR', upstream: 'graph', status: 503 },
      breaker: true,
    },
    'connection reset': { extensions: { code: 'UPSTREAM_ERROR', upstream: 'graph' }, breaker: true },
  },
  omdb: {
    // The sandbox answers a 429 with OMDb's daily-limit text, "Request limit reached!": the gateway takes OMDb at its
    // word and stops asking until the quota day ends (cached titles still answer).
    '429 with Retry-After: 0': {
      extensions: { code: 'UPSTREAM_QUOTA_EXHAUSTED', upstream: 'omdb', status: 429 },
      breaker: false,
    },
    '503 without Retry-After (backoff)': {
      extensions: { code: 'UPSTREAM_ERROR', upstream: 'omdb', status: 503 },
      breaker: true,
    },
    'connection reset': { extensions: { code: 'UPSTREAM_ERROR', upstream: 'omdb' }, breaker: true },
  },
};

function pushPerOperation(upstream: 'graph' | 'omdb', fault: Partial<Fault>, count: number): void {
  for (let i = 0; i < N; i++) {
    t!.sandbox.faults.push({
      upstream,
      times: count,
      match: upstream === 'graph' ? graphMatch(i) : omdbMatch(i),
      ...fault,
    });
  }
}

describe('within the retry budget, a storm costs retries, never an operation', () => {
  describe.each(['graph', 'omdb'] as const)('%s', (upstream) => {
    const other = upstream === 'graph' ? 'omdb' : 'graph';
    const match = upstream === 'graph' ? graphMatch : omdbMatch;

    it.each(KINDS)(
      `${N} concurrent operations through 2 × $kind each: all succeed with 3 requests each`,
      async ({ fault, recorded }) => {
        await start();
        pushPerOperation(upstream, fault, 2);
        const results = await times(N, mixed);

        results.forEach((r, i) => expectWhole(r, i));
        for (let i = 0; i < N; i++)
          expect(statuses(requestsMatching(upstream, match(i))), `operation ${i}`).toEqual([recorded, recorded, 200]);
        expect(t!.upstreamRequests(upstream)).toHaveLength(3 * N);
        expect(t!.upstreamRequests(other)).toHaveLength(N);
        expect(t!.sandbox.faults.pending()).toEqual([]);
      },
    );
  });

  it(`${N} concurrent chat completions on two providers through 2 × 429 (Retry-After: 1) each: all succeed`, async () => {
    await start();
    const providers = [CHAT, { id: 'glm', model: 'glm-4-flash' }] as const;
    const half = N / 2;
    // Two 429s aimed at each operation's own request by its message (chat requests share one URL): a queue of 2 × half
    // for the provider assumed lockstep rounds, and under CI load a late first attempt after others' retries took a
    // third 429 and was refused (Node 24, .ci/run at 1220418).
    for (let i = 0; i < N; i++)
      t!.sandbox.faults.push({
        upstream: providers[i % 2].id,
        times: 2,
        status: 429,
        retryAfter: 1,
        matchBody: `"Storm ${i}"`,
      });
    const [completions, queries] = await Promise.all([
      times(N, (i) => {
        const p = providers[i % 2];
        return t!.query(COMPLETION, { input: { provider: p.id, model: p.model, messages: [user(`Storm ${i}`)] } });
      }),
      times(N, mixed),
    ]);

    for (const r of completions) {
      // Named in full when it fails: a storm under load once refused one completion (CI, Node 20) with no word of why.
      expect(r.body.errors, JSON.stringify(r.body.errors)).toBeUndefined();
      expect(r.body.data.createChatCompletion.content).toEqual(expect.any(String));
      expect(r.body.data.createChatCompletion.choices[0].finishReason).toBe('STOP');
    }
    queries.forEach((r, i) => expectWhole(r, i));
    for (const p of providers) {
      const sent = statuses(t!.upstreamRequests(p.id));
      expect(sent.filter((s) => s === 429)).toHaveLength(2 * half);
      expect(sent.filter((s) => s === 200)).toHaveLength(half);
      expect(sent).toHaveLength(3 * half);
    }
  });

  it(`${N} concurrent streams through a 429 (Retry-After: 1) before the first byte each: all stream to the end`, async () => {
    await start();
    t!.sandbox.faults.push({ upstream: STREAMING.id, times: N, status: 429, retryAfter: 1 });
    const client = wsClient(t!.gateway.wsUrl);
    try {
      const streams = await times(N, (i) =>
        streamAll(client, { provider: STREAMING.id, model: STREAMING.model, messages: [user(`Stream ${i}`)] }),
      );
      for (const { chunks, errors } of streams) {
        expect(errors).toBeUndefined();
        expect(chunks.at(-1)).toMatchObject({ finishReason: 'STOP', usage: { totalTokens: expect.any(Number) } });
      }
    } finally {
      await client.dispose();
    }
    const sent = statuses(t!.upstreamRequests(STREAMING.id));
    expect(sent.filter((s) => s === 429)).toHaveLength(N);
    expect(sent.filter((s) => s === 200)).toHaveLength(N);
  });

  it(`2 s of latency on graph, omdb and ${CHAT.id} at once, within the 30 s timeout: ${N} queries and ${N} completions all succeed, one request each`, async () => {
    await start();
    for (const upstream of ['graph', 'omdb', CHAT.id] as const)
      t!.sandbox.faults.push({ upstream, times: N, delayMs: 2_000 });
    const [queries, completions] = await Promise.all([times(N, mixed), times(N, complete)]);

    queries.forEach((r, i) => expectWhole(r, i));
    for (const r of completions) expect(r.body.errors).toBeUndefined();
    for (const upstream of ['graph', 'omdb', CHAT.id] as const) {
      expect(statuses(t!.upstreamRequests(upstream)), upstream).toEqual(Array(N).fill(200));
    }
  });
});

describe('beyond the retry budget: the failing upstream is null with its code, the others resolve', () => {
  describe.each(['graph', 'omdb'] as const)('%s', (upstream) => {
    const match = upstream === 'graph' ? graphMatch : omdbMatch;

    it.each(KINDS)(`${N} concurrent operations through 4 × $kind each`, async ({ kind, fault, recorded }) => {
      await start();
      pushPerOperation(upstream, fault, GET_ATTEMPTS);
      const results = await times(N, mixed);
      const expected = BEYOND[upstream][kind];

      let own = 0;
      results.forEach((r, i) => {
        expect(r.body.errors, `operation ${i}`).toHaveLength(1);
        const [error] = r.body.errors!;
        const sent = requestsMatching(upstream, match(i));
        if (upstream === 'graph') {
          expect(r.body.data.admin.serviceAnnouncement.healthOverview).toBeNull();
          expect(r.body.data.title).toEqual(titleData(i));
          expect(error.path).toEqual(GRAPH_PATH);
        } else {
          expect(r.body.data.title).toBeNull();
          expect(r.body.data.admin.serviceAnnouncement.healthOverview).toEqual(graphData(i));
          expect(error.path).toEqual(['title']);
        }
        expectProviders(r.body.data);
        if (expected.breaker && isCircuitOpen(error)) {
          expect(error.extensions).toMatchObject(circuitOpen(upstream));
          expect(sent).toEqual([]);
          return;
        }
        if (!expected.breaker && upstream === 'omdb' && sent.length === 0) {
          // OMDb said its daily limit is reached while this operation was queued: refused before any request.
          expect(error.extensions).toMatchObject({ code: 'UPSTREAM_QUOTA_EXHAUSTED', upstream: 'omdb' });
          return;
        }
        own += 1;
        expect(error.extensions, `operation ${i}`).toMatchObject(expected.extensions);
        expect(statuses(sent), `operation ${i}`).toEqual(Array(GET_ATTEMPTS).fill(recorded));
      });
      // Operations admitted before the circuit opened all ran their retries to the end.
      expect(own).toBeGreaterThanOrEqual(expected.breaker ? BREAKER_THRESHOLD : upstream === 'omdb' ? 1 : N);
      if (upstream === 'graph' && !expected.breaker)
        expect(t!.upstreamRequests('graph')).toHaveLength(GET_ATTEMPTS * N);
    });
  });

  describe.each([
    {
      kind: '429 with Retry-After: 0',
      fault: { status: 429, retryAfter: 0 },
      faults: CHAT_ATTEMPTS * N,
      attempts: CHAT_ATTEMPTS,
      extensions: {
        code: 'UPSTREAM_RATE_LIMITED',
        upstream: CHAT.id,
        status: 429,
        upstreamCode: 'rate_limit_reached_error',
      },
      breaker: false,
    },
    // A completion is a write: only a 429 ("not processed") is retried, so one 503 or reset is already beyond the budget.
    // Moonshot's 503 says engine_overloaded_error ("try again later"), which its adapter reports as rate limiting.
    {
      kind: '503',
      fault: { status: 503 },
      faults: N,
      attempts: 1,
      extensions: {
        code: 'UPSTREAM_RATE_LIMITED',
        upstream: CHAT.id,
        status: 503,
        upstreamCode: 'engine_overloaded_error',
      },
      breaker: true,
    },
    {
      kind: 'connection reset',
      fault: { reset: true },
      faults: N,
      attempts: 1,
      extensions: { code: 'UPSTREAM_ERROR', upstream: CHAT.id },
      breaker: true,
    },
  ] as const)(`${CHAT.id} completions through $kind`, ({ fault, faults, attempts, extensions, breaker }) => {
    it(`fail with the provider's code while ${N} concurrent graph + omdb + chatProviders queries all resolve`, async () => {
      await start();
      t!.sandbox.faults.push({ upstream: CHAT.id, times: faults, ...fault });
      const [completions, queries] = await Promise.all([times(N, complete), times(N, mixed)]);

      queries.forEach((r, i) => expectWhole(r, i));
      let own = 0;
      for (const r of completions) {
        // createChatCompletion is nullable (schema/README.md): its error nulls only itself.
        expect(r.body.data).toEqual({ createChatCompletion: null });
        expect(r.body.errors).toHaveLength(1);
        const [error] = r.body.errors!;
        expect(error.path).toEqual(['createChatCompletion']);
        if (breaker && isCircuitOpen(error)) expect(error.extensions).toMatchObject(circuitOpen(CHAT.id));
        else {
          own += 1;
          expect(error.extensions).toMatchObject(extensions);
        }
      }
      expect(own).toBeGreaterThanOrEqual(breaker ? BREAKER_THRESHOLD : N);
      // Every request of the storm got a fault (none reached the emulator), one per attempt of each failed operation.
      expect(t!.upstreamRequests(CHAT.id)).toHaveLength(own * attempts);
      expect(t!.upstreamRequests(CHAT.id).every((r) => r.status !== 200)).toBe(true);
    });
  });

  it(`${N} concurrent ${STREAMING.id} streams cut after 3 events each end in UPSTREAM_ERROR while queries resolve; the next stream is whole`, async () => {
    await start();
    t!.sandbox.faults.push({ upstream: STREAMING.id, times: N, cutAfterChunks: 3 });
    const client = wsClient(t!.gateway.wsUrl);
    try {
      const [streams, queries] = await Promise.all([
        times(N, (i) =>
          streamAll(client, { provider: STREAMING.id, model: STREAMING.model, messages: [user(`Cut stream ${i}`)] }),
        ),
        times(N, mixed),
      ]);
      queries.forEach((r, i) => expectWhole(r, i));
      for (const { chunks, errors } of streams) {
        expect(chunks.length).toBeLessThanOrEqual(3);
        expect(chunks.every((c) => c.finishReason === null)).toBe(true);
        expect(errors).toHaveLength(1);
        expect(errors![0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: STREAMING.id });
        expect(errors![0].message).toMatch(/stream broke off after \d+ chunks/);
      }
      expect(t!.upstreamRequests(STREAMING.id)).toHaveLength(N);

      const after = await streamAll(client, {
        provider: STREAMING.id,
        model: STREAMING.model,
        messages: [user('And now in one piece.')],
      });
      expect(after.errors).toBeUndefined();
      expect(after.chunks.at(-1)).toMatchObject({ finishReason: 'STOP' });
    } finally {
      await client.dispose();
    }
  });
});

/**
 * 2.5 s, not 1 s: the other upstream's field must resolve within the same limit, and at load 15 the in-process
 * sandbox sometimes took over a second to answer it. The faulty upstream's 5 s still outlasts it.
 */
const TIMEOUT_MS = 2_500;

describe(`UPSTREAM_TIMEOUT_MS=${TIMEOUT_MS} against 5 s of upstream latency`, () => {
  describe.each(['graph', 'omdb'] as const)('%s', (upstream) => {
    const match = upstream === 'graph' ? graphMatch : omdbMatch;

    it(`${N} concurrent operations get UPSTREAM_TIMEOUT for ${upstream}'s fields, the rest resolves, and the upstream requests are abandoned`, async () => {
      await start({ UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS) });
      pushPerOperation(upstream, { delayMs: 5_000 }, 1);
      const results = await times(N, mixed);

      let own = 0;
      results.forEach((r, i) => {
        expect(r.body.errors, `operation ${i}`).toHaveLength(1);
        const [error] = r.body.errors!;
        if (upstream === 'graph') {
          expect(r.body.data.admin.serviceAnnouncement.healthOverview).toBeNull();
          expect(r.body.data.title).toEqual(titleData(i));
        } else {
          expect(r.body.data.title).toBeNull();
          expect(r.body.data.admin.serviceAnnouncement.healthOverview).toEqual(graphData(i));
        }
        expectProviders(r.body.data);
        // Timeouts count against the breaker.
        if (isCircuitOpen(error)) {
          expect(requestsMatching(upstream, match(i))).toEqual([]);
          return;
        }
        own += 1;
        expect(error.extensions).toMatchObject({ code: 'UPSTREAM_TIMEOUT', upstream });
        expect(error.message).toContain(`${TIMEOUT_MS} ms`);
        // The total timeout ends the request: no retry, and the connection is closed rather than left waiting.
        expect(requestsMatching(upstream, match(i))).toHaveLength(1);
      });
      expect(own).toBeGreaterThanOrEqual(BREAKER_THRESHOLD);
      expect(
        await eventually(() =>
          requestsMatching(upstream, upstream === 'graph' ? 'healthOverviews/' : 'i=tt').every((r) => r.aborted),
        ),
      ).toBe(true);
    });
  });

  it(`${CHAT.id} completions get UPSTREAM_TIMEOUT (CHAT_TIMEOUT_MS=1000) while ${N} concurrent queries resolve`, async () => {
    // Only the chat limit is lowered: the queries beside it are not what times out (at load 15 a 1 s limit on Graph
    // and OMDb cut one of them).
    await start({ CHAT_TIMEOUT_MS: '1000' });
    t!.sandbox.faults.push({ upstream: CHAT.id, times: N, delayMs: 5_000 });
    const [completions, queries] = await Promise.all([times(N, complete), times(N, mixed)]);

    queries.forEach((r, i) => expectWhole(r, i));
    let own = 0;
    for (const r of completions) {
      const [error] = r.body.errors!;
      if (isCircuitOpen(error)) continue;
      own += 1;
      expect(error.extensions).toMatchObject({ code: 'UPSTREAM_TIMEOUT', upstream: CHAT.id });
    }
    expect(own).toBeGreaterThanOrEqual(BREAKER_THRESHOLD);
    expect(t!.upstreamRequests(CHAT.id)).toHaveLength(own);
    expect(await eventually(() => t!.upstreamRequests(CHAT.id).every((r) => r.aborted))).toBe(true);
  });
});

describe('the circuit breaker', () => {
  const metricState = async (upstream: string): Promise<number> => {
    const text = await (await fetch(`${t!.gateway.origin}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`gateway_upstream_circuit_state{upstream="${upstream}"}`));
    return Number(line?.split(' ').at(-1));
  };

  it(`opens after ${BREAKER_THRESHOLD} failed graph operations, answers CIRCUIT_OPEN without a request while the rest resolves, and closes after one good probe`, async () => {
    await start();
    t!.sandbox.faults.push({ upstream: 'graph', times: BREAKER_THRESHOLD * GET_ATTEMPTS, status: 503, retryAfter: 0 });
    for (let i = 0; i < BREAKER_THRESHOLD; i++) {
      const r = await mixed(i);
      expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'graph', status: 503 });
    }
    expect(t!.upstreamRequests('graph')).toHaveLength(BREAKER_THRESHOLD * GET_ATTEMPTS);
    expect(await metricState('graph')).toBe(2);

    // Open: N concurrent operations get CIRCUIT_OPEN at once, Graph sees nothing, OMDb and chatProviders answer.
    t!.clearUpstreamRequests();
    const open = await times(N, mixed);
    open.forEach((r, i) => {
      expect(r.body.data.admin.serviceAnnouncement.healthOverview).toBeNull();
      expect(r.body.data.title).toEqual(titleData(i));
      expectProviders(r.body.data);
      expect(r.body.errors).toHaveLength(1);
      expect(r.body.errors![0].path).toEqual(GRAPH_PATH);
      expect(r.body.errors![0].extensions).toMatchObject({ ...circuitOpen('graph'), retryAfter: expect.any(Number) });
      expect(r.body.errors![0].extensions!.retryAfter).toBeLessThanOrEqual(5);
    });
    expect(t!.upstreamRequests('graph')).toEqual([]);
    // The first titles are cached since the operations that opened the circuit.
    expect(t!.upstreamRequests('omdb')).toHaveLength(N - BREAKER_THRESHOLD);

    // After the cooldown one probe goes through; it succeeds (the storm is over) and closes the circuit.
    // Polled every 250 ms, bounded well past the 5 s cooldown.
    let probe: Result | undefined;
    for (const until = Date.now() + 10_000; !probe && Date.now() < until;) {
      const r = await mixed(0);
      if (isCircuitOpen(r.body.errors?.[0])) await new Promise((resolve) => setTimeout(resolve, 250));
      else probe = r;
    }
    expect(probe).toBeDefined();
    expectWhole(probe!, 0);
    expect(t!.upstreamRequests('graph')).toHaveLength(1);
    expect(await metricState('graph')).toBe(0);

    const after = await times(N, mixed);
    after.forEach((r, i) => expectWhole(r, i));
    expect(t!.upstreamRequests('graph')).toHaveLength(1 + N);
  });
});
