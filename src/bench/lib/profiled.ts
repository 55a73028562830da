import { PROFILED_QUERIES, PROFILED_TOOL_CALLS } from '../operations.js';
import { graphqlTarget } from '../scenarios/throughput.js';
import type { Target } from './load.js';

/** What `bench:profile` and `bench:alloc` read from their command line: the query to load and how. */
export interface ProfiledRun {
  option(name: string): string | undefined;
  /** The `--query` name. */
  which: string;
  query: string;
  /** Variables of the first request (a warm-up lookup), for the `-turn` queries. */
  firstVariables?: Record<string, unknown>;
  seconds: number;
  connections: number;
  /** The load target at `url` (ids in turn for the `-turn` queries), its CPU charged to `pids`. */
  target(url: string, pids?: number[]): Target;
}

export function profiledRun(args: readonly string[], defaultSeconds: number): ProfiledRun {
  const option = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i === -1 ? undefined : args[i + 1];
  };
  const which = option('query') ?? 'health';
  const tool = PROFILED_TOOL_CALLS[which];
  const chosen = PROFILED_QUERIES[tool?.warmup ?? which];
  if (!chosen)
    throw new Error(
      `--query must be one of ${[...Object.keys(PROFILED_QUERIES), ...Object.keys(PROFILED_TOOL_CALLS)].join(', ')}`,
    );
  const { query, turns } = chosen;
  const seconds = Number(option('seconds') ?? defaultSeconds);
  const connections = Number(option('connections') ?? 10);
  if (tool) {
    // The GraphQL query warms the gateway up; the load is the tool's calls at /mcp.
    const call = (args: Record<string, unknown>) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.tool, arguments: args } });
    return {
      option,
      which,
      query,
      firstVariables: turns?.[0],
      seconds,
      connections,
      target: (url, pids) => ({
        url: url.replace(/\/graphql$/, '/mcp'),
        pids,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: call(tool.turns[0]),
        variants: tool.turns.map((args) => ({ body: call(args) })),
      }),
    };
  }
  return {
    option,
    which,
    query,
    firstVariables: turns?.[0],
    seconds,
    connections,
    target: (url, pids) => ({
      ...graphqlTarget(url, query, pids),
      variants: turns?.map((variables) => ({ body: JSON.stringify({ query, variables }) })),
    }),
  };
}
