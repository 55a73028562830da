import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Pool } from 'undici';
import { cpuSeconds } from './lib/load.js';
import { stopAll } from './lib/proc.js';
import { startGatewayProc, startSandboxProc, type GraphQLProc } from './lib/stack.js';
import { median, percentile } from './lib/stats.js';

/**
 * `node dist/bench/entities.js --base DIR [--calls 4] [--seconds 4] [--attackers 8]`: what a router's `_entities` call
 * costs as it grows, on the gateway built in DIR and on this checkout, side by side against one sandbox:
 * - for 100, 1,000 and 10,000 Title references nobody looked up (sent without a router key: refused whole by the upstream budget), the
 *   gateway's CPU per call (from /proc), the answer's size and its errors;
 * - another client's p50 for `{ upstreams { id } }` on one connection, alone, while `--attackers` loops send the
 *   10,000-reference call without pause, and while `--attackers` of them are sent at once, again 250 ms after the last
 *   were answered; each bounded by `--seconds`.
 */
const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at === -1 ? undefined : args[at + 1];
};
const base = resolve(option('base') ?? '');
if (!existsSync(join(base, 'dist/main.js')))
  throw new Error(`--base ${base}: no dist/main.js there (build that checkout first)`);
const calls = Number(option('calls') ?? 4);
const seconds = Number(option('seconds') ?? 4);
const attackers = Number(option('attackers') ?? 8);

const QUERY = 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Title { imdbId title } } }';
const body = (n: number) =>
  JSON.stringify({
    query: QUERY,
    variables: { r: Array.from({ length: n }, (_, i) => ({ __typename: 'Title', imdbId: `tt${9_000_000 + i}` })) },
  });

async function post(pool: Pool, text: string): Promise<{ status: number; bytes: number; errors: number }> {
  const res = await pool.request({
    path: '/graphql',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: text,
  });
  const answer = await res.body.text();
  let errors = 0;
  try {
    errors = (JSON.parse(answer) as { errors?: unknown[] }).errors?.length ?? 0;
  } catch {
    errors = -1;
  }
  return { status: res.statusCode, bytes: Buffer.byteLength(answer), errors };
}

/** p50, p99 and the worst latency in ms of sequential light queries on one connection until `until` resolves. */
async function bystander(
  g: GraphQLProc,
  until: Promise<unknown>,
): Promise<{ p50: number; p99: number; max: number; n: number }> {
  const pool = new Pool(new URL(g.url).origin, { connections: 1 });
  const latencies: number[] = [];
  let done = false;
  void until.then(() => (done = true));
  while (!done) {
    const t0 = performance.now();
    const res = await pool.request({
      path: '/graphql',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ upstreams { id } }"}',
    });
    await res.body.dump();
    latencies.push(performance.now() - t0);
  }
  await pool.close();
  return { p50: median(latencies), p99: percentile(latencies, 99), max: Math.max(...latencies), n: latencies.length };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

try {
  const sb = await startSandboxProc();
  // The titles cache off: every call pays its lookups, as references nobody looked up do.
  const env = { OMDB_CACHE_MAX: '0', LOG_LEVEL: 'warn' };
  const builds: Record<string, GraphQLProc> = {};
  [builds.before, builds.after] = await Promise.all([
    startGatewayProc(sb.origin, env, [], base),
    startGatewayProc(sb.origin, env),
  ]);
  console.log('| build | representations | gateway CPU per call | answer | status | errors |');
  console.log('|---|---|---|---|---|---|');
  for (const n of [100, 1_000, 10_000]) {
    const text = body(n);
    for (const [name, g] of Object.entries(builds)) {
      const pool = new Pool(new URL(g.url).origin, { connections: 1 });
      await post(pool, text);
      const cpu0 = cpuSeconds(g.proc.pid);
      let last = { status: 0, bytes: 0, errors: 0 };
      for (let i = 0; i < calls; i++) last = await post(pool, text);
      const cpuMs = ((cpuSeconds(g.proc.pid) - cpu0) * 1000) / calls;
      await pool.close();
      console.log(
        `| ${name} | ${n.toLocaleString('en')} | ${cpuMs.toFixed(0)} ms | ${(last.bytes / 1024).toFixed(1)} KiB | ${last.status} | ${last.errors} |`,
      );
    }
  }
  console.log(
    `\nAnother client's p50 / p99 / worst for { upstreams { id } }, alone and under the 10,000-reference call (${seconds} s each):`,
  );
  console.log(`| build | alone | under ${attackers} loops without pause | under ${attackers} at once, every 250 ms |`);
  console.log('|---|---|---|---|');
  const heavy = body(10_000);
  for (const [name, g] of Object.entries(builds)) {
    const alone = await bystander(g, sleep(seconds * 1000));
    const deadline = performance.now() + seconds * 1000;
    const pool = new Pool(new URL(g.url).origin, { connections: attackers });
    let answered = 0;
    const loops = Promise.all(
      Array.from({ length: attackers }, async () => {
        // Bounded by the deadline.
        while (performance.now() < deadline) {
          await post(pool, heavy);
          answered++;
        }
      }),
    );
    const under = await bystander(g, loops);
    // Eight at once, again a quarter second after the last eight were answered: an attacker within one client's caps.
    const burstsUntil = performance.now() + seconds * 1000;
    let bursts = 0;
    const paced = (async () => {
      // Bounded by the deadline.
      while (performance.now() < burstsUntil) {
        await Promise.all(Array.from({ length: attackers }, () => post(pool, heavy)));
        bursts++;
        await sleep(250);
      }
    })();
    const underBursts = await bystander(g, paced);
    await pool.close();
    const figures = (f: { p50: number; p99: number; max: number }) =>
      `${f.p50.toFixed(2)} / ${f.p99.toFixed(1)} / ${f.max.toFixed(0)} ms`;
    console.log(
      `| ${name} | ${figures(alone)} | ${figures(under)} (${answered} calls) | ${figures(underBursts)} (${bursts} bursts) |`,
    );
  }
} finally {
  await stopAll();
}
