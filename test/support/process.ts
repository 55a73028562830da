import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface GatewayProcess {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
  /** Resolves with the origin once the gateway logged that it listens. */
  origin: Promise<string>;
}

/** Runs `src/main.ts` (what `npm start` runs, compiled) as a real child process with `env` on a clean environment. */
export function spawnGateway(env: Record<string, string>, startTimeoutMs = 30_000): GatewayProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  exited.then((code) => onFail(new Error(`gateway exited with ${code} before listening: ${stderr.join('\n')}`)));
  const timer = setTimeout(() => onFail(new Error(`gateway did not start within ${startTimeoutMs / 1000} s`)), startTimeoutMs);
  origin.finally(() => clearTimeout(timer)).catch(() => undefined);
  return { child, stdout, stderr, exited, origin };
}
