import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { interleaved } from './lib/load.js';
import { stopAll } from './lib/proc.js';
import { profiledRun } from './lib/profiled.js';
import { benchRuntimes, runtimeNode, useRuntime } from './lib/runtimes.js';
import { gql, startGatewayProc, startSandboxProc } from './lib/stack.js';

/**
 * `npm run bench:compare -- --base DIR [--query health-turn|title-turn|health|title|chat|mcp-health-turn|mcp-title-turn] [--rounds 5] [--seconds 3]
 * [--base-flags "…"] [--flags "…"] [--runtime shipped] [--warm-up 20]`:
 * one step of a performance pass measured on its own. The gateway built in DIR (a checkout of the previous commit
 * with its `dist/`, e.g. `git worktree add` + `npm ci` + `npm run build`) and this checkout's gateway run side by side
 * against one sandbox, under the same closed-loop load, interleaved round by round so drift on a shared machine hits
 * both alike. Prints CPU per operation (gateway + sandbox, from /proc), req/s and p50 of each, and their ratios.
 * `--base-flags`/`--flags` add V8 flags to one side after `npm start`'s (a later flag wins): `--base .` with
 * `--flags "--max-semi-space-size=16"` measures a flag on one build. `--runtime shipped` runs the sandbox and both
 * gateways on Node 24 (lib/runtimes.ts), else on the Node running this. Each build is warmed up until its CPU per
 * request is steady, at most `--warm-up` seconds (lib/load.ts, `warmUp`).
 */
const run = profiledRun(process.argv.slice(2), 3);
const base = resolve(run.option('base') ?? '');
if (!existsSync(join(base, 'dist/main.js')))
  throw new Error(`--base ${base}: no dist/main.js there (build that checkout first)`);
const rounds = Number(run.option('rounds') ?? 5);
if (run.option('runtime') === 'shipped') useRuntime(benchRuntimes({ machine: false })[0]);
else if (run.option('runtime') !== undefined)
  throw new Error(
    `--runtime ${run.option('runtime')}: say shipped (Node 24), or leave it out for the Node running this`,
  );

try {
  const sb = await startSandboxProc();
  const env = { OMDB_CACHE_MAX: '0' };
  const flags = (name: string) => (run.option(name) ?? '').split(' ').filter(Boolean);
  const [before, after] = await Promise.all([
    startGatewayProc(sb.origin, env, flags('base-flags'), base),
    startGatewayProc(sb.origin, env, flags('flags')),
  ]);
  for (const g of [before, after]) await gql(g.url, run.query, run.firstVariables);
  const pids = (g: typeof before) => [g.proc.pid, sb.proc.pid];
  const f = await interleaved(
    { before: run.target(before.url, pids(before)), after: run.target(after.url, pids(after)) },
    rounds,
    run.seconds,
    run.connections,
    () => sb.control('DELETE', 'requests'),
    // Both builds warmed until steady (V8 has tiered their paths up), as `npm run bench` does.
    { sliceSeconds: 0.5, maxSeconds: Number(run.option('warm-up') ?? 20) },
  );
  const { loadavg } = await import('node:os');
  console.log(
    `${run.which}: ${rounds} interleaved rounds of ${run.seconds} s, ${run.connections} connections, on Node ${runtimeNode() === process.execPath ? process.version : benchRuntimes({ machine: false })[0].version}; load average ${loadavg()[0].toFixed(1)}`,
  );
  console.log('| build | CPU µs/op (gateway + sandbox) | req/s | p50 ms | failures |');
  console.log('|---|---|---|---|---|');
  for (const [name, r] of Object.entries(f))
    console.log(`| ${name} | ${r.cpuUs.toFixed(0)} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.failures} |`);
  console.log(
    `after / before: CPU ${(f.after.cpuUs / f.before.cpuUs).toFixed(3)}, req/s ${(f.after.rps / f.before.rps).toFixed(3)}`,
  );
} finally {
  await stopAll();
}
