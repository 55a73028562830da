/**
 * `npm run check:imports`: no import circle in `src/` and no import up a layer (the rules: importRules.ts). Prints
 * each violation and exits 1 when there is any (CI).
 */
import { fileURLToPath } from 'node:url';
import { checkImports } from './importRules.js';

const root = fileURLToPath(new URL('../../src', import.meta.url));
const violations = checkImports(root);
for (const v of violations) console.error(v.message);
if (violations.length) {
  console.error(
    `${violations.length} import rule${violations.length === 1 ? '' : 's'} broken: see src/build/importRules.ts.`,
  );
  process.exit(1);
}
console.log('src/: no import circles, every import points down a layer, and only domains/ names a domain.');
