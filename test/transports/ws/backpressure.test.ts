import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { runningChatWriters, writtenChatEvents } from '../../../src/sandbox/chat/wire.js';
import { spawnGateway, type GatewayProcess } from '../../support/process.js';
import { startTestGateway } from '../../support/gateway.js';
import { rawSubscriber, wsClient, type RawSubscriber } from '../../support/ws.js';
import { STREAM, eventually, settled, streamAll, text, type Chunk } from '../../support/chat.js';

/**
 * Slow subscribers: 50 clients stop reading their sockets during 100,000-token streams. The gateway runs as a child
 * process (its RSS alone is measured), the sandbox in this one. Tokens are padded to 16 KiB (`[[long:N:B]]`): loopback
 * sockets buffer ~8-13 MB per hop in the kernel, which takes ~500 such events to fill instead of ~40,000 small ones.
 * Paused clients answer no pings: the keep-alive is stretched so that it does not cut them during the test.
 */
const PAUSED = 50;
const LONG_TOKENS = 100_000;
/** The stated bound: the gateway's RSS grows by less than this while the 50 paused streams are stalled. */
const RSS_BOUND_MB = 150;

const LONG = {
  provider: 'glm',
  model: 'glm-4-flash',
  messages: [{ role: 'USER', content: `Write at length. [[long:${LONG_TOKENS}:16384]]` }],
};
const NORMAL = ['glm', 'ark', 'deepseek', 'moonshot'].flatMap((provider, i) =>
  [0, 1].map((n) => ({
    provider,
    model: { glm: 'glm-4-flash', ark: 'doubao-pro', deepseek: 'deepseek-flash', moonshot: 'moonshot-v1-8k' }[provider],
    messages: [{ role: 'USER', content: `Unaffected stream ${i}.${n}: say something.` }],
  })),
);

let sandbox: Sandbox;
let gateway: GatewayProcess;
let wsUrl: string;

/** The gateway's resident set; infinite once it is gone (a crash must fail the bound, not the sampler). */
const rssMb = () => {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${gateway.child.pid}/status`, 'utf8'))?.[1];
    return Number(kb) / 1024;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
};
beforeAll(async () => {
  sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
  // Paused clients are kept (no stall timeout) and are all one client (one address) with 50 chat streams and, with
  // the other test clients and sockets still closing from earlier, more than the default 64 connections; 50
  // connections opened at once on a loaded machine may take longer than the default 3 s to be initialised.
  const env: Record<string, string> = {
    GATEWAY_WS_KEEP_ALIVE_MS: '120000',
    STREAM_STALL_TIMEOUT_MS: '0',
    CLIENT_MAX_CHAT_STREAMS: '100',
    CLIENT_MAX_CONNECTIONS: '1000',
    GATEWAY_WS_CONNECTION_INIT_TIMEOUT_MS: '30000',
  };
  for (const [id, prefix] of [
    ['glm', 'GLM'],
    ['ark', 'ARK'],
    ['deepseek', 'DEEPSEEK'],
    ['moonshot', 'MOONSHOT'],
  ] as const) {
    env[`${prefix}_BASE_URL`] = sandbox.baseUrls[id];
    env[`${prefix}_API_KEY`] = 'sandbox';
  }
  env.ARK_ENDPOINTS = 'doubao-pro=ep-20250101-doubao-pro';
  gateway = spawnGateway(env);
  wsUrl = `${(await gateway.origin).replace(/^http/, 'ws')}/graphql`;
});
afterAll(async () => {
  gateway?.child.kill('SIGTERM');
  await gateway?.exited;
  await sandbox?.close();
});

describe('slow subscribers', () => {
  it(`${PAUSED} paused subscribers of ${LONG_TOKENS}-token streams stall their upstreams, keep the gateway's RSS within ${RSS_BOUND_MB} MB, and leave every other stream intact`, async () => {
    // References, and warm-up: each normal stream as it arrives with nothing else going on.
    const client = wsClient(wsUrl);
    const reference: string[] = [];
    for (let round = 0; round < 2; round++) {
      for (const [i, input] of NORMAL.entries()) {
        const { chunks, errors } = await streamAll(client, input);
        expect(errors).toBeUndefined();
        reference[i] = text(chunks);
      }
    }
    const prefix = await firstChunks(client, 2_000);
    const baseline = rssMb();

    // 50 clients subscribe to 100,000-token streams and stop reading after their first chunk.
    const paused: RawSubscriber[] = await Promise.all(
      Array.from({ length: PAUSED }, async () => {
        const sub = await rawSubscriber(wsUrl);
        // Not reading from the start keeps the client's receive buffer small (the kernel grows it as a reader reads).
        sub.pause();
        sub.subscribe('long', STREAM, { input: LONG });
        return sub;
      }),
    );
    let peak = rssMb();
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 100);
    try {
      // Backpressure reaches the provider: the sandbox's writers wait on full sockets and write nothing more.
      const written = await settled(writtenChatEvents, 2_000, 120_000);
      expect(runningChatWriters()).toBe(PAUSED);
      expect(written).toBeLessThan((PAUSED * LONG_TOKENS) / 10);

      // Meanwhile every other client's streams arrive whole and in order, several times over.
      for (let round = 0; round < 2; round++) {
        const results = await Promise.all(NORMAL.map((input) => streamAll(wsClient(wsUrl), input)));
        for (const [i, r] of results.entries()) {
          expect(r.errors).toBeUndefined();
          expect(text(r.chunks)).toBe(reference[i]);
        }
      }
      console.info(
        `slow subscribers: RSS baseline ${baseline.toFixed(1)} MB, peak ${peak.toFixed(1)} MB (+${(peak - baseline).toFixed(1)} MB); ` +
          `the sandbox wrote ${written} of ${PAUSED * LONG_TOKENS} events before every stream stalled`,
      );
      expect(peak - baseline).toBeLessThan(RSS_BOUND_MB);

      // Nothing was lost, only delayed: a paused client that reads again gets the stream on from where it was.
      const resumed = paused[0];
      resumed.resume();
      const chunks = (await resumed.results('long', 2_000, 30_000)) as Array<{ data: { chatCompletionStream: Chunk } }>;
      expect(text(chunks.slice(0, 2_000).map((c) => c.data.chatCompletionStream))).toBe(prefix);
    } finally {
      clearInterval(sampler);
      for (const sub of paused) sub.ws.terminate();
      await client.dispose();
    }
    // Closing the clients aborts their upstream requests.
    expect(await settled(runningChatWriters, 500, 30_000)).toBe(0);
    const long = sandbox.record.list().filter((r) => r.upstream === 'glm' && r.body.includes('[[long:'));
    expect(long).toHaveLength(PAUSED + 1);
    expect(long.filter((r) => r.aborted)).toHaveLength(PAUSED + 1);
  }, 300_000);
});

describe('WS_MAX_BUFFERED_BYTES', () => {
  it('closes a connection that is over the limit when another message is due with 4413, and aborts its upstream requests', async () => {
    const gw = await startTestGateway({
      WS_MAX_BUFFERED_BYTES: String(64 * 1024),
      STREAM_STALL_TIMEOUT_MS: '0',
      GATEWAY_WS_KEEP_ALIVE_MS: '120000',
    });
    const sub = await rawSubscriber(`${gw.gateway.url.replace(/^http/, 'ws')}`);
    try {
      sub.pause();
      const streams = 20;
      for (let i = 0; i < streams; i++) sub.subscribe(`long-${i}`, STREAM, { input: LONG });
      // Once the kernel buffers are full, the messages already on their way (one per stream of 16 KiB) pass the limit.
      await settled(writtenChatEvents, 1_000, 60_000);
      // Should they have stopped just below it, a query result is due next; it is not held back like a stream.
      sub.subscribe('query', '{ chatProviders { id } }');
      // Awaited by count, not until the count rests for 0.5 s: at load 15 it rested at 0 that long before the close.
      await eventually(() => gw.upstreamRequests('glm').filter((r) => r.aborted).length >= streams, 30_000);
      expect(gw.upstreamRequests('glm').filter((r) => r.aborted)).toHaveLength(streams);
      sub.resume();
      expect(await sub.closed).toEqual({ code: 4413, reason: 'Outbound buffer full: the client reads too slowly' });
      const metrics = await (await fetch(new URL('/metrics', gw.gateway.url))).text();
      expect(metrics).toContain('gateway_stream_slow_client_closes_total{transport="ws",reason="buffer_full"} 1');
    } finally {
      sub.ws.terminate();
      await gw.close();
    }
  }, 120_000);
});

/** The text of the first `count` chunks of the long stream, read by a client that keeps up. */
async function firstChunks(client: ReturnType<typeof wsClient>, count: number): Promise<string> {
  const chunks: Chunk[] = [];
  await new Promise<void>((resolve, reject) => {
    const stop = client.subscribe<{ chatCompletionStream: Chunk }>(
      { query: STREAM, variables: { input: LONG } },
      {
        next: (r) => {
          chunks.push(r.data!.chatCompletionStream);
          if (chunks.length === count) {
            stop();
            resolve();
          }
        },
        error: reject,
        complete: () => resolve(),
      },
    );
  });
  return text(chunks.slice(0, count));
}
