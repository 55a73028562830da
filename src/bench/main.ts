import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { warmUps } from './lib/load.js';
import { root, stopAll } from './lib/proc.js';
import { QUICK_TRADES, writeReport, type RunInfo } from './lib/report.js';
import { Results, type Sizes } from './lib/results.js';
import { benchRuntimes, useRuntime } from './lib/runtimes.js';
import { benchCpuSeconds, Spans } from './lib/timing.js';
import {
  startFloorProc,
  startGatewayProc,
  startNaiveProc,
  startSandboxProc,
  type FloorProc,
  type GraphQLProc,
  type SandboxProc,
} from './lib/stack.js';
import { runCache } from './scenarios/cache.js';
import { fanOutGatewayEnv, runFanOut } from './scenarios/fanOut.js';
import { runPeer, startPeers } from './scenarios/peer.js';
import { runRequests } from './scenarios/requests.js';
import { runSharedState } from './scenarios/sharedState.js';
import { runStreaming } from './scenarios/streaming.js';
import { runThroughput } from './scenarios/throughput.js';

/**
 * `npm run bench [-- --quick | --tiny] [--out DIR] [--only 1,2,...] [--runtimes shipped|all]`: the coordinator and
 * load generator. It spawns the sandbox, the gateway, the naive baseline and the peer as separate processes on
 * loopback, runs the scenarios and writes results.json and RESULTS.md (default: bench/). Every scenario runs once on
 * Node 24, the runtime the project ships (installed as `.ci/run` installs it when absent), then once on the
 * machine's Node when that differs (`--runtimes all`, the default but in `--tiny`; see lib/runtimes.ts).
 */
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(`--${name}`);
const option = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? undefined : args[i + 1];
};
const mode: RunInfo['mode'] = flag('tiny') ? 'tiny' : flag('quick') ? 'quick' : 'full';
const SIZES: Record<RunInfo['mode'], Sizes> = {
  tiny: {
    rounds: 1,
    // Each load run only has to go end to end (every target answers; counts come from the sandbox's record): 0.05 s
    // is still ≥ 1 request per connection, and halves the tiny run's load (≈ 5 s of the smoke test's CPU).
    loadSeconds: 0.05,
    warmUp: { sliceSeconds: 0.05, maxSeconds: 0.05 },
    connections: 10,
    cacheOperations: 100,
    streamRuns: 5,
    streamTokens: 20,
    streamsTogether: 20,
    concurrentSubscriptions: 50,
    fanOutSubscribers: 500,
    fanOutConnections: 10,
  },
  quick: {
    rounds: 3,
    loadSeconds: 1,
    warmUp: { sliceSeconds: 0.4, maxSeconds: 4 },
    connections: 10,
    cacheOperations: 1000,
    streamRuns: 20,
    streamTokens: 50,
    streamsTogether: 100,
    concurrentSubscriptions: 1000,
    fanOutSubscribers: 10_000,
    fanOutConnections: 200,
  },
  full: {
    rounds: 5,
    loadSeconds: 5,
    warmUp: { sliceSeconds: 1, maxSeconds: 20 },
    connections: 10,
    cacheOperations: 1000,
    streamRuns: 100,
    streamTokens: 100,
    streamsTogether: 100,
    concurrentSubscriptions: 1000,
    fanOutSubscribers: 10_000,
    fanOutConnections: 200,
  },
};
const sizes = SIZES[mode];
const outDir = resolve(option('out') ?? join(root, 'bench'));
const only = option('only')?.split(',').map(Number);
const wants = (n: number) => !only || only.includes(n);
// The smoke test's tiny run measures the shipped runtime only, to stay within its time; CI runs the test suite itself
// on both runtimes.
const runtimeChoice = option('runtimes') ?? (mode === 'tiny' ? 'shipped' : 'all');
if (runtimeChoice !== 'shipped' && runtimeChoice !== 'all')
  throw new Error(
    `--runtimes ${runtimeChoice}: say shipped (Node 24 only) or all (Node 24, then the machine's Node when it differs)`,
  );

// --tiny proves the coordinator runs every scenario end to end, in the least time. Its figures are not judged (only
// counts, which load does not change), so it runs the pass as two lanes at once, each on a sandbox of its own (a
// scenario's request counts come from its sandbox's record): scenarios 1, 2, 5, then 6 and 4 on the same gateways and
// floor instead of fresh ones; beside them scenario 3 (composition and three Hive Gateways, the slowest start-up) and 7.
// Quick and full runs measure one scenario at a time, each on processes of its own.
const lanes = mode === 'tiny';

const results = new Results();
const startedAt = new Date();
const log = (text: string) =>
  console.log(`[bench ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0).padStart(4)} s] ${text}`);

process.on('SIGINT', () => void stopAll().then(() => process.exit(130)));
process.on('SIGTERM', () => void stopAll().then(() => process.exit(143)));

const spans = new Spans();
let pass = '';

async function scenario(n: number, label: string, sb: SandboxProc, run: () => Promise<void>): Promise<void> {
  if (!wants(n)) return;
  log(`scenario ${n}: ${label}`);
  await spans.time(`[${pass}] ${n}. ${label}`, async () => {
    try {
      await sb.control('POST', 'reset');
      await sb.control('POST', 'config', { omdbDailyQuota: 1_000_000_000 });
      await run();
    } catch (error) {
      // One broken scenario must not hide the others' figures; the report says what failed.
      results.note(`${n}. ${label}`, `FAILED: ${String((error as Error)?.stack ?? error).slice(0, 1500)}`);
      log(`scenario ${n} failed: ${String(error)}`);
      process.exitCode = 1;
    }
  });
}

interface Kept {
  /** Cache off. */
  gateway: GraphQLProc;
  /** OMDb cache on. */
  cached: GraphQLProc;
  floor: FloorProc;
}

/**
 * Scenarios 1, 2, 5 and, with `peer`, 3 on one set of processes: the gateway with its OMDb cache off, one with it on,
 * the naive baseline and the floor. With `keep`, both gateways and the floor are left running and returned.
 */
async function requestScenarios(sb: SandboxProc, options: { peer: boolean; keep: boolean }): Promise<Kept | undefined> {
  if (![1, 2, 5, ...(options.peer ? [3] : [])].some(wants)) return undefined;
  // Scenario 3's three Hive Gateways (and the replay one of them fronts) start with the others (each start-up waits mostly on its own CPU, so together
  // they overlap on two cores) and stay idle until it runs.
  const withPeers = options.peer && wants(3);
  const [gateway, cached, naive, floor, peers] = await spans.time(
    `[${pass}] start-up: 2 gateways, naive Apollo, floor${withPeers ? ', 3 Hive Gateways and a replay' : ''} (scenarios 1, 2, ${options.peer ? '3, ' : ''}5)`,
    () => {
      const uncached = startGatewayProc(sb.origin, { OMDB_CACHE_MAX: '0' });
      return Promise.all([
        uncached,
        startGatewayProc(sb.origin),
        startNaiveProc(sb.origin),
        startFloorProc(sb.origin),
        // A failed start-up fails scenario 3 alone, as when it started them itself.
        withPeers
          ? uncached
              .then((g) => startPeers(sb.origin, g.url))
              .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))
          : undefined,
      ]);
    },
  );
  await scenario(1, 'upstream requests', sb, () => runRequests(results, sb, gateway.url, naive.url, sizes.rounds));
  await scenario(2, 'throughput', sb, () => runThroughput(results, sb, gateway, naive, floor, sizes));
  await scenario(5, 'cache', sb, () => runCache(results, sb, cached, gateway, sizes));
  await Promise.all([naive.proc.stop(), ...(options.keep ? [] : [cached.proc.stop(), floor.proc.stop()])]);
  if (options.peer) await scenario(3, 'peer', sb, () => runPeer(results, sb, gateway, sizes, log, peers));
  if (options.keep) return { gateway, cached, floor };
  await gateway.proc.stop();
  return undefined;
}

try {
  log(`mode ${mode}, writing to ${outDir}`);
  if (mode === 'quick') log(QUICK_TRADES);
  for (const runtime of benchRuntimes({ machine: runtimeChoice === 'all' })) {
    useRuntime(runtime);
    results.startPass(runtime);
    pass = runtime.label;
    log(`measuring on ${runtime.label} (${runtime.version}, ${runtime.node})`);
    if (lanes) {
      const [sb, sb2] = await spans.time(`[${pass}] start-up: 2 sandboxes`, () =>
        Promise.all([startSandboxProc(), startSandboxProc()]),
      );
      await Promise.all([
        (async () => {
          const kept = await requestScenarios(sb, { peer: false, keep: true });
          await scenario(6, 'shared state', sb, () => runSharedState(results, sb, sizes, kept));
          await scenario(4, 'streaming', sb, () => runStreaming(results, sb, sizes, log, kept));
          await Promise.all([kept?.gateway.proc.stop(), kept?.cached.proc.stop(), kept?.floor.proc.stop()]);
        })(),
        (async () => {
          // One gateway serves 3, then 7 (one start-up fewer): started with 7's settings, whose live-health poll
          // runs only while someone subscribes, so scenario 3's request counts are those of a gateway without them.
          const gateway = wants(3)
            ? await startGatewayProc(sb2.origin, { OMDB_CACHE_MAX: '0', ...(wants(7) ? fanOutGatewayEnv(sizes) : {}) })
            : undefined;
          if (gateway) await scenario(3, 'peer', sb2, () => runPeer(results, sb2, gateway, sizes, log));
          await scenario(7, 'live-health fan-out', sb2, () => runFanOut(results, sb2, sizes, log, gateway));
          await gateway?.proc.stop();
        })(),
      ]);
      await Promise.all([sb.proc.stop(), sb2.proc.stop()]);
      continue;
    }
    const sb = await spans.time(`[${pass}] start-up: sandbox`, startSandboxProc);
    await requestScenarios(sb, { peer: true, keep: false });
    // Streaming and fan-out get gateways of their own so their peak RSS is about subscriptions, not the runs before.
    await scenario(4, 'streaming', sb, () => runStreaming(results, sb, sizes, log));
    await scenario(7, 'live-health fan-out', sb, () => runFanOut(results, sb, sizes, log));
    await scenario(6, 'shared state', sb, () => runSharedState(results, sb, sizes));
    await sb.proc.stop();
  }
  const files = writeReport(outDir, results, {
    mode,
    sizes,
    startedAt,
    seconds: (Date.now() - startedAt.getTime()) / 1000,
    cpuSeconds: benchCpuSeconds(),
    spans: spans.spans,
  });
  log(`wrote ${files.json} and ${files.md}`);
  console.log("Time by part (wall time grows with the machine's load; CPU time is what the part needs alone):");
  for (const line of spans.lines()) console.log(`  ${line}`);
  if (warmUps.allowed)
    console.log(
      `  warm-ups ended once steady: ${warmUps.spent.toFixed(1)} s of load of at most ${warmUps.allowed.toFixed(0)} s`,
    );
  console.log(
    `  total: ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s wall, ${benchCpuSeconds().toFixed(0)} s CPU, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  for (const f of results.figures) {
    console.log(
      `  ${f.met === false ? '✗' : f.met ? '✓' : ' '} [${f.runtime}] ${f.name} | ${f.metric}: ${f.gateway} vs ${f.baseline} ${f.unit} (${f.baselineName}), ratio ${f.ratio}${f.goal ? `, goal ${f.goal}` : ''}`,
    );
  }
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await stopAll();
}
