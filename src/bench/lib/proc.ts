import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Project root: the same relative path from src/bench/lib and dist/bench/lib. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** A port free right now on loopback (the child binds it a moment later; loopback races are rare enough). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

export interface Proc {
  name: string;
  pid: number;
  child: ChildProcess;
  /** Last lines of its output, for error messages. */
  tail(): string;
  stop(): Promise<void>;
}

const live = new Set<Proc>();

/** Spawns `command args` with `env` added; output is kept (bounded) for diagnostics, not echoed. */
export function spawnProc(name: string, command: string, args: string[], env: Record<string, string>, cwd = root): Proc {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const proc: Proc = {
    name,
    pid: child.pid!,
    child,
    tail: () => out,
    async stop() {
      live.delete(proc);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
  live.add(proc);
  return proc;
}

/** Stops every process still running (on error or interrupt). */
export async function stopAll(): Promise<void> {
  await Promise.allSettled([...live].map((p) => p.stop()));
}

/** Polls `url` until it answers 2xx, or fails with the process's output after `timeoutMs`. */
export async function waitReady(proc: Proc, url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited with ${proc.child.exitCode}:\n${proc.tail()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${proc.name} not ready at ${url} within ${timeoutMs} ms:\n${proc.tail()}`);
}

/** Resident set size and its peak (VmHWM) in MB, from /proc (Linux). */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}
