import { interleaved } from '../lib/load.js';
import type { Results, Sizes } from '../lib/results.js';
import { gql, type GraphQLProc, type RecordedRequest, type SandboxProc } from '../lib/stack.js';
import { singleTitleQuery } from '../operations.js';
import { forgetRecord, graphqlTarget } from './throughput.js';

export const SCENARIO_CACHE = '5. Shared title cache';

/** Ten well-known ids from the sandbox catalog (the batman search page). */
const IDS = [
  'tt0372784',
  'tt1877830',
  'tt2975590',
  'tt0096895',
  'tt0103776',
  'tt0112462',
  'tt0118688',
  'tt4116284',
  'tt0103359',
  'tt2313197',
];

/** Sends `count` title lookups cycling over IDS, 10 in flight, and counts OMDb requests. */
async function omdbRequestsFor(sb: SandboxProc, url: string, count: number): Promise<number> {
  await sb.control('DELETE', 'requests');
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++)
      await gql(url, `{ title(imdbId: "${IDS[i % IDS.length]}") { imdbId title year plot } }`);
  };
  await Promise.all(Array.from({ length: 10 }, worker));
  const n = ((await sb.control('GET', 'requests')) as RecordedRequest[]).filter((r) => r.upstream === 'omdb').length;
  await sb.control('DELETE', 'requests');
  return n;
}

/** The gateway with its cache (defaults) vs the same gateway build with the cache off. */
export async function runCache(
  results: Results,
  sb: SandboxProc,
  cached: GraphQLProc,
  uncached: GraphQLProc,
  sizes: Sizes,
): Promise<void> {
  const cachedUrl = cached.url;
  const uncachedUrl = uncached.url;
  const n = sizes.cacheOperations;
  const hits = await omdbRequestsFor(sb, cachedUrl, n);
  const misses = await omdbRequestsFor(sb, uncachedUrl, n);
  const per1000 = (x: number) => (x * 1000) / n;
  results.add({
    name: `${SCENARIO_CACHE}: ${n} lookups over ${IDS.length} ids`,
    metric: 'upstream requests per 1,000 operations',
    unit: 'requests',
    gateway: per1000(hits),
    baseline: per1000(misses),
    baselineName: 'gateway with OMDB_CACHE_MAX=0',
    goal: `<= ${per1000(IDS.length)} (distinct ids)`,
    met: hits <= IDS.length,
  });
  // Latency of a hit: the cache-on gateway after a warm lookup, vs a miss on the cache-off gateway, same query.
  await gql(cachedUrl, singleTitleQuery);
  const f = await interleaved(
    {
      hit: graphqlTarget(cachedUrl, singleTitleQuery, [cached.proc.pid, sb.proc.pid]),
      miss: graphqlTarget(uncachedUrl, singleTitleQuery, [uncached.proc.pid, sb.proc.pid]),
    },
    sizes.rounds,
    sizes.loadSeconds,
    sizes.connections,
    forgetRecord(sb),
    sizes.warmUp,
  );
  await sb.control('DELETE', 'requests');
  const name = `${SCENARIO_CACHE}: single title, hit vs miss`;
  results.add({
    name,
    metric: 'latency p50',
    unit: 'ms',
    gateway: f.hit.p50,
    baseline: f.miss.p50,
    baselineName: 'cache miss (cache off)',
    goal: 'ratio <= 1',
    met: f.hit.p50 <= f.miss.p50,
  });
  results.add({
    name,
    metric: 'latency p99',
    unit: 'ms',
    gateway: f.hit.p99,
    baseline: f.miss.p99,
    baselineName: 'cache miss (cache off)',
  });
  results.add({
    name,
    metric: 'server CPU per operation (gateway + sandbox)',
    unit: 'µs',
    gateway: f.hit.cpuUs,
    baseline: f.miss.cpuUs,
    baselineName: 'cache miss (cache off)',
    goal: 'ratio < 1',
    met: f.hit.cpuUs < f.miss.cpuUs,
  });
  results.add({
    name,
    metric: 'throughput',
    unit: 'req/s',
    gateway: f.hit.rps,
    baseline: f.miss.rps,
    baselineName: 'cache miss (cache off)',
    goal: 'ratio > 1',
    met: f.hit.rps > f.miss.rps,
  });
  results.note(
    SCENARIO_CACHE,
    'Two gateway processes on the same sandbox: defaults (cache on) and OMDB_CACHE_MAX=0. Lookups run 10 at a time through the GraphQL endpoint.',
  );
}
