import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Pool } from 'undici';
import { freePort, root, spawnProc, stopAll, waitReady } from './lib/proc.js';
import { gatewayEntry, gatewayNodeFlags, startSandboxProc, upstreamEnv } from './lib/stack.js';
import { PROFILED_QUERIES, singleHealthQuery, singleTitleQuery } from './operations.js';
import { shippedNode } from './lib/runtimes.js';

/**
 * `npm run bench:instructions -- [--requests 400] [--floor] [--query health-turn|title-turn|…] [--gateway DIR]
 * [--runtime shipped] [--warmup 25000] [--keep DIR]`: instructions per operation of the gateway (or with `--floor`, of
 * the floor proxy), counted by `valgrind --tool=callgrind` over a fixed number of requests after a warm-up, response
 * cache off (it would answer the repeated lookups instead). Unlike CPU time, an instruction count barely moves with
 * other load on the machine, so one run compares two builds: `--gateway DIR` counts the gateway built in another
 * checkout. It still moves with what lands in the window: a major GC, or a TurboFan job (`--keep` and
 * `callgrind_annotate --inclusive=yes` show both). `--query` counts one of `bench:profile`'s lookups only (ids in turn
 * for `-turn`); without it, the single health and title lookups. `--runtime shipped` runs the gateway on Node 24.
 * Needs valgrind (`apt-get install -y valgrind`); slow (minutes), so not part of `npm run bench`.
 */
const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? undefined : args[i + 1];
};
const requests = Number(option('requests') ?? 400);
/**
 * Requests before counting. On Node 24 the gateway's hot path runs on Maglev for its first ≈ 10,000 lookups; TurboFan
 * compiles it (and undici's WebAssembly parser) on background threads only then. A shorter warm-up counts that one-time
 * compilation and the slower tier in the window: after 200 requests a title lookup read ≈ 0.51 M instructions, of
 * which ≈ 45 % was compilation; after 25,000 it reads ≈ 0.26–0.28 M (bench/PROFILE.md, twentieth pass).
 */
const warmUp = Number(option('warmup') ?? 25_000);
const floorMode = args.includes('--floor');

/** `n` requests, 4 at a time, their bodies taken in turn from `bodies`. */
async function send(pool: Pool, path: string, bodies: readonly string[], n: number): Promise<void> {
  let left = n;
  let sent = 0;
  const worker = async () => {
    while (left-- > 0) {
      const res = await pool.request({
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: bodies[sent++ % bodies.length],
      });
      const text = await res.body.text();
      if (res.statusCode !== 200 || text.includes('"errors"'))
        throw new Error(`${res.statusCode} ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
}

/** Total instructions (Ir) in a callgrind dump. */
function totalIr(file: string): number {
  const m = /^(?:summary|totals):\s+(\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!m) throw new Error(`no totals in ${file}`);
  return Number(m[1]);
}

// vgdb (behind callgrind_control) names its pipes after $USER and $HOST; both sides must see the same ones.
const USER = { USER: process.env.USER || 'bench', LOGNAME: process.env.LOGNAME || process.env.USER || 'bench' };

async function main(): Promise<void> {
  // --keep DIR leaves the dumps (cg.<pid>.<n>, one per query in order) for callgrind_annotate.
  const dir = option('keep') ?? mkdtempSync(join(tmpdir(), 'gateway-callgrind-'));
  mkdirSync(dir, { recursive: true });
  const sb = await startSandboxProc();
  const port = await freePort();
  const vg = [
    '--tool=callgrind',
    '--instr-atstart=no',
    `--callgrind-out-file=${dir}/cg.%p`,
    '--smc-check=all-non-file',
    option('runtime') === 'shipped' ? shippedNode() : process.execPath,
  ];
  const target = floorMode ? ['dist/bench/floor/main.js'] : [...gatewayNodeFlags(), gatewayEntry(root)];
  const env: Record<string, string> = floorMode
    ? { SANDBOX_ORIGIN: sb.origin, PORT: String(port), HOST: '127.0.0.1' }
    : {
        ...upstreamEnv(sb.origin),
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        OMDB_CACHE_MAX: '0',
        OMDB_DAILY_QUOTA: '1000000000',
        RESPONSE_CACHE_MAX_BYTES: '0',
      };
  const gatewayDir = option('gateway');
  const proc = spawnProc(
    'callgrind',
    'valgrind',
    [...vg, ...target],
    { ...env, ...USER },
    gatewayDir ? resolve(gatewayDir) : undefined,
  );
  const control = (...a: string[]) =>
    execFileSync('callgrind_control', a, { env: { ...process.env, ...USER, HOST: env.HOST } });
  const origin = `http://127.0.0.1:${port}`;
  await waitReady(proc, `${origin}/${floorMode ? 'healthz' : 'readyz'}`, 600_000);
  const pool = new Pool(origin, { connections: 4 });
  const lines: string[] = [];
  const which = option('query');
  const chosen = which === undefined ? undefined : PROFILED_QUERIES[which];
  if (which !== undefined && (!chosen || floorMode))
    throw new Error(`--query must be one of ${Object.keys(PROFILED_QUERIES).join(', ')}, without --floor`);
  const lookups: Array<readonly [string, string[], string]> = chosen
    ? [
        [
          which!,
          (chosen.turns ?? [undefined]).map((variables) => JSON.stringify({ query: chosen.query, variables })),
          '/graphql',
        ],
      ]
    : [
        ['healthOverview', [JSON.stringify({ query: singleHealthQuery })], floorMode ? '/health' : '/graphql'],
        ['title', [JSON.stringify({ query: singleTitleQuery })], floorMode ? '/title' : '/graphql'],
      ];
  for (const [name, query, path] of lookups) {
    await send(pool, path, query, warmUp); // JIT tiers and caches settle
    control('-i', 'on', String(proc.pid));
    control('-z', String(proc.pid));
    await send(pool, path, query, requests);
    control('-d', name, String(proc.pid));
    control('-i', 'off', String(proc.pid));
    // Dumps are cg.<pid>.<n>: the highest n is the one just written.
    const dumps = readdirSync(dir)
      .filter((f) => /^cg\.\d+\.\d+$/.test(f))
      .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()));
    const ir = totalIr(join(dir, dumps[dumps.length - 1]));
    lines.push(
      `${name}: ${(ir / requests / 1e6).toFixed(3)} M instructions per operation (${requests} operations, ${floorMode ? 'floor' : 'gateway'})`,
    );
  }
  await pool.close();
  console.log(lines.join('\n'));
  await proc.stop();
  await sb.proc.stop();
  if (!option('keep')) rmSync(dir, { recursive: true, force: true });
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  // Awaited, not handed to .finally(): a child that fails to stop then surfaces instead of rejecting unhandled.
  await stopAll();
}
