import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/bench/lib/proc.js';
import { descendants, signal, spawnNpmScript } from '../support/process.js';

/** True when nothing listens on `port` any more (this process can bind it). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** Waits until a line of `output` matches, or fails naming what was printed. */
async function printed(output: string[], pattern: RegExp, exited: Promise<unknown>): Promise<void> {
  const deadline = Date.now() + 60_000;
  let gone = false;
  void exited.then(() => (gone = true));
  while (!output.some((l) => pattern.test(l))) {
    if (gone || Date.now() > deadline) throw new Error(`no line matched ${pattern}:\n${output.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// A process manager (systemd, PM2, a CI job) signals the npm process it started: the server must get the signal too,
// or it keeps holding the port after npm has exited.
describe('SIGTERM to npm reaches the server', () => {
  beforeAll(async () => {
    // The build `npm start` would run first when dist/ is stale, done here so the tests below time the start only.
    await promisify(execFile)(process.execPath, ['src/build/if-needed.mjs'], { timeout: 150_000 });
  }, 160_000);

  it.each([
    ['start', 'PORT', /gateway listening on/, 0],
    ['sandbox', 'SANDBOX_PORT', /sandbox listening on/, 0],
    // Vite's dev server, given its port as an argument: it has no SIGTERM handler, so it ends by the signal (143).
    ['example:web', '--port', /Local:/, 143],
  ])(
    'npm run %s: npm and the server exit, the port is free and no process of theirs remains',
    async (script, portSetting, listening, exitCode) => {
      const port = await freePort();
      const npm = portSetting.startsWith('--')
        ? spawnNpmScript(script, {}, [portSetting, String(port)])
        : spawnNpmScript(script, { [portSetting]: String(port) });
      await printed(npm.output, listening, npm.exited);
      const below = descendants(npm.child.pid!);
      expect(below.length).toBeGreaterThan(0);
      expect(await portIsFree(port)).toBe(false);

      npm.child.kill('SIGTERM');
      const code = await npm.exited;
      expect({ code, signal: npm.child.signalCode }, npm.output.join('\n')).toEqual({ code: exitCode, signal: null });
      // npm waits for its child before exiting; allow the kernel a moment to reap what it reparented, if anything.
      for (let i = 0; i < 40 && below.some((pid) => signal(pid, 0)); i++) await new Promise((r) => setTimeout(r, 50));
      expect(below.filter((pid) => signal(pid, 0))).toEqual([]);
      expect(await portIsFree(port)).toBe(true);
    },
    90_000,
  );
});
