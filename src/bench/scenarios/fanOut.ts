import { WebSocket } from 'ws';
import { cpuSeconds } from '../lib/load.js';
import { freePort, memoryOf, spawnProc, waitReady, type Proc } from '../lib/proc.js';
import type { Results, Sizes } from '../lib/results.js';
import { runtimeNode } from '../lib/runtimes.js';
import { startGatewayProc, type GraphQLProc, type SandboxProc } from '../lib/stack.js';
import { median } from '../lib/stats.js';
import { SERVICE_IDS } from '../operations.js';

export const SCENARIO_FAN_OUT = '7. Live-health fan-out: serviceHealthChanged';

/** What a service-health dashboard selects: every field the poll reads, so no payload needs a request of its own. */
export const liveHealthSubscription = `subscription LiveHealth($services: [ID!]) {
  serviceHealthChanged(services: $services) { kind previousStatus detectedAt serviceHealth { id service status } issue { id status isResolved } }
}`;

/** Half the subscribers watch every service, half name the ten the sandbox has: two groups of one selection each. */
const variablesOf = (subscriber: number) => (subscriber % 2 ? { services: [...SERVICE_IDS] } : {});

/** The poll interval the scenario's gateway runs with (allowed below 5 s against the sandbox only). */
const POLL_INTERVAL_MS = 250;

/** The service every incident is opened on. */
const SERVICE = 'Exchange';

/**
 * `connections` graphql-ws connections with `subscribers / connections` subscriptions each, speaking the protocol
 * with `ws` directly: a message is stamped with `performance.now()` and kept as it came, and parsed only after the
 * round, so that the client adds as little as it can to the spread it measures (graphql-ws's client would parse and
 * validate each of the 20,000 messages on the way).
 */
export class FanOutClients {
  private readonly sockets: WebSocket[] = [];
  /** Arrival time and text of every `next`, by subscription, for the current round. */
  private arrivals: Array<{ at: number; data: Buffer }> = [];
  private others: string[] = [];
  private waiter: { count: number; resolve: () => void } | undefined;

  private constructor(readonly subscribers: number) {}

  static async open(url: string, subscribers: number, connections: number): Promise<FanOutClients> {
    const clients = new FanOutClients(subscribers);
    const perConnection = Math.ceil(subscribers / connections);
    for (let c = 0; c < connections; c += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, connections - c) }, (_, k) => {
          const first = (c + k) * perConnection;
          return clients.connect(url, first, Math.min(perConnection, subscribers - first));
        }),
      );
    }
    return clients;
  }

  private connect(url: string, first: number, count: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, 'graphql-transport-ws');
      this.sockets.push(ws);
      ws.on('error', reject);
      ws.on('open', () => ws.send('{"type":"connection_init"}'));
      let acknowledged = false;
      // A socket the server closes before its ack (a cap, a timeout on a loaded machine) fails the scenario instead of
      // leaving the run waiting for an ack that never comes.
      ws.on('close', (code: number, reason: Buffer) => {
        if (!acknowledged) reject(new Error(`connection closed before its ack: ${code} ${reason.toString()}`));
      });
      ws.on('message', (data: Buffer) => {
        if (acknowledged) {
          this.arrivals.push({ at: performance.now(), data });
          if (this.waiter && this.arrivals.length >= this.waiter.count) this.waiter.resolve();
          return;
        }
        if (data.toString() !== '{"type":"connection_ack"}')
          return reject(new Error(`expected connection_ack, got ${data.toString().slice(0, 200)}`));
        acknowledged = true;
        for (let sub = first; sub < first + count; sub++) {
          ws.send(
            JSON.stringify({
              id: String(sub),
              type: 'subscribe',
              payload: { query: liveHealthSubscription, variables: variablesOf(sub) },
            }),
          );
        }
        resolve();
      });
    });
  }

  /** Starts a round: forgets the last one's messages. */
  reset(): void {
    this.arrivals = [];
  }

  /** Resolves once `count` messages arrived in this round, or after `timeoutMs`. */
  async received(count: number, timeoutMs: number): Promise<void> {
    if (this.arrivals.length >= count) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.waiter = {
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
    });
    this.waiter = undefined;
  }

  /**
   * The round's figures: the spread from the first message to the last, the subscribers that got all `changes`
   * messages with the same payload texts as every other subscriber of their group, and those payload texts.
   */
  round(changes: number): { spreadMs: number; messages: number; complete: number; payloads: string[] } {
    const bySub = new Map<number, string[]>();
    for (const { data } of this.arrivals) {
      const text = data.toString();
      const prefix = /^\{"id":"(\d+)","type":"next","payload":/.exec(text);
      if (!prefix) {
        this.others.push(text);
        continue;
      }
      const sub = Number(prefix[1]);
      let list = bySub.get(sub);
      if (!list) bySub.set(sub, (list = []));
      // The payload as sent, without the message's closing brace.
      list.push(text.slice(prefix[0].length, -1));
    }
    const reference = new Map<string, string>();
    let complete = 0;
    for (const [sub, payloads] of bySub) {
      if (payloads.length !== changes) continue;
      const group = JSON.stringify(variablesOf(sub));
      const joined = payloads.join('\n');
      if (!reference.has(group)) reference.set(group, joined);
      const ok =
        reference.get(group) === joined &&
        payloads.every(
          (p) => (JSON.parse(p) as { data?: { serviceHealthChanged?: unknown } }).data?.serviceHealthChanged,
        );
      if (ok) complete++;
    }
    const times = this.arrivals.map((a) => a.at);
    return {
      spreadMs: times.length ? Math.max(...times) - Math.min(...times) : NaN,
      messages: [...bySub.values()].reduce((sum, list) => sum + list.length, 0),
      complete,
      payloads: [...reference.values()][0]?.split('\n') ?? [],
    };
  }

  /** Messages other than `next` (errors, completes), found when a round is read: none is expected. */
  get unexpected(): string[] {
    return this.others;
  }

  close(): void {
    for (const ws of this.sockets) ws.close();
  }
}

/** The value of one sample of the gateway's /metrics text (0 when absent). */
async function metric(metricsUrl: string, sample: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  const line = text.split('\n').find((l) => l.startsWith(sample + ' '));
  return line ? Number(line.slice(sample.length + 1)) : 0;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The fan-out floor, `node dist/bench/floor/broadcast.js` (src/bench/floor/broadcast.ts). */
async function startBroadcastFloor(): Promise<{ proc: Proc; origin: string; wsUrl: string }> {
  const port = await freePort();
  const proc = spawnProc('broadcast floor', runtimeNode(), ['dist/bench/floor/broadcast.js'], { PORT: String(port) });
  await waitReady(proc, `http://127.0.0.1:${port}/healthz`);
  return { proc, origin: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}/graphql` };
}

/**
 * Live health to many dashboards: `fanOutSubscribers` `serviceHealthChanged` subscriptions on `fanOutConnections`
 * graphql-ws connections to one gateway, then one scripted incident per round (the sandbox opens an issue on a
 * service: its status change and the issue, two changes); each subscriber gets both. The spread, from the first
 * subscriber's first message to the last subscriber's last, is compared with the floor's: the same payloads sent by
 * a bare `ws` server to the same number of subscriptions on as many connections, rounds interleaved.
 */
/** The settings the scenario's gateway runs with. */
export const fanOutGatewayEnv = (sizes: Sizes): Record<string, string> => ({
  GRAPH_POLL_INTERVAL_MS: String(POLL_INTERVAL_MS),
  GATEWAY_WS_MAX_OPERATIONS: String(Math.ceil(sizes.fanOutSubscribers / sizes.fanOutConnections)),
});

export async function runFanOut(
  results: Results,
  sb: SandboxProc,
  sizes: Sizes,
  log: (s: string) => void,
  running?: GraphQLProc,
): Promise<void> {
  const n = sizes.fanOutSubscribers;
  const connections = sizes.fanOutConnections;
  // `running` (--tiny only): a gateway started with fanOutGatewayEnv that served another scenario; its caller stops it.
  const [gateway, floor] = await Promise.all([
    running ?? startGatewayProc(sb.origin, fanOutGatewayEnv(sizes)),
    startBroadcastFloor(),
  ]);
  const metricsUrl = gateway.url.replace(/\/graphql$/, '/metrics');
  let gatewayClients: FanOutClients | undefined;
  let floorClients: FanOutClients | undefined;
  try {
    const idle = memoryOf(gateway.proc.pid).rssMb;
    let peakRss = 0;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, memoryOf(gateway.proc.pid).rssMb);
    }, 50);
    try {
      const t0 = performance.now();
      gatewayClients = await FanOutClients.open(gateway.wsUrl, n, connections);
      await until(
        `${n} live subscriptions on the gateway`,
        async () => (await metric(metricsUrl, 'gateway_live_subscriptions{subscription="serviceHealthChanged"}')) >= n,
        60_000,
      );
      const subscribedMs = performance.now() - t0;
      floorClients = await FanOutClients.open(floor.wsUrl, n, connections);
      await until(
        `${n} subscriptions on the floor`,
        async () => Number(await (await fetch(`${floor.origin}/subscriptions`)).text()) >= n,
        60_000,
      );
      log(`${n} subscribers on ${connections} connections to the gateway and to the floor`);

      const spreads = { gateway: [] as number[], floor: [] as number[] };
      const cpu = { gateway: 0, floor: 0 };
      const complete = { gateway: n, floor: n };
      const polls = 'gateway_live_polls_total{feed="health",outcome="ok"}';
      // Round 0 warms both servers up (a fresh process runs the path in V8's interpreter) and degrades the service:
      // its incident is two changes (the status, the issue). Every incident after it on the same service is one
      // change, ISSUE_OPENED, since the status stays degraded: one message per subscriber per measured round.
      for (let round = 0; round <= sizes.rounds; round++) {
        const changes = round === 0 ? 2 : 1;
        const expected = n * changes;
        // A poll after every subscriber joined: the incident is then a change against it, not part of a baseline.
        const before = await metric(metricsUrl, polls);
        await until('a live-health poll', async () => (await metric(metricsUrl, polls)) > before, 10_000);
        gatewayClients.reset();
        const gatewayCpu0 = cpuSeconds(gateway.proc.pid);
        await sb.control('POST', 'graph/incident', { service: SERVICE });
        await gatewayClients.received(expected, 60_000);
        const gatewayCpu = cpuSeconds(gateway.proc.pid) - gatewayCpu0;
        const g = gatewayClients.round(changes);
        if (g.messages !== expected)
          throw new Error(
            `gateway round ${round}: ${g.messages} of ${expected} messages arrived within 60 s (${gatewayClients.unexpected.slice(0, 2).join(' ')})`,
          );

        floorClients.reset();
        const floorCpu0 = cpuSeconds(floor.proc.pid);
        await fetch(`${floor.origin}/broadcast`, {
          method: 'POST',
          body: JSON.stringify({ payloads: g.payloads }),
        }).then((r) => r.text());
        await floorClients.received(expected, 60_000);
        const floorCpu = cpuSeconds(floor.proc.pid) - floorCpu0;
        const f = floorClients.round(changes);
        if (f.messages !== expected)
          throw new Error(`floor round ${round}: ${f.messages} of ${expected} messages arrived within 60 s`);
        if (round === 0) continue;
        spreads.gateway.push(g.spreadMs);
        spreads.floor.push(f.spreadMs);
        cpu.gateway += gatewayCpu;
        cpu.floor += floorCpu;
        complete.gateway = Math.min(complete.gateway, g.complete);
        complete.floor = Math.min(complete.floor, f.complete);
      }
      const { peakMb: hwm } = memoryOf(gateway.proc.pid);
      peakRss = Math.max(peakRss, hwm);

      const name = `${SCENARIO_FAN_OUT}: ${n} subscribers on ${connections} graphql-ws connections, one incident`;
      const floorName = 'bare ws broadcast of the same payloads to as many subscriptions (floor)';
      results.add({
        name,
        metric: 'subscribers that received the incident, the same payload as every other subscriber of their selection',
        unit: 'subscribers',
        gateway: complete.gateway,
        baseline: n,
        baselineName: 'subscribers',
        goal: `== ${n}`,
        met: complete.gateway === n,
      });
      const spread = median(spreads.gateway);
      const floorSpread = median(spreads.floor);
      results.add({
        name,
        metric: "spread, first subscriber's update to the last, median of rounds",
        unit: 'ms',
        gateway: spread,
        baseline: floorSpread,
        baselineName: floorName,
        goal: '<= 100 ms and ratio <= 1.5',
        met: spread <= 100 && spread <= 1.5 * floorSpread,
      });
      results.add({
        name,
        metric: 'server CPU per message delivered',
        unit: 'µs',
        gateway: (cpu.gateway * 1e6) / (n * sizes.rounds),
        baseline: (cpu.floor * 1e6) / (n * sizes.rounds),
        baselineName: floorName,
      });
      results.add({
        name,
        metric: 'gateway peak RSS (VmHWM)',
        unit: 'MB',
        gateway: peakRss,
        baseline: idle,
        baselineName: 'gateway RSS idle before',
        goal: '< 200 MB',
        met: peakRss < 200,
      });
      results.note(
        SCENARIO_FAN_OUT,
        `${n} subscriptions of one document (\`LiveHealth\`: kind, previousStatus, detectedAt, serviceHealth { id service status }, issue { id status isResolved }, all among what the poll reads), half with no variables and half naming the sandbox's ten services, ${Math.ceil(n / connections)} on each of ${connections} connections (opened 50 at a time; subscribed in ${Math.round(subscribedMs)} ms); the client is this coordinator, speaking graphql-transport-ws over \`ws\` and stamping each message on arrival (parsed after the round). Each round: a live-health poll after every subscriber joined, then \`POST /_sandbox/graph/incident\` on ${SERVICE} (GRAPH_POLL_INTERVAL_MS=${POLL_INTERVAL_MS}): its next poll publishes the issue opened (ISSUE_OPENED; the service was degraded by a warm-up incident, so its status does not change), ${n} messages in all. The floor (src/bench/floor/broadcast.ts) then sends the payload text the gateway sent, serialised once, to as many subscriptions on as many connections. Spread: last arrival − first arrival over the round's messages (the client's own reading is in both). CPU: utime + stime of the serving process from the incident to the last arrival (the gateway's includes its poll), per message. ${sizes.rounds} rounds after one warm-up round, interleaved; each subscriber's payloads are checked against every other subscriber's of the same variables. Peak RSS: the larger of VmHWM and RSS sampled every 50 ms, subscribing included.`,
      );
      if (gatewayClients.unexpected.length)
        results.note(
          SCENARIO_FAN_OUT,
          `Unexpected messages from the gateway: ${gatewayClients.unexpected.slice(0, 3).join(' ')}`,
        );
    } finally {
      clearInterval(sampler);
    }
  } finally {
    gatewayClients?.close();
    floorClients?.close();
    await Promise.all([running ? undefined : gateway.proc.stop(), floor.proc.stop()]);
  }
}
