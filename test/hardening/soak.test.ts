/**
 * Soak: 6,000 mixed operations leave the heap where 1,000 left it, and 1,000 streams cancelled after their first
 * chunk leave no upstream request running and no socket open.
 *
 * Memory is measured in this worker, which runs the gateway and its sandbox in-process: the heap after a full garbage
 * collection (`gc` is exposed at run time through V8's flag, so no special worker options are needed). Everything
 * else this process holds is kept flat on purpose: the sandbox's request record and the captured log lines are
 * emptied between rounds (after the harness's secret check), and response bodies are read and dropped. What remains
 * and grows is the gateway's own.
 */
import type { Client } from 'graphql-ws';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { runningChatWriters } from '../../src/sandbox/chat/index.js';
import { buildSeed } from '../../src/sandbox/graph/data.js';
import { seedTitles } from '../../src/sandbox/omdb/seed.js';
import { COMPLETION, STREAM, eventually, user } from '../support/chat.js';
import { assertNoSecretLeaked, startTestGateway, type TestGateway } from '../support/gateway.js';
import { post } from '../support/post.js';
import { wsClient } from '../support/ws.js';

/**
 * 6,000 (10,000 before #48: 43 s of the suite's longest file, CPU-bound in this one process). The bounds below are
 * per operation as before, so a leak of the size they were set for still fails; what shrank is only the margin over
 * V8's noise, which stays well under the tail bound (figures in docs/development.md).
 */
const OPERATIONS = 6_000;
const WARM_UP = 1_000;
/** Operations between two heap checkpoints. */
const ROUND = 2_500;
/** Operations in flight at once. */
const CONCURRENCY = 32;
/**
 * Heap growth allowed between the warm-up and the end, after full collections: 5,000 operations retaining even one
 * kilobyte each (a request context, a loader, a response) would add about 5 MB, so 4.5 MB fails any per-operation
 * leak of that size while leaving room for V8's own bookkeeping and lazily compiled code.
 */
const MAX_GROWTH_BYTES = 4.5 * 1024 * 1024;
/**
 * Growth allowed over the last 2,500 operations alone, once caches and compiled code have settled: half a kilobyte
 * retained per operation would add 1.25 MB (measured without a leak: under 0.5 MB).
 */
const MAX_TAIL_GROWTH_BYTES = 1.25 * 1024 * 1024;

const STREAMS = 1_000;
const STREAM_BATCH = 100;
/** graphql-ws operations per connection (GATEWAY_WS_MAX_OPERATIONS default). */
const PER_CONNECTION = 50;
/** Providers without a client-side RPM limit, so 1,000 streams are not throttled (deepseek allows 60 a minute). */
const STREAM_PROVIDERS = [
  { id: 'glm', model: 'glm-4-flash' },
  { id: 'ark', model: 'doubao-pro' },
  { id: 'moonshot', model: 'moonshot-v1-8k' },
] as const;

/** Connections per chat provider's pool (chat client) and how long an idle one is kept (shared HTTP layer). */
const POOL_CONNECTIONS = 256;
const IDLE_TIMEOUT_MS = 10_000;

const SERVICES = buildSeed().services.map((r) => r.id);
const TITLES = seedTitles()
  .filter((t) => t.type === 'movie')
  .slice(0, 50)
  .map((t) => t.imdbID);

let t: TestGateway | undefined;
afterEach(async () => {
  const gw = t;
  t = undefined;
  await gw?.close();
});

/** A full, synchronous garbage collection, whether or not the worker was started with --expose-gc. */
function garbageCollector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
const gc = garbageCollector();

async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

const sandboxConnections = () =>
  new Promise<number>((resolve, reject) =>
    t!.sandbox.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
  );
const gatewayConnections = () =>
  new Promise<number>((resolve, reject) =>
    t!.gateway.server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
  );

interface Op {
  name: string;
  query: string;
  variables: (i: number) => Record<string, unknown>;
  /** Whether the answer is what this operation must give; `expectedError` when the answer is meant to be an error. */
  check: (body: { data?: any; errors?: Array<{ extensions?: Record<string, unknown> }> }) => boolean;
  expectedError?: boolean;
}

/** The mix: cheap on purpose (cached titles, small Graph gets, short completions), every domain and an error path. */
const MIX: Op[] = [
  {
    name: 'cached title',
    query: 'query Title($id: ID!) { title(imdbId: $id) { imdbId title year genres } }',
    variables: (i) => ({ id: TITLES[i % TITLES.length] }),
    check: (b) => !b.errors && b.data.title?.imdbId !== undefined,
  },
  {
    name: 'service',
    query:
      'query Service($id: ID!) { admin { serviceAnnouncement { healthOverview(id: $id) { id service status } } } }',
    variables: (i) => ({ id: SERVICES[i % SERVICES.length] }),
    check: (b) => !b.errors && b.data.admin.serviceAnnouncement.healthOverview !== null,
  },
  {
    name: 'services page',
    query:
      'query Services { admin { serviceAnnouncement { healthOverviews(first: 5) { nodes { id status } pageInfo { hasNextPage endCursor } } } } }',
    variables: () => ({}),
    check: (b) => !b.errors && b.data.admin.serviceAnnouncement.healthOverviews.nodes.length === 5,
  },
  {
    name: 'mixed',
    query:
      'query Mixed($s: ID!, $t: ID!) { admin { serviceAnnouncement { healthOverview(id: $s) { id } } } title(imdbId: $t) { title } chatProviders { id variant } upstreams { id mode } }',
    variables: (i) => ({ s: SERVICES[i % SERVICES.length], t: TITLES[(i * 7) % TITLES.length] }),
    check: (b) => !b.errors && b.data.title !== null && b.data.chatProviders.length >= 4,
  },
  {
    name: 'completion',
    query: COMPLETION,
    variables: (i) => ({
      input: {
        provider: i % 2 ? 'glm' : 'moonshot',
        model: i % 2 ? 'glm-4-flash' : 'moonshot-v1-8k',
        messages: [user(`Soak ${i % 100}`)],
        maxTokens: 16,
      },
    }),
    check: (b) => !b.errors && typeof b.data.createChatCompletion.content === 'string',
  },
  {
    name: 'unknown service',
    query: 'query Missing { admin { serviceAnnouncement { healthOverview(id: "NoSuchService") { id } } } }',
    variables: () => ({}),
    check: (b) => !b.errors && b.data.admin.serviceAnnouncement.healthOverview === null,
  },
  {
    name: 'bad input',
    query: 'query Bad($id: ID!) { title(imdbId: $id) { title } }',
    variables: (i) => ({ id: `nm${i}` }),
    check: (b) => b.errors?.[0]?.extensions?.code === 'BAD_USER_INPUT',
    expectedError: true,
  },
];
/** Weights per 10 operations: mostly cheap reads. */
const SCHEDULE = [0, 0, 0, 1, 1, 2, 3, 4, 5, 6];

interface Tally {
  ok: number;
  expectedErrors: number;
  unexpected: string[];
}

async function runOperations(
  from: number,
  to: number,
  tally: Tally,
  onProgress: (done: number) => void,
): Promise<void> {
  let next = from;
  // This test's gateway: should the test time out, its workers must not go on against the next test's.
  const url = t!.gateway.url;
  const worker = async () => {
    while (next < to) {
      const i = next++;
      const op = MIX[SCHEDULE[i % SCHEDULE.length]];
      // node:http, not fetch: fetch's own CPU was a fifth of this file's (test/support/post.ts).
      const res = await post(url, JSON.stringify({ query: op.query, variables: op.variables(i) }), {
        'content-type': 'application/json',
      });
      const body = JSON.parse(res.text) as Parameters<Op['check']>[0];
      if (res.status === 200 && op.check(body)) {
        if (op.expectedError) tally.expectedErrors++;
        else tally.ok++;
      } else if (tally.unexpected.length < 20)
        tally.unexpected.push(`${op.name} #${i}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      else tally.unexpected.push('…');
      onProgress(i);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

describe('soak', () => {
  it(`runs ${OPERATIONS.toLocaleString('en')} mixed operations without heap growth past ${MAX_GROWTH_BYTES / 2 ** 20} MB after a ${WARM_UP.toLocaleString('en')}-operation warm-up`, async () => {
    // A bounded response cache grows to its bound and no further: 1 MiB keeps it within the growth allowed.
    t = await startTestGateway({ RESPONSE_CACHE_MAX_BYTES: '1048576' });
    const tally: Tally = { ok: 0, expectedErrors: 0, unexpected: [] };
    let peak = 0;
    let upstreamRequests = 0;
    let unfinishedUpstreamRequests = 0;
    const started = performance.now();
    // Between rounds, with every operation answered: an upstream request without a status is still running or was cut.
    const keepFlat = () => {
      const record = t!.upstreamRequests();
      upstreamRequests += record.length;
      unfinishedUpstreamRequests += record.filter((r) => r.status === null).length;
      // What the harness checks at close, for the round about to be forgotten.
      assertNoSecretLeaked(t!.gateway.config.secrets, t!.sandbox, t!.logs.lines);
      t!.clearUpstreamRequests();
      t!.logs.lines.splice(0);
    };
    const progress = (i: number) => {
      if (i % 250 !== 0) return;
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    };

    await runOperations(0, WARM_UP, tally, progress);
    keepFlat();
    const base = await settledHeap();
    const checkpoints: number[] = [];
    for (let from = WARM_UP; from < OPERATIONS; from += ROUND) {
      await runOperations(from, Math.min(OPERATIONS, from + ROUND), tally, progress);
      keepFlat();
      checkpoints.push(await settledHeap());
    }
    const end = checkpoints.at(-1)!;
    const seconds = (performance.now() - started) / 1000;
    const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;
    const upstreamSockets = await sandboxConnections();
    console.info(
      `soak: ${tally.ok + tally.expectedErrors + tally.unexpected.length} operations, ${tally.ok} ok, ${tally.expectedErrors} expected errors, ` +
        `${tally.unexpected.length} unexpected in ${seconds.toFixed(0)} s; heap after warm-up ${mb(base)}, checkpoints ${checkpoints.map(mb).join(' → ')}, ` +
        `growth ${mb(end - base)}, peak (sampled, before collection) ${mb(peak)}, rss ${mb(process.memoryUsage().rss)}; ` +
        `${upstreamRequests} upstream requests (${unfinishedUpstreamRequests} unfinished); gateway→sandbox sockets open when idle: ${upstreamSockets}`,
    );

    expect(tally.unexpected).toEqual([]);
    expect(tally.ok + tally.expectedErrors).toBe(OPERATIONS);
    expect(end - base).toBeLessThan(MAX_GROWTH_BYTES);
    expect(end - checkpoints[0]).toBeLessThan(MAX_TAIL_GROWTH_BYTES);
    // Idle keep-alive sockets stay pooled: at most the upstream requests in flight at once (an operation sends at
    // most two side by side, Graph and OMDb), and none with a request still running.
    expect(upstreamSockets).toBeLessThanOrEqual(CONCURRENCY * 2);
    expect(unfinishedUpstreamRequests).toBe(0);
    expect((await fetch(`${t.gateway.origin}/healthz`)).status).toBe(200);
    // A bound on a hang, not on speed (~20 s quiet): at load 15 beside other files it took over 100 s.
  }, 300_000);

  it(`cancels ${STREAMS.toLocaleString('en')} streams after their first chunk (${STREAM_BATCH} at a time): every upstream request is aborted and no socket stays open`, async () => {
    // Tokens 20 ms apart: every answer is still streaming when its subscriber leaves after the first chunk. One test
    // process is one client (one address): its batch must fit its share of chat streams.
    t = await startTestGateway({ CLIENT_MAX_CHAT_STREAMS: String(STREAM_BATCH) }, { chatTokenDelayMs: 20 });
    let firstChunks = 0;

    for (let batch = 0; batch < STREAMS / STREAM_BATCH; batch++) {
      const clients: Client[] = Array.from({ length: STREAM_BATCH / PER_CONNECTION }, () => wsClient(t!.gateway.wsUrl));
      await Promise.all(
        Array.from({ length: STREAM_BATCH }, (_, j) => {
          const i = batch * STREAM_BATCH + j;
          const p = STREAM_PROVIDERS[i % STREAM_PROVIDERS.length];
          return new Promise<void>((resolve, reject) => {
            let received = false;
            const timer = setTimeout(() => reject(new Error(`stream ${i} sent no chunk within 10 s`)), 10_000);
            const stop = clients[j % clients.length].subscribe(
              {
                query: STREAM,
                variables: {
                  input: { provider: p.id, model: p.model, messages: [user(`Cancelled stream ${i}: talk at length.`)] },
                },
              },
              {
                next: () => {
                  // Chunks already on the wire may still arrive after stop(); only the first one counts.
                  if (received) return;
                  received = true;
                  clearTimeout(timer);
                  firstChunks++;
                  stop();
                  resolve();
                },
                error: (error) => {
                  clearTimeout(timer);
                  reject(new Error(`stream ${i} failed: ${JSON.stringify(error)}`));
                },
                complete: () => undefined,
              },
            );
          });
        }),
      );
      // The batch's upstream requests end with their subscriptions, before the WebSocket connections close.
      const sent = STREAM_BATCH * (batch + 1);
      expect(
        await eventually(() => t!.upstreamRequests().filter((r) => r.aborted).length === sent, 10_000),
        `batch ${batch}`,
      ).toBe(true);
      await Promise.all(clients.map((c) => c.dispose()));
    }

    const requests = t.upstreamRequests();
    expect(firstChunks).toBe(STREAMS);
    expect(requests).toHaveLength(STREAMS);
    // No upstream request is left running: every one was cut by the gateway before its answer ended.
    expect(requests.filter((r) => r.aborted && r.status === null)).toHaveLength(STREAMS);
    expect(await eventually(() => runningChatWriters() === 0, 5_000)).toBe(true);
    expect(await eventually(async () => (await gatewayConnections()) === 0, 5_000)).toBe(true);

    // An aborted stream's socket is destroyed, and undici opens a fresh one in its place: idle, no request on it.
    // Those idle sockets are pooled, so they must stay within what one batch had in flight (accumulating across
    // the 10 batches would leave about 1,000) and within the pools' size, and close at the pools' idle timeout.
    const idle = await sandboxConnections();
    expect(idle).toBeLessThanOrEqual(Math.min(2 * STREAM_BATCH, STREAM_PROVIDERS.length * POOL_CONNECTIONS));
    expect(await eventually(async () => (await sandboxConnections()) === 0, IDLE_TIMEOUT_MS + 5_000)).toBe(true);
    console.info(
      `soak: ${STREAMS} streams cancelled after their first chunk; ${requests.filter((r) => r.aborted).length} upstream requests aborted; idle pooled sockets right after: ${idle}, after the idle timeout: ${await sandboxConnections()}; gateway client sockets: ${await gatewayConnections()}`,
    );
    expect((await fetch(`${t.gateway.origin}/healthz`)).status).toBe(200);
  }, 180_000);
});
