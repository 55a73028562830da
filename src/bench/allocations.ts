import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from './lib/load.js';
import { freePort, spawnProc, stopAll, waitReady } from './lib/proc.js';
import { gatewayNodeFlags, gql, startSandboxProc, upstreamEnv } from './lib/stack.js';
import { profiledRun } from './lib/profiled.js';

/**
 * `npm run bench:alloc -- [--query health|title|health-turn|title-turn] [--seconds 4] [--connections 10] [--out FILE.md]`:
 * runs the gateway (with `npm start`'s V8 flags) against the sandbox under V8's sampling heap profiler, collected
 * objects included, sends closed-loop load of one query and prints the bytes allocated per operation by function:
 * what the garbage collector has to deal with, which a CPU profile shows only as "GC".
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

async function main(): Promise<void> {
  const {
    option,
    which,
    query,
    firstVariables,
    seconds,
    connections,
    target: targetAt,
  } = profiledRun(process.argv.slice(2), 4);
  const dir = mkdtempSync(join(tmpdir(), 'gateway-alloc-'));
  const out = join(dir, 'allocations.heapprofile');

  const sb = await startSandboxProc();
  const port = await freePort();
  const gateway = spawnProc('gateway', process.execPath, [...gatewayNodeFlags(), 'dist/bench/allocations/gateway.js'], {
    ...upstreamEnv(sb.origin),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    OMDB_CACHE_MAX: '0',
    OMDB_DAILY_QUOTA: '1000000000',
    ALLOC_PROFILE_OUT: out,
  });
  const url = `http://127.0.0.1:${port}/graphql`;
  await waitReady(gateway, `http://127.0.0.1:${port}/readyz`);
  const said = async (text: string) => {
    // Bounded: the gateway answers a signal within milliseconds; 10 s means it is gone.
    for (let i = 0; i < 200 && !gateway.tail().includes(text); i++) await new Promise((r) => setTimeout(r, 50));
    if (!gateway.tail().includes(text)) throw new Error(`gateway did not say "${text}":\n${gateway.tail()}`);
  };
  await gql(url, query, firstVariables);
  const target = targetAt(url);
  await load(target, 2, connections); // warm-up, not sampled
  gateway.child.kill('SIGUSR2');
  await said('allocation sampling started');
  const run = await load(target, seconds, connections);
  gateway.child.kill('SIGTERM');
  await said('allocation profile written');
  await stopAll();
  const report = allocationReport((JSON.parse(readFileSync(out, 'utf8')) as { head: HeapProfileNode }).head, run.ok);
  const text = [
    `${which}: ${run.ok} operations in ${seconds} s, ${connections} connections, sampled every 512 bytes.`,
    '',
    allocationTable(report),
  ].join('\n');
  console.log(text);
  const file = option('out');
  if (file) writeFileSync(file, text);
  rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1]?.endsWith('allocations.js')) {
  main().catch(async (error: unknown) => {
    console.error(error);
    await stopAll();
    process.exit(1);
  });
}
