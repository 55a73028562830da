/**
 * `npm run supergraph -- [--out file] [--url url] [--name name] [subgraph.graphql[=url] …]`
 *
 * Composes this gateway's subgraph with the subgraph SDL files given (Apollo Federation v2, with
 * @theguild/federation-composition: no network, no CLI download) and writes the supergraph SDL that Apollo Router or
 * Hive Gateway serves. Each file's subgraph is named after the file (`reviews.graphql` → `reviews`); `=url` gives its
 * routing URL. A composition error is printed as one numbered list, and the exit code is 1 (2 for bad arguments).
 */
import { composeServices, type ServiceDefinition } from '@theguild/federation-composition';
import { parse, type GraphQLError } from 'graphql';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { subgraphSdl } from '../schema/build.js';

/** What `npm start` serves by default (PORT 4000 on loopback). */
const DEFAULT_URL = 'http://127.0.0.1:4000/graphql';

function usage(message: string): never {
  console.error(`${message}\nusage: npm run supergraph -- [--out supergraph.graphql] [--url ${DEFAULT_URL}] [--name gateway] [subgraph.graphql[=http://host/graphql] …]`);
  process.exit(2);
}

/** `reviews.graphql=http://…` → the subgraph named `reviews` at that URL. */
async function subgraphFromArgument(argument: string): Promise<ServiceDefinition> {
  const at = argument.search(/=https?:\/\//);
  const file = at === -1 ? argument : argument.slice(0, at);
  const url = at === -1 ? undefined : argument.slice(at + 1);
  const name = basename(file, extname(file)).replace(/[^A-Za-z0-9_]/g, '_');
  let text: string;
  try {
    text = await readFile(resolve(file), 'utf8');
  } catch (error) {
    usage(`cannot read subgraph SDL ${file}: ${(error as Error).message}`);
  }
  try {
    return { name, url, typeDefs: parse(text) };
  } catch (error) {
    usage(`${file} is not GraphQL SDL: ${(error as Error).message}`);
  }
}

/** Each error once, with its subgraph-independent code, as one readable list. */
function describeErrors(errors: readonly GraphQLError[]): string {
  const lines = errors.map((e, i) => {
    const code = typeof e.extensions?.code === 'string' ? ` [${e.extensions.code}]` : '';
    return `  ${i + 1}. ${e.message}${code}`;
  });
  return `Composition failed with ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${lines.join('\n')}`;
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { out: { type: 'string', default: 'supergraph.graphql' }, url: { type: 'string', default: DEFAULT_URL }, name: { type: 'string', default: 'gateway' } },
    });
  } catch (error) {
    usage((error as Error).message);
  }
})();

const subgraphs: ServiceDefinition[] = [{ name: values.name, url: values.url, typeDefs: parse(await subgraphSdl()) }];
for (const argument of positionals) subgraphs.push(await subgraphFromArgument(argument));
const names = subgraphs.map((s) => s.name);
const twice = names.find((n, i) => names.indexOf(n) !== i);
if (twice) usage(`two subgraphs are named ${twice}: rename one of the files (the subgraph name is the file name).`);

const result = composeServices(subgraphs);
if (result.errors) {
  console.error(describeErrors(result.errors));
  process.exit(1);
}
await writeFile(values.out, result.supergraphSdl);
const missing = subgraphs.filter((s) => !s.url).map((s) => s.name);
console.log(`wrote ${values.out}: ${subgraphs.map((s) => `${s.name} (${s.url ?? 'no URL'})`).join(', ')}`);
if (missing.length) console.log(`note: no routing URL for ${missing.join(', ')}; give one as file.graphql=http://… or set it in the router.`);
