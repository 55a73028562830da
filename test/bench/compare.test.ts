import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// `npm run bench:compare` (src/bench/compare.ts) end to end at its smallest: two gateway builds, here the same one,
// under the same interleaved load against one sandbox.
describe('npm run bench:compare', () => {
  it('bench:compare measures two builds side by side (here the same one) and prints both and their ratio', async () => {
    await promisify(execFile)(process.execPath, ['src/build/if-needed.mjs'], { timeout: 120_000 });
    const run = await promisify(execFile)(
      process.execPath,
      [
        'dist/bench/compare.js',
        '--base',
        '.',
        '--query',
        'title-turn',
        '--rounds',
        '1',
        '--seconds',
        '0.3',
        '--warm-up',
        '0.3',
      ],
      { timeout: 60_000 },
    );
    expect(run.stdout).toMatch(/^\| before \| \d+ \| \d+ \| [\d.]+ \| 0 \|$/m);
    expect(run.stdout).toMatch(/^\| after \| \d+ \| \d+ \| [\d.]+ \| 0 \|$/m);
    expect(run.stdout).toMatch(/^after \/ before: CPU [\d.]+, req\/s [\d.]+$/m);
  }, 120_000);
});
