import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** dist/ is current: child processes run the compiled gateway (test/support/process.ts `nodeArgs`). */
    compiled: boolean;
  }
}

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The suite's child processes (replicas, `npm start`-like gateways, `npm run supergraph`) run the compiled dist/ copy:
 * through tsx each start transpiled the gateway again, about twice the start-up CPU, and replicas start by the dozen.
 * `npm test` builds first when dist/ is older than its sources (`src/build/if-needed.mjs`, what `npm start` runs);
 * the quick loop (TEST_QUICK) only asks, and its children run the sources through tsx while a build is due.
 */
export default function setup(project: TestProject): void {
  // Asked once per run: each vitest project loads this module anew.
  const memo = globalThis as { testCompiled?: boolean };
  memo.testCompiled ??= buildIfNeeded();
  project.provide('compiled', memo.testCompiled);
}

function buildIfNeeded(): boolean {
  const args = ['src/build/if-needed.mjs', ...(process.env.TEST_QUICK ? ['--check'] : [])];
  const run = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (run.status !== 0 && !process.env.TEST_QUICK) throw new Error(`npm run build failed (exit ${run.status})`);
  return run.status === 0;
}
