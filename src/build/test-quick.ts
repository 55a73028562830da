/**
 * `npm run test:quick`: the tests of the concerns an uncommitted change touches, found through the mirror of `src/` in
 * `test/` (docs/development.md): a change to `src/a/b/c.ts` runs the test files directly in `test/a/b/`, a changed
 * test file runs itself. vitest's `--changed` follows imports instead, and nearly every file imports the whole gateway
 * through `test/support/`, so it selected most of the suite. A change outside both (a helper in `test/support/`, the
 * vitest config, `package.json`) falls back to `--changed`. The whole-system files stay for `npm test` and CI
 * (TEST_QUICK in test/vitest.config.ts). Arguments go to vitest; `--list` prints the files instead.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean);
const changed = [
  ...new Set([...git('diff', '--name-only', 'HEAD'), ...git('ls-files', '--others', '--exclude-standard')]),
];

const testsIn = (folder: string): string[] =>
  existsSync(join(root, folder))
    ? readdirSync(join(root, folder))
        .filter((name) => name.endsWith('.test.ts'))
        .map((name) => `${folder}/${name}`)
    : [];

const files = new Set<string>();
let unmapped = false;
for (const path of changed) {
  if (/^test\/.*\.test\.ts$/.test(path)) {
    if (existsSync(join(root, path))) files.add(path);
  } else if (/^src\/.*\.tsx?$/.test(path)) {
    for (const test of testsIn(`test/${dirname(path).slice('src/'.length)}`.replace(/\/$/, ''))) files.add(test);
  } else if (/^(test\/|package\.json$|package-lock\.json$)/.test(path)) {
    unmapped = true;
  }
}

const args = process.argv.slice(2);
if (args.includes('--list')) {
  console.log(unmapped ? 'vitest --changed (a change outside src/ and the test files)' : [...files].sort().join('\n'));
  process.exit(0);
}
if (!unmapped && files.size === 0) {
  console.log('test:quick: no change under src/ or test/ since the last commit');
  process.exit(0);
}
const vitest = join(root, 'node_modules/.bin/vitest');
const run = spawnSync(
  vitest,
  ['run', '--config', 'test/vitest.config.ts', ...(unmapped ? ['--changed'] : [...files]), ...args],
  { cwd: root, stdio: 'inherit', env: { ...process.env, TEST_QUICK: '1' } },
);
process.exit(run.status ?? 1);
