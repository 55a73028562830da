import { PROFILED_QUERIES } from '../operations.js';
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
  const chosen = PROFILED_QUERIES[which];
  if (!chosen) throw new Error(`--query must be one of ${Object.keys(PROFILED_QUERIES).join(', ')}`);
  const { query, turns } = chosen;
  return {
    option,
    which,
    query,
    firstVariables: turns?.[0],
    seconds: Number(option('seconds') ?? defaultSeconds),
    connections: Number(option('connections') ?? 10),
    target: (url, pids) => ({ ...graphqlTarget(url, query, pids), variants: turns?.map((variables) => ({ body: JSON.stringify({ query, variables }) })) }),
  };
}
