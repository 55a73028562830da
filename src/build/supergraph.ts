/**
 * `npm run supergraph -- [--out file] [--url url] [--name name] [--instance domains=url …] [--exclude-tag tag …]
 *   [subgraph.graphql[=url] …]`
 *
 * Composes this gateway's subgraph with the subgraph SDL files given (Apollo Federation v2, with
 * @theguild/federation-composition: no network, no CLI download) and writes the supergraph SDL that Apollo Router or
 * Hive Gateway serves. The subgraph is the one the environment (and `.env`, as `npm start` reads it) configures
 * (GATEWAY_DOMAINS, SUBGRAPH_TYPE_PREFIX, SUBGRAPH_RENAMES, SUBGRAPH_OVERRIDES); `--instance enterprise,gateway=http://…` (repeated) composes one instance per
 * set of domains instead, each named after its domains (`enterprise_gateway`). Each file's subgraph is named after the
 * file (`people.graphql` → `people`); `=url` gives its routing URL. `--exclude-tag chat` writes a contract variant:
 * the elements so tagged (each domain's `@tag(name: "<domain>")`) are left out, and what nothing reaches any more. A composition error is printed as one numbered list, and the exit code
 * is 1 (2 for bad arguments or configuration). `supergraph()` is the same run as a function (the tests' failure paths call it
 * in-process: a spawned run is ≈ 1.2 s of CPU, mostly Node's start and the schema's imports).
 */
import { composeSchemaContract, composeServices, type ServiceDefinition } from '@theguild/federation-composition';
import { isTypeDefinitionNode, isTypeExtensionNode, parse, type GraphQLError } from 'graphql';
import { readFile, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, GATEWAY_DOMAINS, loadConfig, type GatewayDomain } from '../config/env.js';
import { subgraphSdl } from '../schema/build.js';

/** Ends a run with an exit code, where the command would call `process.exit`. */
class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** Where a run writes: the console for the command. */
export interface SupergraphOutput {
  log(line: string): void;
  error(line: string): void;
}

let out: SupergraphOutput = console;

const USAGE = `usage: npm run supergraph -- [--out supergraph.graphql] [--url http://HOST:PORT/graphql] [--name gateway] [--instance enterprise,gateway=http://host/graphql …] [--exclude-tag chat …] [subgraph.graphql[=http://host/graphql] …]`;

function usage(message: string): never {
  out.error(`${message}\n${USAGE}`);
  throw new Exit(2);
}

/** Where `npm start` serves with this configuration (HOST and PORT); a wildcard address is reached on loopback. */
function servedUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}/graphql`;
}

/** `people.graphql=http://…` → the subgraph named `people` at that URL. */
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

/** `enterprise,gateway=http://…` → the domains and the URL of one instance of this gateway. */
function instanceFromArgument(argument: string): {
  domains: GatewayDomain[];
  url: string;
} {
  const at = argument.search(/=https?:\/\//);
  if (at === -1)
    usage(
      `--instance ${argument}: write the instance's domains and its URL, e.g. --instance enterprise,gateway=http://ops-enterprise:4000/graphql`,
    );
  const named = argument
    .slice(0, at)
    .split(',')
    .map((d) => d.trim());
  const unknown = named.find((d) => !(GATEWAY_DOMAINS as readonly string[]).includes(d));
  if (unknown !== undefined || named.length === 0)
    usage(
      `--instance ${argument}: ${JSON.stringify(unknown ?? '')} is not a domain; use some of ${GATEWAY_DOMAINS.join(', ')}`,
    );
  return { domains: named as GatewayDomain[], url: argument.slice(at + 1) };
}

/** Each error once, with its subgraph-independent code, as one readable list. */
function describeErrors(errors: readonly GraphQLError[]): string {
  const lines = errors.map((e, i) => {
    const code = typeof e.extensions?.code === 'string' ? ` [${e.extensions.code}]` : '';
    return `  ${i + 1}. ${e.message}${code}`;
  });
  return `Composition failed with ${errors.length} error${errors.length === 1 ? '' : 's'}:\n${lines.join('\n')}`;
}

/**
 * When errors name types that this subgraph and another define both (a company's own `Title`), what renames this
 * subgraph's: the two merge into one type neither subgraph can fully resolve, and composition reports dozens of errors
 * that never name the cause. Undefined when no error names such a type, or a prefix or renames are set already.
 */
function collisionHint(
  errors: readonly GraphQLError[],
  subgraphs: readonly ServiceDefinition[],
  ours: number,
  config: ReturnType<typeof loadConfig>,
): string | undefined {
  if (config.subgraph.typePrefix || Object.keys(config.subgraph.renames ?? {}).length) return undefined;
  const defined = (s: ServiceDefinition) =>
    new Set(
      s.typeDefs.definitions.flatMap((d) => (isTypeDefinitionNode(d) || isTypeExtensionNode(d) ? [d.name.value] : [])),
    );
  const ourTypes = new Set(subgraphs.slice(0, ours).flatMap((s) => [...defined(s)]));
  const theirs = subgraphs.slice(ours).map((s) => ({ name: s.name, types: defined(s) }));
  // The root types and shared value types (PageInfo, the scalars) compose by name on purpose.
  const shared = new Set(['Query', 'Mutation', 'Subscription', 'PageInfo', 'DateTime', 'Date', 'JSONObject']);
  const clashes = new Map<string, string[]>();
  for (const { name, types } of theirs)
    for (const type of types)
      if (ourTypes.has(type) && !shared.has(type)) clashes.set(type, [...(clashes.get(type) ?? []), name]);
  if (!clashes.size) return undefined;
  const named = errors.filter((e) => [...clashes.keys()].some((t) => new RegExp(`\\b${t}\\b`).test(e.message)));
  if (!named.length) return undefined;
  const list = [...clashes].map(([type, files]) => `${type} (also in ${files.join(', ')})`).join(', ');
  return `hint: ${named.length} of these errors name types both this subgraph and yours define: ${list}. Give this subgraph's types names of their own with SUBGRAPH_TYPE_PREFIX=Ops (every type) or SUBGRAPH_RENAMES=${[...clashes.keys()][0]}=Movie (one type), then compose again (docs/federation.md, "Rename what collides").`;
}

/**
 * One run of the command over `args` (without node and the script) and `env`: 0 when the supergraph is written, 1 for
 * composition errors, 2 for bad arguments or configuration; what it says goes to `output`.
 */
export async function supergraph(
  args: string[],
  env: NodeJS.ProcessEnv,
  output: SupergraphOutput = console,
): Promise<number> {
  out = output;
  try {
    await run(args, env);
    return 0;
  } catch (error) {
    if (error instanceof Exit) return error.code;
    throw error;
  } finally {
    out = console;
  }
}

async function run(args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const { values, positionals } = (() => {
    try {
      return parseArgs({
        args,
        allowPositionals: true,
        options: {
          out: { type: 'string', default: 'supergraph.graphql' },
          url: { type: 'string' },
          name: { type: 'string', default: 'gateway' },
          instance: { type: 'string', multiple: true, default: [] },
          'exclude-tag': { type: 'string', multiple: true, default: [] },
        },
      });
    } catch (error) {
      usage((error as Error).message);
    }
  })();

  const config = (() => {
    try {
      return loadConfig(env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const p of error.problems) out.error(`configuration error: ${p.variable}: ${p.message}`);
      throw new Exit(2);
    }
  })();

  async function ourSdl(domains: readonly GatewayDomain[]): Promise<string> {
    try {
      return await subgraphSdl(domains, config.subgraph);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const p of error.problems) out.error(`configuration error: ${p.variable}: ${p.message}`);
      throw new Exit(2);
    }
  }

  const instances = values.instance.map(instanceFromArgument);
  const subgraphs: ServiceDefinition[] = instances.length
    ? await Promise.all(
        instances.map(async (i) => ({
          name: i.domains.join('_'),
          url: i.url,
          typeDefs: parse(await ourSdl(i.domains)),
        })),
      )
    : [
        {
          name: values.name,
          url: values.url ?? servedUrl(config.host, config.port),
          typeDefs: parse(await ourSdl(config.domains)),
        },
      ];
  for (const argument of positionals) subgraphs.push(await subgraphFromArgument(argument));
  const names = subgraphs.map((s) => s.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice)
    usage(
      `two subgraphs are named ${twice}: rename one of the files (the subgraph name is the file name), or give each instance other domains.`,
    );

  // Exclusion only: including by tag would also drop every untagged argument of the included fields.
  const filter = {
    include: new Set<string>(),
    exclude: new Set(values['exclude-tag']),
  };
  const contract = filter.exclude.size > 0;
  const result = contract ? composeSchemaContract(subgraphs, filter, true) : composeServices(subgraphs);
  if (result.errors) {
    out.error(describeErrors(result.errors));
    const hint = collisionHint(result.errors, subgraphs, subgraphs.length - positionals.length, config);
    if (hint) out.error(hint);
    throw new Exit(1);
  }
  await writeFile(values.out, result.supergraphSdl);
  const missing = subgraphs.filter((s) => !s.url).map((s) => s.name);
  const variant = contract ? ` (contract: without ${[...filter.exclude].join(', ')})` : '';
  out.log(`wrote ${values.out}${variant}: ${subgraphs.map((s) => `${s.name} (${s.url ?? 'no URL'})`).join(', ')}`);
  if (missing.length)
    out.log(
      `note: no routing URL for ${missing.join(', ')}; give one as file.graphql=http://… or set it in the router.`,
    );
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // The subgraph `npm start` serves: it reads `.env` too, when there is one (the environment wins).
  try {
    process.loadEnvFile('.env');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      console.error(`.env: ${(error as Error).message}\n${USAGE}`);
      process.exit(2);
    }
  }
  process.exitCode = await supergraph(process.argv.slice(2), process.env);
}
