import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Project root: the same relative path from src/bench/lib and dist/bench/lib. */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/**
 * A port free right now on loopback, for a child that must be told its port before it starts. It is drawn at random
 * from below the kernel's ephemeral range (`ip_local_port_range`), where no outgoing connection takes its local port:
 * a port from the ephemeral range (`listen(0)`) can be taken by any client socket of a busy test run before the child
 * binds it (the likeliest reason Hive Gateway exited before it listened in CI at 21228d9, Node 24). What is left is
 * another process binding the same random port in that moment; where the child can take port 0, `listeningPort` has no
 * race at all.
 */
export async function freePort(draw: () => number = belowEphemeral): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await bound(draw());
    if (port !== undefined) return port;
  }
  const port = await bound(0);
  if (port === undefined) throw new Error('no port on 127.0.0.1 could be bound');
  return port;
}

/** A random port from 10,000 up to the kernel's ephemeral range (Linux's default, 32768, where it cannot be read). */
function belowEphemeral(): number {
  let low = 32_768;
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (first > 11_000) low = first;
  } catch {
    // Not Linux: its default range.
  }
  return 10_000 + Math.floor(Math.random() * (low - 10_000));
}

/** Listens on `port` (0: one the kernel picks) and closes again: the port it had, or undefined if it was taken. */
function bound(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => {
      const { port: had } = srv.address() as { port: number };
      srv.close(() => resolve(had));
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
export function spawnProc(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd = root,
): Proc {
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

/** The processes started and not yet stopped. */
export function runningPids(): number[] {
  return [...live].map((p) => p.pid);
}

/** Stops every process still running (on error or interrupt). */
export async function stopAll(): Promise<void> {
  await Promise.allSettled([...live].map((p) => p.stop()));
}

/**
 * The TCP port `proc` listens on, once it does: for a server started on port 0 that does not say which port it got
 * (Hive Gateway logs "Listening on http://127.0.0.1:0"). Unlike a port found free beforehand, which another process
 * may take before the child binds it, this cannot be anybody else's. Read from /proc: the process's socket inodes
 * among the kernel's listening TCP sockets.
 */
export async function listeningPort(proc: Proc, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null)
      throw new Error(`${proc.name} exited with ${proc.child.exitCode}:\n${proc.tail()}`);
    const port = listeningPortOf(proc.pid);
    if (port !== undefined) return port;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${proc.name} did not listen within ${timeoutMs} ms:\n${proc.tail()}`);
}

function listeningPortOf(pid: number): number | undefined {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode) inodes.add(inode);
      } catch {
        // Closed between the listing and the read.
      }
    }
  } catch {
    return undefined;
  }
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    // Columns: sl, local_address (hex address:port), rem_address, st (0A = LISTEN), …, inode (the tenth).
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A' && inodes.has(f[9])) return parseInt(f[1].split(':')[1], 16);
    }
  }
  return undefined;
}

/** Polls `url` until it answers 2xx, or fails with the process's output after `timeoutMs`. */
export async function waitReady(proc: Proc, url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null)
      throw new Error(`${proc.name} exited with ${proc.child.exitCode}:\n${proc.tail()}`);
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
