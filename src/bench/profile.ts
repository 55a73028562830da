import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { load } from './lib/load.js';
import { stopAll } from './lib/proc.js';
import { gql, startGatewayProc, startSandboxProc } from './lib/stack.js';
import { profiledRun } from './lib/profiled.js';

/**
 * `npm run bench:profile -- [--query health|title|health-turn|title-turn] [--cached] [--by-rule] [--gateway DIR] [--seconds 8] [--connections 10] [--out FILE.md] [--keep DIR]`:
 * runs the gateway under `node --cpu-prof` against the sandbox (both separate processes, as in `npm run bench`),
 * sends closed-loop load of one query, and prints the profile grouped by module (Apollo pipeline, graphql-js
 * parse/validate/execute, our planner/limits/context, undici, JSON, logging, metrics, node core, GC) as a Markdown
 * table, with each group's CPU per operation from the gateway's /proc accounting during the same run. `--by-rule`
 * groups the same samples by pipeline rule instead ({@link ruleProfile}), sampling every 100 µs. `--gateway DIR`
 * profiles the gateway built in another checkout (its `dist/`), grouped by this checkout's rules.
 */

interface CallFrame {
  functionName: string;
  url: string;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Ordered: the first rule whose pattern matches a frame's URL (or, for natives, its function name) names its group. */
const RULES: Array<[RegExp, string]> = [
  [/node_modules\/@apollo\/server\//, 'Apollo Server pipeline and plugins'],
  [/node_modules\/@apollo\//, 'Apollo subgraph and utils'],
  [/node_modules\/graphql\/language\//, 'graphql-js parse (language)'],
  [/node_modules\/graphql\/validation\//, 'graphql-js validate'],
  [/node_modules\/graphql\/execution\//, 'graphql-js execute'],
  [/node_modules\/graphql\//, 'graphql-js types and utilities'],
  [/node_modules\/graphql-jit\/|node_modules\/fast-json-stringify\//, 'graphql-jit (compiled execution)'],
  [/node_modules\/@escape\.tech\//, 'graphql-armor limit rules'],
  [
    /dist\/(planning|runtime)\/|dist\/domains\/[^/]+\/(estimate|planner|odata)\.js|dist\/(server\/(limits|apolloPlugins|execution|documentCache)|pipeline\/[^/]+)\.js/,
    'ours: planner, estimate, limits, context, plugins',
  ],
  [/dist\/domains\//, 'ours: resolvers, sessions, models'],
  [/dist\/upstreams\/http\//, 'ours: upstream HTTP layer'],
  [/dist\/upstreams\//, 'ours: upstream clients (Graph, OMDb)'],
  [
    /dist\/observability\/(logger|redact)|node_modules\/(pino|sonic-boom|thread-stream|fast-redact|quick-format-unescaped)\//,
    'logging (pino)',
  ],
  [/dist\/observability\/|node_modules\/(prom-client|tdigest|bintrees)\//, 'metrics (prom-client)'],
  [/dist\/server\/|dist\/main\.js/, 'ours: HTTP serving (gateway.ts)'],
  [/node_modules\/undici\//, 'undici (upstream client)'],
  [/node_modules\/dataloader\//, 'dataloader'],
  [/node_modules\//, 'other libraries'],
  [/^node:(_http|http)|^node:internal\/http/, 'node: http server/client'],
  [/^node:(net|stream|internal\/(streams|stream_base|net))/, 'node: net and streams'],
  [/^node:/, 'node: other core'],
];
const NATIVE: Array<[RegExp, string]> = [
  [/^\(garbage collector\)$/, 'GC'],
  [/^\(program\)$/, 'V8 and native (program)'],
  [/^(parse|stringify)$/, 'JSON parse/stringify'],
  [/^(writev|writeUtf8String|writeLatin1String|writeBuffer|writeAsciiString)$/, 'socket writes (native)'],
];

export function groupOf(frame: CallFrame): string | undefined {
  if (frame.url) {
    for (const [re, group] of RULES) if (re.test(frame.url)) return group;
    return 'other JS';
  }
  for (const [re, group] of NATIVE) if (re.test(frame.functionName)) return group;
  return undefined;
}

const IS_REQUEST = /^(executeHTTPGraphQLRequest|processGraphQLRequest|executeDirect)$/;
/** A frame inside a GraphQL request: Apollo's, or the pipeline's one entry (`OperationPipeline.execute`). */
const inRequestFrame = (frame: CallFrame) =>
  IS_REQUEST.test(frame.functionName) ||
  (frame.functionName === 'execute' && frame.url.endsWith('dist/pipeline/core.js'));

/**
 * Self time by group (a native frame without its own group is charged to its caller's group), counting only the
 * samples between the first and last one inside a GraphQL request: start-up and shutdown are left out; idle is not CPU.
 */
export function groupProfile(profile: CpuProfile): { totalMs: number; groups: Map<string, number> } {
  return chargedProfile(profile, (frame, above) => groupOf(frame) ?? above ?? 'V8 and native (program)');
}

/**
 * The pipeline rule a frame belongs to: a module of `pipeline/rules/` or a domain's rule (`domains/<name>/quota.js`),
 * by its file's name; undefined for any other frame.
 */
export function ruleOf(frame: CallFrame): string | undefined {
  const match = /dist\/(?:pipeline\/rules|domains\/[^/]+)\/([^/]+)\.js$/.exec(frame.url);
  if (!match) return undefined;
  return frame.url.includes('/pipeline/rules/') || match[1] === 'quota' ? match[0].replace(/^dist\//, '') : undefined;
}

const RULE_GROUP = /^(pipeline\/rules|domains)\//;
const CORE = /dist\/pipeline\/(core|documentCache|limitValidation)\.js$/;

/**
 * CPU by pipeline rule, inclusive: a sample whose stack holds a rule's frame is charged to the outermost such rule
 * (what the rule called: the planners, the cost model, graphql-js's coercion, counts as the rule's), the same window
 * as {@link groupProfile}. `pipeline core` is the own frames of `pipeline/core.js` and the document cache (begin,
 * the admission loop, formatting, finish: what they call outside a rule is not theirs), everything else (execution,
 * resolvers, the transports, undici, node, GC) is `the rest`; a native frame is its caller's.
 */
export function ruleProfile(profile: CpuProfile): { totalMs: number; groups: Map<string, number> } {
  return chargedProfile(profile, (frame, above = 'the rest') =>
    RULE_GROUP.test(above)
      ? above
      : (ruleOf(frame) ?? (CORE.test(frame.url) ? 'pipeline core' : frame.url ? 'the rest' : above)),
  );
}

/**
 * The sampled CPU by the label `charge` gives each frame, knowing its caller's (undefined at the root), over the
 * samples between the first and last one inside a GraphQL request.
 */
function chargedProfile(
  profile: CpuProfile,
  charge: (frame: CallFrame, above: string | undefined) => string,
): { totalMs: number; groups: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = new Map<number, string>();
  const inRequest = new Map<number, boolean>();
  const resolve = (id: number): void => {
    if (label.has(id)) return;
    const n = byId.get(id)!;
    const p = parent.get(id);
    if (p !== undefined) resolve(p);
    label.set(id, charge(n.callFrame, p === undefined ? undefined : label.get(p)));
    inRequest.set(id, inRequestFrame(n.callFrame) || (p !== undefined && inRequest.get(p)!));
  };
  profile.nodes.forEach((n) => resolve(n.id));
  const first = profile.samples.findIndex((id) => inRequest.get(id));
  const last = profile.samples.findLastIndex((id) => inRequest.get(id));
  const groups = new Map<string, number>();
  let total = 0;
  for (let i = Math.max(first, 0); i <= last; i++) {
    const n = byId.get(profile.samples[i])!;
    if (n.callFrame.functionName === '(idle)') continue;
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const g = label.get(n.id)!;
    groups.set(g, (groups.get(g) ?? 0) + ms);
    total += ms;
  }
  return { totalMs: total, groups };
}

/** The grouped profile as Markdown: share of sampled CPU and, scaled by the measured CPU per operation, µs per op. */
export function groupTable(grouped: { totalMs: number; groups: Map<string, number> }, cpuUsPerOp: number): string {
  const rows = [...grouped.groups].sort((a, b) => b[1] - a[1]);
  const lines = ['| group | share of gateway CPU | µs per operation |', '|---|---|---|'];
  for (const [g, ms] of rows) {
    const share = ms / grouped.totalMs;
    lines.push(`| ${g} | ${(share * 100).toFixed(1)} % | ${(share * cpuUsPerOp).toFixed(1)} |`);
  }
  lines.push(`| **total** | 100 % | ${cpuUsPerOp.toFixed(1)} |`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const {
    option,
    which,
    query,
    firstVariables,
    seconds,
    connections,
    target: targetAt,
  } = profiledRun(process.argv.slice(2), 8);
  const dir = option('keep') ?? mkdtempSync(join(tmpdir(), 'gateway-prof-'));

  const sb = await startSandboxProc();
  // `--cached`: the title cache on (the default), to profile hits; otherwise off, so every lookup goes upstream.
  const gateway = await startGatewayProc(
    sb.origin,
    process.argv.includes('--cached') ? {} : { OMDB_CACHE_MAX: '0' },
    [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      // A rule costs a few µs per operation: sampled every 1 ms it would be a handful of samples.
      ...(process.argv.includes('--by-rule') ? ['--cpu-prof-interval=100'] : []),
    ],
    option('gateway') ? resolve(option('gateway')!) : undefined,
    // The module files, not the bundle: the profile is grouped by each frame's source file.
    'dist/main.js',
  );
  await gql(gateway.url, query, firstVariables);
  const target = targetAt(gateway.url, [gateway.proc.pid]);
  await load(target, 1, connections); // warm-up
  await sb.control('DELETE', 'requests');
  const run = await load(target, seconds, connections);
  await gateway.proc.stop();
  await sb.proc.stop();
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile written to ${dir}`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  // `--by-rule`: CPU per pipeline rule (inclusive) rather than by module.
  const grouped = process.argv.includes('--by-rule') ? ruleProfile(profile) : groupProfile(profile);
  const text = [
    `${which}: ${run.rps.toFixed(0)} req/s under profiling, ${connections} connections, ${seconds} s; gateway CPU ${run.cpuUs.toFixed(0)} µs per operation (/proc, profiler on); ${grouped.totalMs.toFixed(0)} ms sampled; load average ${(await import('node:os')).loadavg()[0].toFixed(1)}.`,
    '',
    groupTable(grouped, run.cpuUs),
    '',
  ].join('\n');
  console.log(text);
  const out = option('out');
  if (out) writeFileSync(out, text);
  if (!option('keep')) rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1]?.endsWith('profile.js')) {
  try {
    await main();
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    await stopAll();
  }
}
