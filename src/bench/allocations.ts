import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from './lib/load.js';
import { freePort, spawnProc, stopAll, waitReady } from './lib/proc.js';
import { gatewayNodeFlags, gql, startSandboxProc, upstreamEnv } from './lib/stack.js';
import { profiledRun } from './lib/profiled.js';
import { gatewayStream, openClient } from './scenarios/streaming.js';

/**
 * `npm run bench:alloc -- [--query health|title|health-turn|title-turn|chat-stream] [--promoted] [--async] [--seconds 4] [--connections 10] [--out FILE.md]`:
 * runs the gateway (with `npm start`'s V8 flags) against the sandbox under V8's sampling heap profiler, collected
 * objects included, sends closed-loop load of one query and prints the bytes allocated per operation by function:
 * what the garbage collector has to deal with, which a CPU profile shows only as "GC". `--promoted` leaves out what a
 * young-generation GC collected: the bytes per operation that reached the old generation (or live on), whose growth
 * sets how often the full GC runs under `--heap-growing-percent`. `--profile FILE` keeps the raw sampling profile.
 * `--async` also counts the async resources made per operation (promises, TickObjects, timers, Immediates) over the
 * same window ({@link asyncTable}); they run high with the hook on, so compare two builds' counts, not the absolutes.
 */

/** The parts of V8's sampling heap profile this report reads. */
export interface HeapProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapProfileNode[];
}

export interface AllocationReport {
  bytesPerOperation: number;
  /** Bytes per operation allocated by the function itself, largest first. */
  self: Array<{ frame: string; bytes: number }>;
  /** Bytes per operation allocated by the function and what it calls (recursion counted once), largest first. */
  inclusive: Array<{ frame: string; bytes: number }>;
}

/** `functionName file:line`, with node_modules/ and dist/ prefixes shortened. */
export function frameName(frame: HeapProfileNode['callFrame']): string {
  const file = frame.url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, 'dist/');
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

/** Allocation per operation by function, self and inclusive, the `top` largest of each. */
export function allocationReport(head: HeapProfileNode, operations: number, top = 25): AllocationReport {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapProfileNode, onStack: ReadonlySet<string>): number => {
    const name = frameName(node.callFrame);
    total += node.selfSize;
    self.set(name, (self.get(name) ?? 0) + node.selfSize);
    const below = new Set(onStack).add(name);
    let sum = node.selfSize;
    for (const child of node.children) sum += walk(child, below);
    if (!onStack.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + sum);
    return sum;
  };
  walk(head, new Set());
  const ranked = (m: Map<string, number>) =>
    [...m]
      .map(([frame, bytes]) => ({ frame, bytes: bytes / operations }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, top);
  return { bytesPerOperation: total / operations, self: ranked(self), inclusive: ranked(inclusive) };
}

export function allocationTable(report: AllocationReport): string {
  const rows = (list: AllocationReport['self']) =>
    list.map((r) => `| ${r.frame.replace(/\|/g, '\\|')} | ${Math.round(r.bytes)} |`);
  return [
    `Allocated per operation: ${Math.round(report.bytesPerOperation)} bytes.`,
    '',
    '| allocated by the function itself | bytes per operation |',
    '|---|---|',
    ...rows(report.self),
    '',
    '| allocated by the function and its callees | bytes per operation |',
    '|---|---|',
    ...rows(report.inclusive),
    '',
  ].join('\n');
}

/** Async resources made per operation, by type, most first (types made less than once per 100 operations left out). */
export function asyncTable(made: Record<string, number>, operations: number): string {
  const rows = Object.entries(made)
    .map(([type, count]) => ({ type, per: count / operations }))
    .filter((r) => r.per >= 0.01)
    .sort((a, b) => b.per - a.per)
    .map((r) => `| ${r.type} | ${r.per.toFixed(2)} |`);
  return [
    '| async resources made (an `async_hooks` init count; the hook adds promises) | per operation |',
    '|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/**
 * `--query chat-stream`: closed-loop `chatCompletionStream` subscriptions instead of HTTP requests, one graphql-ws
 * connection each, every stream one token long (the sandbox's answer cut by `maxTokens: 1`: the start, one chunk and
 * the end), so the bytes per operation are what one stream start allocates. Returns how many ran.
 */
async function streamLoad(
  wsUrl: string,
  seconds: number,
  connections: number,
  tokens: number,
  /** Run this many streams instead (a warm-up as long on a busy machine as on a quiet one). */
  count = Infinity,
): Promise<{ ok: number }> {
  const clients = await Promise.all(Array.from({ length: connections }, () => openClient(wsUrl)));
  const until = performance.now() + seconds * 1000;
  let ok = 0;
  let started = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (count === Infinity ? performance.now() < until : started++ < count)
        if ((await gatewayStream(client, tokens)).finished) ok++;
    }),
  );
  await Promise.all(clients.map((c) => c.dispose()));
  return { ok };
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const streams = argv[argv.indexOf('--query') + 1] === 'chat-stream';
  const {
    option,
    which,
    query,
    firstVariables,
    seconds,
    connections,
    target: targetAt,
  } = profiledRun(streams ? argv.map((a) => (a === 'chat-stream' ? 'health' : a)) : argv, 4);
  const dir = mkdtempSync(join(tmpdir(), 'gateway-alloc-'));
  const out = join(dir, 'allocations.heapprofile');

  const sb = await startSandboxProc();
  const port = await freePort();
  const promoted = process.argv.includes('--promoted');
  const asyncOut = process.argv.includes('--async') ? join(dir, 'async.json') : undefined;
  const nodeArgs = [...gatewayNodeFlags(), ...(promoted ? ['--expose-gc'] : []), 'dist/bench/allocations/gateway.js'];
  const gateway = spawnProc('gateway', process.execPath, nodeArgs, {
    ...upstreamEnv(sb.origin),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    OMDB_CACHE_MAX: '0',
    OMDB_DAILY_QUOTA: '1000000000',
    // As in every other benchmark (lib/stack.ts): the response cache would answer the repeated ids instead of
    // executing them, and the report would be a cached answer's allocations (bench/PROFILE.md, tenth pass).
    RESPONSE_CACHE_MAX_BYTES: '0',
    ALLOC_PROFILE_OUT: out,
    ...(promoted ? { ALLOC_PROMOTED: '1' } : {}),
    ...(asyncOut ? { ALLOC_ASYNC_OUT: asyncOut } : {}),
    // One address stands for every client here: the caps per client would refuse it.
    GLM_RPM: '1000000',
    CLIENT_MAX_CHAT_STREAMS: '1000000',
    CLIENT_MAX_SUBSCRIPTIONS: '1000000',
    CLIENT_MAX_CONNECTIONS: '1000000',
  });
  if (streams) await sb.control('POST', 'config', { chatRpm: { glm: 1_000_000_000 }, chatTokenDelayMs: 1 });
  const url = `http://127.0.0.1:${port}/graphql`;
  await waitReady(gateway, `http://127.0.0.1:${port}/readyz`);
  const said = async (text: string) => {
    // Bounded: the gateway answers a signal within milliseconds; 10 s means it is gone.
    for (let i = 0; i < 200 && !gateway.tail().includes(text); i++) await new Promise((r) => setTimeout(r, 50));
    if (!gateway.tail().includes(text)) throw new Error(`gateway did not say "${text}":\n${gateway.tail()}`);
  };
  const wsUrl = url.replace('http', 'ws');
  const target = targetAt(url);
  // `--tokens N`: longer streams, whose extra bytes over one token's are what each further chunk allocates.
  const tokens = Number(option('tokens') ?? 1);
  const loaded = () => (streams ? streamLoad(wsUrl, seconds, connections, tokens) : load(target, seconds, connections));
  // Warm-up, not sampled: 1,000 streams, after which the start path has left V8's lower tiers (what it allocates
  // depends on the tier: optimized code allocates less), however busy the machine.
  if (streams) await streamLoad(wsUrl, 0, connections, tokens, 1_000);
  else {
    await gql(url, query, firstVariables);
    await load(target, 2, connections); // warm-up, not sampled
  }
  gateway.child.kill('SIGUSR2');
  await said('allocation sampling started');
  const run = await loaded();
  gateway.child.kill('SIGTERM');
  await said('allocation profile written');
  await stopAll();
  const report = allocationReport(
    (JSON.parse(readFileSync(out, 'utf8')) as { head: HeapProfileNode }).head,
    run.ok,
    Number(option('top') ?? 25),
  );
  const text = [
    `${streams ? 'chat-stream' : which}: ${run.ok} ${streams ? `streams of ${Number(option('tokens') ?? 1)} tokens` : 'operations'} in ${seconds} s, ${connections} connections, sampled every 512 bytes${promoted ? ', promoted or live only (what young-generation GCs collected left out)' : ''}.`,
    '',
    allocationTable(report),
    ...(asyncOut ? [asyncTable(JSON.parse(readFileSync(asyncOut, 'utf8')) as Record<string, number>, run.ok)] : []),
  ].join('\n');
  console.log(text);
  const file = option('out');
  if (file) writeFileSync(file, text);
  // The raw profile, for a closer look (Chrome DevTools' Memory panel opens it).
  const keep = option('profile');
  if (keep) writeFileSync(keep, readFileSync(out));
  rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1]?.endsWith('allocations.js')) {
  main().catch(async (error: unknown) => {
    console.error(error);
    await stopAll();
    process.exit(1);
  });
}
