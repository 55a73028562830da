import { interleaved, type Target } from '../lib/load.js';
import type { Results, Sizes } from '../lib/results.js';
import { gql, type GraphQLProc, type RecordedRequest, type SandboxProc } from '../lib/stack.js';
import { singleHealthQuery, singleHealthRest, singleTitleQuery, singleTitleRest } from '../operations.js';

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
async function checkSameWork(sb: SandboxProc, gatewayUrl: string, query: string, rest: string): Promise<string | undefined> {
  await gql(gatewayUrl, query);
  await sb.control('DELETE', 'requests');
  await gql(gatewayUrl, query);
  const recorded = ((await sb.control('GET', 'requests')) as RecordedRequest[]).filter((r) => r.upstream !== 'login');
  await sb.control('DELETE', 'requests');
  const urls = recorded.map((r) => r.url);
  return urls.length === 1 && urls[0] === rest ? undefined : `gateway sent ${JSON.stringify(urls)}, direct baseline uses ${rest}`;
}

/** Gateway vs the same load straight to the sandbox's REST endpoint, and vs the naive baseline. */
export async function runThroughput(results: Results, sb: SandboxProc, gateway: GraphQLProc, naive: GraphQLProc, sizes: Sizes): Promise<void> {
  const gatewayUrl = gateway.url;
  const naiveUrl = naive.url;
  const sandboxPid = sb.proc.pid;
  const cases: { label: string; query: string; rest: string; headers: Record<string, string> }[] = [
    { label: 'single healthOverview', query: singleHealthQuery, rest: singleHealthRest, headers: { authorization: 'Bearer sandbox' } },
    { label: 'single title (cache off)', query: singleTitleQuery, rest: singleTitleRest, headers: {} },
  ];
  for (const c of cases) {
    const mismatch = await checkSameWork(sb, gatewayUrl, c.query, c.rest);
    if (mismatch) results.note(SCENARIO_THROUGHPUT, `${c.label}: ${mismatch}`);
    const figures = await interleaved(
      {
        gateway: graphqlTarget(gatewayUrl, c.query, [gateway.proc.pid, sandboxPid]),
        direct: { url: sb.origin + c.rest, headers: c.headers, pids: [sandboxPid] },
        naive: graphqlTarget(naiveUrl, c.query, [naive.proc.pid, sandboxPid]),
      },
      sizes.rounds,
      sizes.loadSeconds,
      sizes.connections,
      forgetRecord(sb),
    );
    await sb.control('DELETE', 'requests');
    const g = figures.gateway;
    const name = `${SCENARIO_THROUGHPUT}: ${c.label}`;
    for (const [baselineName, b] of [['direct REST to the sandbox', figures.direct], ['naive Apollo', figures.naive]] as const) {
      const direct = baselineName.startsWith('direct');
      results.add({ name, metric: 'throughput', unit: 'req/s', gateway: g.rps, baseline: b.rps, baselineName, goal: direct ? 'ratio >= 0.9' : null, met: direct ? g.rps / b.rps >= 0.9 : null });
      results.add({ name, metric: 'latency p50', unit: 'ms', gateway: g.p50, baseline: b.p50, baselineName });
      results.add({ name, metric: 'latency p99', unit: 'ms', gateway: g.p99, baseline: b.p99, baselineName });
      results.add({ name, metric: 'server CPU per operation (serving process + sandbox)', unit: 'µs', gateway: g.cpuUs, baseline: b.cpuUs, baselineName });
    }
    const failures = g.failures + figures.direct.failures + figures.naive.failures;
    if (failures) results.note(SCENARIO_THROUGHPUT, `${c.label}: ${failures} failed/non-2xx responses during the load runs (gateway ${g.failures}).`);
  }
  results.note(
    SCENARIO_THROUGHPUT,
    `closed-loop load from the coordinator process (undici Pool, keep-alive, latency per request in µs; autocannon 9 rounds latency to whole ms, and on this machine both reach similar req/s against the sandbox), ${sizes.connections} connections, ${sizes.loadSeconds} s per run, ${sizes.rounds} interleaved rounds after a warm-up (median of rounds). The sandbox serves both the gateway's upstream calls and the direct baseline, so the gateway case runs three processes on two cores where the direct case runs two. req/s ratios move with whatever else the shared machine runs; the CPU figure (utime+stime from /proc of the serving process plus the sandbox, per successful request) barely does: baseline/gateway CPU is the throughput ratio the gateway would reach if CPU were the only limit.`,
  );
}
