/**
 * `npm run config:docs`: writes the configuration guide's table (docs/configuration.md) and `.env.example` from
 * src/config/variables.ts. `--check` writes nothing and exits 1 when either is stale (CI).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIGURATION_GUIDE, renderEnvExample, withTable } from '../config/docs.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const check = process.argv.includes('--check');
const guide = await readFile(join(root, CONFIGURATION_GUIDE), 'utf8');
const files = [
  { name: CONFIGURATION_GUIDE, current: guide, text: withTable(guide) },
  {
    name: '.env.example',
    current: await readFile(join(root, '.env.example'), 'utf8').catch(() => undefined),
    text: renderEnvExample(),
  },
];
const stale = files.filter((f) => f.current !== f.text);
if (check) {
  if (stale.length) {
    console.error(
      `${stale.map((f) => f.name).join(' and ')} ${stale.length === 1 ? 'is' : 'are'} stale: run npm run config:docs and commit.`,
    );
    process.exit(1);
  }
  console.log(`${CONFIGURATION_GUIDE} (its table) and .env.example are up to date.`);
} else {
  for (const f of stale) {
    await writeFile(join(root, f.name), f.text);
    console.log(`wrote ${f.name}`);
  }
}
