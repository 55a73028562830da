import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inject } from 'vitest';
import { gatewayNodeFlags } from '../../src/bench/lib/stack.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The bundles `npm run build` writes (src/build/bundle.ts) of the entries `npm start` and `npm run sandbox` run. */
const bundled: Record<string, string> = { 'main.ts': 'gateway.js', 'sandbox/main.ts': 'sandbox.js' };

/**
 * `node`'s arguments to run `src/<path>.ts`: its compiled copy in dist/ when the global setup found dist/ current
 * (test/support/globalSetup.ts; `npm test` builds it first), the bundle in dist/bundle for the gateway and the sandbox
 * (what `npm start` and `npm run sandbox` run), else the source through tsx's loader (the quick loop while a build is
 * due). All are the same code; the compiled one starts on about half tsx's CPU, the bundle on half the compiled one's.
 */
export function nodeArgs(path: string): string[] {
  if (inject('compiled'))
    return [
      bundled[path] ? join(root, 'dist', 'bundle', bundled[path]) : join(root, 'dist', path.replace(/\.ts$/, '.js')),
    ];
  return ['--import', pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href, join(root, 'src', path)];
}

/**
 * Every child started through this module and its descendants: none outlives the test file, passed or failed.
 * {@link stopStarted} runs after each file from a setup file (processCleanup.ts), not from a hook registered here: the
 * shared project's files run in one process (vitest's `isolate: false`) and import this module once, so such a hook
 * ran for one file per worker and the gateways the others spawned outlived the suite.
 */
const started = new Set<ChildProcess>();
/**
 * Grandchildren seen by {@link descendants}, with their start time: once their parent is gone they hang under init,
 * out of reach otherwise. The start time tells a pid still theirs from one the kernel has since given to another
 * process (pids wrap at 32768 here, and the suite spawns hundreds), which must never be signalled.
 */
const seen = new Map<number, string>();

/**
 * Kills the children started through this module that are still running, their descendants now, and the
 * grandchildren seen before that still run as themselves; waits for the children. Exited children's pids are left
 * alone: the kernel may have given them to another worker's process.
 */
export async function stopStarted(): Promise<void> {
  const live = [...started].filter((child) => child.pid && child.exitCode === null && child.signalCode === null);
  const exits = live.map((child) => new Promise((r) => child.once('exit', r)));
  for (const child of live) for (const pid of [child.pid!, ...descendants(child.pid!)]) signal(pid, 'SIGKILL');
  for (const [pid, startTime] of seen) if (startTimeOf(pid) === startTime) signal(pid, 'SIGKILL');
  seen.clear();
  started.clear();
  await Promise.all(exits);
}

/** Field 22 of /proc/<pid>/stat (the process's start time, in clock ticks since boot); undefined when it is gone. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function track(child: ChildProcess): ChildProcess {
  started.add(child);
  return child;
}

/** Sends `name` to `pid`; false when the process is gone. */
export function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/** The pids of every process below `pid` (children, their children, …), read from /proc. */
export function descendants(pid: number): number[] {
  const parentOf = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent pid; field 2 (the name) may hold spaces, so split after its ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parentOf.set(ppid, [...(parentOf.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone between the listing and the read.
    }
  }
  const out: number[] = [];
  for (let queue = [pid]; queue.length;) {
    const children = parentOf.get(queue.pop()!) ?? [];
    out.push(...children);
    queue.push(...children);
  }
  for (const child of out) {
    const startTime = startTimeOf(child);
    if (startTime !== undefined) seen.set(child, startTime);
  }
  return out;
}

/** `npm run <script>` as a real child process (what an operator or a process manager runs), output kept. */
export function spawnNpmScript(
  script: string,
  env: Record<string, string>,
  args: readonly string[] = [],
): { child: ChildProcess; output: string[]; exited: Promise<number | null> } {
  const child = track(
    spawn('npm', ['run', '--silent', script, ...(args.length ? ['--', ...args] : [])], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const output: string[] = [];
  const keep = (d: Buffer) => output.push(...d.toString().split('\n').filter(Boolean));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

export interface GatewayProcess {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
  /** Resolves with the origin once the gateway logged that it listens. */
  origin: Promise<string>;
}

/**
 * Runs `src/main.ts` (what `npm start` runs; {@link nodeArgs}) as a real child process with `env` on a clean environment, in
 * the project's folder or in `cwd` (where `npm start` looks for `.env`), with `npm start`'s V8 flags: a test that
 * bounds the gateway's memory measures it as deployed (without them Node 24's young generation alone grows to 32 MB).
 */
export function spawnGateway(env: Record<string, string>, startTimeoutMs = 30_000, cwd = root): GatewayProcess {
  const child = track(
    spawn(process.execPath, [...gatewayNodeFlags(), ...nodeArgs('main.ts')], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const stdout: string[] = [];
  const stderr: string[] = [];
  let onOrigin: (o: string) => void;
  let onFail: (e: Error) => void;
  const origin = new Promise<string>((resolve, reject) => {
    onOrigin = resolve;
    onFail = reject;
  });
  child.stdout!.on('data', (d: Buffer) => {
    for (const line of d.toString().split('\n').filter(Boolean)) {
      stdout.push(line);
      const m = /gateway listening on (http:\/\/[^\s]+) /.exec(line);
      if (m) onOrigin(m[1]);
    }
  });
  child.stderr!.on('data', (d: Buffer) => stderr.push(...d.toString().split('\n').filter(Boolean)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // `exited` never rejects; the failure it reports goes to `origin`, whose rejection the caller handles.
  void exited.then((code) => onFail(new Error(`gateway exited with ${code} before listening: ${stderr.join('\n')}`)));
  const timer = setTimeout(
    () => onFail(new Error(`gateway did not start within ${startTimeoutMs / 1000} s`)),
    startTimeoutMs,
  );
  origin.finally(() => clearTimeout(timer)).catch(() => undefined);
  return { child, stdout, stderr, exited, origin };
}

/**
 * Asks a spawned gateway for one title (its sandbox answers), then stops it as a process manager does
 * (SIGTERM): what it answered and how it exited, for tests of what a start loads.
 */
export async function titleThenStop(p: GatewayProcess): Promise<{ data: unknown; exitCode: number | null }> {
  const res = await fetch(`${await p.origin}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ title(imdbId: "tt0133093") { title } }' }),
  });
  const { data } = (await res.json()) as { data: unknown };
  p.child.kill('SIGTERM');
  return { data, exitCode: await p.exited };
}

/** Runs `src/sandbox/main.ts` (what `npm run sandbox` runs; {@link nodeArgs}) as a child process with `env` on a clean environment, on a free port. */
export function spawnSandbox(env: Record<string, string>): {
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
  origin: Promise<string>;
} {
  const child = track(
    spawn(process.execPath, nodeArgs('sandbox/main.ts'), {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SANDBOX_PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const origin = new Promise<string>((resolve, reject) => {
    const keep = (d: Buffer) => {
      for (const line of d.toString().split('\n').filter(Boolean)) {
        output.push(line);
        const m = /sandbox listening on (http:\/\/\S+)/.exec(line);
        if (m) resolve(m[1]);
      }
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    void exited.then((code) =>
      reject(new Error(`the sandbox exited with ${code} before listening: ${output.join('\n')}`)),
    );
  });
  origin.catch(() => undefined);
  return { child, output, exited, origin };
}
