import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('generated resolver types', () => {
  it('match schema/*.graphql (run `npm run codegen` when this fails)', async () => {
    // `--check` generates in memory and exits 1 when the committed file differs.
    const run = promisify(execFile)(
      `${root}node_modules/.bin/graphql-codegen`,
      ['--config', 'codegen.yml', '--check'],
      { cwd: root },
    );
    await expect(run).resolves.toBeDefined();
  }, 60_000);
});
