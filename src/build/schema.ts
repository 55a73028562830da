/**
 * `npm run schema` (also run by `npm run build`): writes the public API schema to `schema.graphql` at the project root.
 * `--check` writes nothing and exits 1 when the file is stale (CI).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { printPublicSchema, publicSchemaFile } from '../schema/build.js';

const check = process.argv.includes('--check');
const text = await printPublicSchema();
const current = await readFile(publicSchemaFile, 'utf8').catch(() => undefined);
const name = relative(process.cwd(), publicSchemaFile) || publicSchemaFile;
if (check) {
  if (current !== text) {
    console.error(`${name} is stale: run npm run schema and commit it.`);
    process.exit(1);
  }
  console.log(`${name} is up to date.`);
} else if (current !== text) {
  await writeFile(publicSchemaFile, text);
  console.log(`wrote ${name}`);
}
