import type { Results } from '../lib/results.js';
import { gql, type RecordedRequest, type SandboxProc } from '../lib/stack.js';
import { median } from '../lib/stats.js';
import { requestOperations, type Operation } from '../operations.js';

export const SCENARIO_REQUESTS = '1. Upstream requests and bytes per operation';

export interface UpstreamCost {
  /** HTTP requests to Graph/OMDb (the token request is not counted: it is paid once per hour, not per operation). */
  requests: number;
  /** Requests with each `$batch` item counted as one. */
  items: number;
  /** Request (URL + body) plus response body bytes. */
  bytes: number;
}

/**
 * What one operation costs upstream, from the sandbox record. The record holds no response bodies, so each
 * recorded request is replayed straight to the sandbox (reads only, deterministic data) to size its answer.
 */
export async function upstreamCost(sb: SandboxProc, send: () => Promise<unknown>): Promise<UpstreamCost> {
  await sb.control('DELETE', 'requests');
  await send();
  const recorded = ((await sb.control('GET', 'requests')) as RecordedRequest[]).filter((r) => r.upstream !== 'login');
  let bytes = 0;
  let items = 0;
  for (const r of recorded) {
    const res = await fetch(sb.origin + r.url, {
      method: r.method,
      headers: { authorization: 'Bearer sandbox', ...(r.body ? { 'content-type': 'application/json' } : {}) },
      body: r.body || undefined,
    });
    bytes += Buffer.byteLength(r.url) + Buffer.byteLength(r.body) + (await res.arrayBuffer()).byteLength;
    items += r.url.endsWith('/$batch') ? (JSON.parse(r.body) as { requests: unknown[] }).requests.length : 1;
  }
  await sb.control('DELETE', 'requests');
  return { requests: recorded.length, items, bytes };
}

/** Median cost over `rounds` sends after one warm-up (token, connections). */
export async function medianCost(sb: SandboxProc, url: string, query: string, rounds: number): Promise<UpstreamCost> {
  await gql(url, query);
  const costs: UpstreamCost[] = [];
  for (let i = 0; i < rounds; i++) costs.push(await upstreamCost(sb, () => gql(url, query)));
  return {
    requests: median(costs.map((c) => c.requests)),
    items: median(costs.map((c) => c.items)),
    bytes: median(costs.map((c) => c.bytes)),
  };
}

export function goalMet(op: Operation, cost: UpstreamCost): boolean {
  return op.oneRequest ? cost.requests === 1 && cost.items === op.distinctKeys : cost.requests === op.distinctKeys;
}

/** Gateway (cache off, so every operation pays its own way) vs the naive baseline. */
export async function runRequests(
  results: Results,
  sb: SandboxProc,
  gatewayUrl: string,
  naiveUrl: string,
  rounds: number,
): Promise<void> {
  for (const op of requestOperations) {
    const ours = await medianCost(sb, gatewayUrl, op.query, rounds);
    const naive = await medianCost(sb, naiveUrl, op.query, rounds);
    const name = `${SCENARIO_REQUESTS}: ${op.name}`;
    results.add({
      name,
      metric: 'upstream HTTP requests',
      unit: 'requests',
      gateway: ours.requests,
      baseline: naive.requests,
      baselineName: 'naive Apollo',
      goal: op.goal,
      met: goalMet(op, ours),
    });
    if (op.oneRequest && op.distinctKeys > 1) {
      results.add({
        name,
        metric: 'upstream sub-requests ($batch items)',
        unit: 'requests',
        gateway: ours.items,
        baseline: naive.items,
        baselineName: 'naive Apollo',
        goal: `== ${op.distinctKeys}`,
        met: ours.items === op.distinctKeys,
      });
    }
    results.add({
      name,
      metric: 'upstream bytes (request URL+body, response body)',
      unit: 'bytes',
      gateway: ours.bytes,
      baseline: naive.bytes,
      baselineName: 'naive Apollo',
      goal: 'ratio <= 1',
      met: ours.bytes <= naive.bytes,
    });
    // Demand control: what the answer says it cost, actual against the estimate made before it ran.
    const { cost } = (
      (await gql(gatewayUrl, op.query)) as {
        extensions: {
          cost: { estimated: number; actual: number; upstreamRequestsEstimated: number; upstreamRequests: number };
        };
      }
    ).extensions;
    results.add({
      name,
      metric: 'upstream requests (extensions.cost): actual vs estimated',
      unit: 'requests',
      gateway: cost.upstreamRequests,
      baseline: cost.upstreamRequestsEstimated,
      baselineName: 'estimate before execution',
      goal: `== ${ours.requests} (sandbox record)`,
      met: cost.upstreamRequests === ours.requests,
    });
    results.add({
      name,
      metric: 'cost (extensions.cost): actual vs estimated',
      unit: 'cost',
      gateway: cost.actual,
      baseline: cost.estimated,
      baselineName: 'estimate before execution',
      goal: null,
      met: null,
    });
  }
  results.note(
    SCENARIO_REQUESTS,
    'Counted from the sandbox request record, cleared before each operation; the Graph token request is excluded (paid once per token lifetime, after a warm-up operation). Bytes: each recorded request is replayed to the sandbox to size its response body (the record keeps no responses; the data is deterministic).',
  );
  results.note(
    SCENARIO_REQUESTS,
    'The gateway runs with its shared OMDb cache off (OMDB_CACHE_MAX=0), so the title figures are what one operation costs on its own; per-operation de-duplication still applies.',
  );
}
