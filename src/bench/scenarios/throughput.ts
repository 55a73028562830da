import { interleaved, load, STEADY_FALL, STEADY_SLICES, type Target } from '../lib/load.js';
import type { Results, Sizes } from '../lib/results.js';
import { gql, sandboxGraphToken, type GraphQLProc, type RecordedRequest, type SandboxProc } from '../lib/stack.js';
import type { Proc } from '../lib/proc.js';
import {
  healthByIdQuery,
  healthRestFor,
  singleHealthQuery,
  singleHealthRest,
  singleTitleQuery,
  singleTitleRest,
  titleByIdQuery,
  titleRestFor,
  TURN_HEALTH_IDS,
  TURN_TITLE_IDS,
} from '../operations.js';

export const SCENARIO_THROUGHPUT = '2. Throughput and latency, one-upstream query';

export const graphqlTarget = (url: string, query: string, pids?: number[]): Target => ({
  url,
  pids,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query }),
});

/**
 * Empties the sandbox's request record before a load run: at its capacity (100,000) every new entry shifts the
 * whole array, which made the sandbox, and so the direct baseline, several times slower in long runs.
 */
export const forgetRecord = (sb: SandboxProc) => () => sb.control('DELETE', 'requests');

/** Checks the gateway sends exactly `rest` for `query`, so the direct baseline does the same upstream work. */
async function checkSameWork(
  sb: SandboxProc,
  gatewayUrl: string,
  query: string,
  rest: string,
  variables?: Record<string, unknown>,
): Promise<string | undefined> {
  await gql(gatewayUrl, query, variables);
  await sb.control('DELETE', 'requests');
  await gql(gatewayUrl, query, variables);
  const recorded = ((await sb.control('GET', 'requests')) as RecordedRequest[]).filter((r) => r.upstream !== 'login');
  await sb.control('DELETE', 'requests');
  const urls = recorded.map((r) => r.url);
  return urls.length === 1 && urls[0] === rest
    ? undefined
    : `gateway sent ${JSON.stringify(urls)}, direct baseline uses ${rest}`;
}

/** Upstream requests the sandbox received per successful operation of `target`, over a short run of its own. */
async function upstreamPerOperation(
  sb: SandboxProc,
  target: Target,
  seconds: number,
  connections: number,
): Promise<number> {
  await sb.control('DELETE', 'requests');
  const run = await load(target, seconds, connections);
  const sent = ((await sb.control('GET', 'requests')) as RecordedRequest[]).filter(
    (r) => r.upstream !== 'login',
  ).length;
  await sb.control('DELETE', 'requests');
  return run.ok ? sent / run.ok : NaN;
}

interface ThroughputCase {
  label: string;
  query: string;
  /** The direct baseline's request (the gateway's upstream GET, checked before the runs). */
  rest: string;
  floorPath: string;
  headers: Record<string, string>;
  /** For the cases that send 16 ids in turn: the variables of each request and its upstream path. */
  turns?: Array<{ variables: Record<string, unknown>; rest: string }>;
}

/** A gateway within this factor of the floor's CPU per operation is as lean as a Node proxy gets (shared flights). */
export const FLOOR_FACTOR = 1.25;
/**
 * With ids in turn every operation pays its own upstream request, which nothing shares: the gateway's own work per
 * upstream request shows, so the goal is this factor of the floor, and this fraction of naive Apollo's CPU.
 */
export const TURN_FLOOR_FACTOR = 1.5;
export const TURN_NAIVE_FACTOR = 0.5;
/** The goal against the upstream's own cost: serving process + sandbox at most this many times the direct request. */
export const DIRECT_FACTOR = 2;

/**
 * Gateway vs the same load straight to the sandbox's REST endpoint, vs the floor (a bare node:http + undici proxy
 * doing the same upstream GET and writing the same fields) and vs the naive baseline.
 */
export async function runThroughput(
  results: Results,
  sb: SandboxProc,
  gateway: GraphQLProc,
  naive: GraphQLProc,
  floor: { proc: Proc; origin: string },
  sizes: Sizes,
): Promise<void> {
  const gatewayUrl = gateway.url;
  const naiveUrl = naive.url;
  const sandboxPid = sb.proc.pid;
  // The sandbox's tokens outlive a scenario (an hour by default): one for the direct baseline's Graph requests.
  const graphAuthorization = `Bearer ${await sandboxGraphToken(sb.origin)}`;
  const turn = (ids: readonly string[], key: string, rest: (id: string) => string) =>
    ids.map((id) => ({ variables: { [key]: id }, rest: rest(id) }));
  const cases: ThroughputCase[] = [
    {
      label: 'single healthOverview',
      query: singleHealthQuery,
      rest: singleHealthRest,
      floorPath: '/health',
      headers: { authorization: graphAuthorization },
    },
    {
      label: 'single title (cache off)',
      query: singleTitleQuery,
      rest: singleTitleRest,
      floorPath: '/title',
      headers: {},
    },
    {
      label: `healthOverview, ${TURN_HEALTH_IDS.length} ids in turn (nothing to share in flight)`,
      query: healthByIdQuery,
      rest: healthRestFor(TURN_HEALTH_IDS[0]),
      floorPath: '/health-by-id',
      headers: { authorization: graphAuthorization },
      turns: turn(TURN_HEALTH_IDS, 'id', healthRestFor),
    },
    {
      label: `title, ${TURN_TITLE_IDS.length} ids in turn (cache off, nothing to share in flight)`,
      query: titleByIdQuery,
      rest: titleRestFor(TURN_TITLE_IDS[0]),
      floorPath: '/title-by-id',
      headers: {},
      turns: turn(TURN_TITLE_IDS, 'imdbId', titleRestFor),
    },
  ];
  for (const c of cases) {
    const mismatch = await checkSameWork(sb, gatewayUrl, c.query, c.rest, c.turns?.[0].variables);
    if (mismatch) results.note(SCENARIO_THROUGHPUT, `${c.label}: ${mismatch}`);
    const graphql = (url: string, pids: number[]): Target => ({
      ...graphqlTarget(url, c.query, pids),
      variants: c.turns?.map((t) => ({ body: JSON.stringify({ query: c.query, variables: t.variables }) })),
    });
    const targets = {
      gateway: graphql(gatewayUrl, [gateway.proc.pid, sandboxPid]),
      direct: {
        url: sb.origin + c.rest,
        headers: c.headers,
        pids: [sandboxPid],
        variants: c.turns?.map((t) => ({ path: t.rest })),
      },
      floor: graphql(floor.origin + c.floorPath, [floor.proc.pid, sandboxPid]),
      naive: graphql(naiveUrl, [naive.proc.pid, sandboxPid]),
    };
    const figures = await interleaved(
      targets,
      sizes.rounds,
      sizes.loadSeconds,
      sizes.connections,
      forgetRecord(sb),
      sizes.warmUp,
    );
    await sb.control('DELETE', 'requests');
    const g = figures.gateway;
    const name = `${SCENARIO_THROUGHPUT}: ${c.label}`;
    // The CPU goal: 2× the direct request, or, when even the floor pays more than that, within 1.25× of the floor.
    const floorOverDirect = figures.floor.cpuUs / figures.direct.cpuUs;
    const floorFactor = c.turns ? TURN_FLOOR_FACTOR : FLOOR_FACTOR;
    const cpuGoalMet =
      g.cpuUs <= DIRECT_FACTOR * figures.direct.cpuUs ||
      (floorOverDirect > DIRECT_FACTOR && g.cpuUs <= floorFactor * figures.floor.cpuUs);
    const naiveGoal = c.turns ? TURN_NAIVE_FACTOR : undefined;
    const cpu = 'server CPU per operation (serving process + sandbox)';
    const baselines = [
      ['direct REST to the sandbox', figures.direct],
      ['floor: bare node:http + undici proxy', figures.floor],
      ['naive Apollo', figures.naive],
    ] as const;
    for (const [baselineName, b] of baselines) {
      const direct = baselineName.startsWith('direct');
      const isFloor = baselineName.startsWith('floor');
      results.add({
        name,
        metric: 'throughput',
        unit: 'req/s',
        gateway: g.rps,
        baseline: b.rps,
        baselineName,
        goal: direct ? 'ratio >= 0.9' : null,
        met: direct ? g.rps / b.rps >= 0.9 : null,
      });
      results.add({ name, metric: 'latency p50', unit: 'ms', gateway: g.p50, baseline: b.p50, baselineName });
      results.add({ name, metric: 'latency p99', unit: 'ms', gateway: g.p99, baseline: b.p99, baselineName });
      const goal = direct
        ? `ratio <= ${DIRECT_FACTOR}, or <= ${floorFactor}× the floor when the floor is above ${DIRECT_FACTOR}× direct`
        : isFloor
          ? `ratio <= ${floorFactor} (applies: floor is ${floorOverDirect.toFixed(2)}× direct, ${figures.floor.cpuUs.toFixed(0)} µs)`
          : naiveGoal
            ? `ratio <= ${naiveGoal}`
            : null;
      const met = direct || isFloor ? cpuGoalMet : naiveGoal ? g.cpuUs <= naiveGoal * b.cpuUs : null;
      results.add({ name, metric: cpu, unit: 'µs', gateway: g.cpuUs, baseline: b.cpuUs, baselineName, goal, met });
    }
    results.add({
      name,
      metric: `${cpu}: the floor itself`,
      unit: 'µs',
      gateway: figures.floor.cpuUs,
      baseline: figures.direct.cpuUs,
      baselineName: 'direct REST to the sandbox',
    });
    // In-flight sharing: identical concurrent operations share one upstream request; the floor never shares.
    // At least 0.2 s, enough operations in flight together to show sharing even in --tiny's shorter runs.
    const sharingSeconds = Math.min(1, Math.max(0.2, sizes.loadSeconds));
    const shared = await upstreamPerOperation(sb, targets.gateway, sharingSeconds, sizes.connections);
    results.add({
      name,
      metric: 'upstream requests per operation (in-flight sharing of identical requests)',
      unit: 'requests',
      gateway: shared,
      baseline: 1,
      baselineName: 'floor: bare node:http + undici proxy',
    });
    const failures = g.failures + figures.direct.failures + figures.floor.failures + figures.naive.failures;
    if (failures)
      results.note(
        SCENARIO_THROUGHPUT,
        `${c.label}: ${failures} failed/non-2xx responses during the load runs (gateway ${g.failures}).`,
      );
  }
  results.note(
    SCENARIO_THROUGHPUT,
    `closed-loop load from the coordinator process (undici Pool, keep-alive, latency per request in µs; autocannon 9 rounds latency to whole ms, and on this machine both reach similar req/s against the sandbox), ${sizes.connections} connections, ${sizes.loadSeconds} s per run, ${sizes.rounds} interleaved rounds (median of rounds) after each target's warm-up, which lasts until its CPU per request has stopped falling (windows of ${STEADY_SLICES} × ${sizes.warmUp.sliceSeconds} s until one is less than ${STEADY_FALL * 100} % cheaper than the one before, at most ${sizes.warmUp.maxSeconds} s: V8 tiers a process's paths up for seconds, and a server runs long after). The sandbox serves both the gateway's upstream calls and the direct baseline, so the gateway case runs three processes on two cores where the direct case runs two. req/s ratios move with whatever else the shared machine runs; the CPU figure (utime+stime from /proc of the serving process plus the sandbox, per successful request) barely does: baseline/gateway CPU is the throughput ratio the gateway would reach if CPU were the only limit.`,
  );
  results.note(
    SCENARIO_THROUGHPUT,
    `The single lookups send one query text on every connection, so concurrent operations ask for the same entity and the gateway sends one upstream request for all of them (in-flight sharing, per Authorization for Graph): "upstream requests per operation" says how many it sent. The "ids in turn" cases send the same lookup with a variable and ${TURN_HEALTH_IDS.length} ids in turn (direct, floor and naive alike), so no two of the ${sizes.connections} concurrent requests are alike and every operation pays its own upstream round trip: they show the gateway's cost per upstream request, which the single lookups partly hide.`,
  );
  results.note(
    SCENARIO_THROUGHPUT,
    `The floor (src/bench/floor/main.ts) is what any Node proxy pays for the same work: node:http reads and JSON-parses the request body, undici sends the gateway's exact upstream GET with the same headers (for Graph an application token got by client credentials, as the gateway's and naive Apollo's; the direct baseline presents one too), the answer is JSON-parsed and the same fields re-serialised; no GraphQL. Its CPU is charged like the gateway's (its process + the sandbox). The CPU goal per query: gateway + sandbox at most ${DIRECT_FACTOR}× the direct request; where the floor itself is above ${DIRECT_FACTOR}× direct, at most ${FLOOR_FACTOR}× the floor for the single lookups and ${TURN_FLOOR_FACTOR}× the floor (and at most ${TURN_NAIVE_FACTOR}× naive Apollo's CPU) with ids in turn.`,
  );
}
