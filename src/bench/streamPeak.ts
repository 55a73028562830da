import type { Client } from 'graphql-ws';
import { resolve } from 'node:path';
import { memoryOf, stopAll } from './lib/proc.js';
import { benchRuntimes, useRuntime } from './lib/runtimes.js';
import { startGatewayProc, startSandboxProc, type SandboxProc } from './lib/stack.js';
import { median } from './lib/stats.js';
import { gatewayStream, openClient } from './scenarios/streaming.js';

/**
 * `npm run bench:streams -- [--base DIR] [--rounds 2] [--streams 1000] [--runtimes shipped|all]`: scenario 4's
 * 1,000-stream run alone (its peak RSS is a goal), for this build and, with `--base`, another one built in DIR
 * (`git worktree add`, `npm run build`), interleaved round by round against one sandbox per runtime: each round starts
 * a fresh gateway, warms it with 20 streams, connects the clients 100 at a time, then streams 50 tokens 5 ms apart on
 * every connection at once, and reads the peak as scenario 4 does (the larger of VmHWM and RSS sampled every 50 ms).
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i === -1 ? undefined : args[i + 1];
  };
  const base = option('base');
  const rounds = Number(option('rounds') ?? 2);
  const n = Number(option('streams') ?? 1000);
  const builds = [...(base ? [{ name: 'base', dir: resolve(base) }] : []), { name: 'this', dir: resolve('.') }];
  for (const runtime of benchRuntimes({ machine: option('runtimes') === 'all' })) {
    useRuntime(runtime);
    const sb = await startSandboxProc();
    await sb.control('POST', 'config', { chatRpm: { glm: 1_000_000_000 }, chatTokenDelayMs: 5 });
    const peaks: Record<string, number[]> = {};
    const idles: Record<string, number[]> = {};
    for (let round = 0; round < rounds; round++) {
      for (const build of builds) {
        const { idle, peak, ok } = await oneRun(sb, build.dir, n);
        (peaks[build.name] ??= []).push(peak);
        (idles[build.name] ??= []).push(idle);
        console.log(
          `${runtime.label} ${build.name} round ${round + 1}: idle ${idle.toFixed(1)} MB, peak ${peak.toFixed(1)} MB, ${ok}/${n} streams whole`,
        );
      }
    }
    for (const build of builds)
      console.log(
        `${runtime.label} ${build.name}: peak ${peaks[build.name].map((p) => p.toFixed(0)).join(', ')} MB (median ${median(peaks[build.name]).toFixed(0)}), idle median ${median(idles[build.name]).toFixed(0)} MB`,
      );
    await sb.proc.stop();
  }
}

async function oneRun(sb: SandboxProc, dir: string, n: number) {
  const gateway = await startGatewayProc(sb.origin, { LOG_LEVEL: 'warn' }, [], dir);
  try {
    const warm = await openClient(gateway.wsUrl);
    for (let i = 0; i < 20; i++) await gatewayStream(warm, 50);
    await warm.dispose();
    const idle = memoryOf(gateway.proc.pid).rssMb;
    const clients: Client[] = [];
    for (let i = 0; i < n; i += 100)
      clients.push(
        ...(await Promise.all(Array.from({ length: Math.min(100, n - i) }, () => openClient(gateway.wsUrl)))),
      );
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, memoryOf(gateway.proc.pid).rssMb)), 50);
    const settled = await Promise.allSettled(clients.map((c) => gatewayStream(c, 50)));
    clearInterval(sampler);
    const { rssMb, peakMb } = memoryOf(gateway.proc.pid);
    await Promise.all(clients.map((c) => c.dispose()));
    const ok = settled.filter((s) => s.status === 'fulfilled' && s.value.finished).length;
    return { idle, peak: Math.max(peak, rssMb, peakMb), ok };
  } finally {
    await gateway.proc.stop();
  }
}

if (process.argv[1]?.endsWith('streamPeak.js')) {
  main().catch(async (error: unknown) => {
    console.error(error);
    await stopAll();
    process.exit(1);
  });
}
