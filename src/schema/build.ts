import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import {
  buildASTSchema,
  concatAST,
  GraphQLScalarType,
  isObjectType,
  isScalarType,
  isUnionType,
  Kind,
  lexicographicSortSchema,
  parse,
  printSchema,
  type DefinitionNode,
  type DocumentNode,
  Source,
  type GraphQLSchema,
} from 'graphql';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GATEWAY_DOMAINS, type GatewayDomain, type SubgraphOptions } from '../config/env.js';
import { badInput } from '../errors/codes.js';
import { domainOfFile, recordDomains, ROOT_TYPES } from './domains.js';
import { planRenames, renameTypes } from './renames.js';
import { recordServedNames } from '../planning/servedNames.js';
import { withDomainTags, withOverrides } from './routerDirectives.js';
import type { Resolvers } from '../generated/resolvers.js';
import { cacheTagFormats, costHints, servedDomains } from '../domains/index.js';
import { withCacheTags } from './cacheTags.js';
import { withCostDirectives, withoutSlicingDefaults } from './costDirectives.js';
import { withIncrementalDirectives } from '../execution/deferStream.js';

/** `schema/` at the project root; the same relative path from `src/schema` and `dist/schema`. */
export const schemaDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'schema');

/** The generated public schema at the project root (`npm run schema`), for frontends' code generators. */
export const publicSchemaFile = join(schemaDir, '..', 'schema.graphql');

/** Every `schema/*.graphql` file as one document; each definition keeps its file's name as its source (domainOf). */
async function allTypeDefs(): Promise<DocumentNode> {
  const files = (await readdir(schemaDir)).filter((f) => f.endsWith('.graphql')).sort();
  const texts = await Promise.all(files.map((f) => readFile(join(schemaDir, f), 'utf8')));
  return concatAST(texts.map((text, i) => parse(new Source(text, files[i]))));
}

/**
 * The definitions of the given domains (one file or more per domain, plus `common.graphql` and the federation `@link`)
 * as one document. Domains only extend the root types; a root type no served file defines (no domain with mutations,
 * say) is defined by its first extension.
 */
function servedDefinitions(all: DocumentNode, domains: readonly GatewayDomain[]): DocumentNode {
  const served = all.definitions.filter((d) => {
    const domain = d.loc && domainOfFile(d.loc.source.name);
    return !domain || domains.includes(domain);
  });
  const defined = new Set(served.flatMap((d) => (d.kind === Kind.OBJECT_TYPE_DEFINITION ? [d.name.value] : [])));
  const definitions = served.map((d): DefinitionNode => {
    if (d.kind !== Kind.OBJECT_TYPE_EXTENSION || !ROOT_TYPES.has(d.name.value) || defined.has(d.name.value)) return d;
    defined.add(d.name.value);
    return { ...d, kind: Kind.OBJECT_TYPE_DEFINITION };
  });
  return { ...all, definitions };
}

/** The SDL of the given domains with the names of `schema/` and no directive added: codegen's and the public schema's view. */
export async function subgraphTypeDefs(domains: readonly GatewayDomain[] = GATEWAY_DOMAINS): Promise<DocumentNode> {
  return servedDefinitions(await allTypeDefs(), domains);
}

/**
 * The SDL a router reads from this subgraph: the served domains' definitions with their `@tag`s, `@cost` and `@listSize`
 * (and `@cacheTag` when routers are told of changes), renamed
 * (SUBGRAPH_TYPE_PREFIX, SUBGRAPH_RENAMES), with the `@override`s of SUBGRAPH_OVERRIDES; and the renames made.
 * Renames and overrides are checked against every domain, so a typo stops start-up whichever domains are served.
 */
async function routerTypeDefs(
  domains: readonly GatewayDomain[],
  options: SubgraphOptions,
): Promise<{ typeDefs: DocumentNode; renames: ReadonlyMap<string, string> }> {
  const all = await allTypeDefs();
  const renames = planRenames(all, options);
  const tagged = withDomainTags(servedDefinitions(all, domains));
  const cached = options.cacheTags ? withCacheTags(tagged, cacheTagFormats) : tagged;
  const typeDefs = renameTypes(withCostDirectives(cached, costHints), renames);
  return { typeDefs: withOverrides(typeDefs, options.overrides ?? [], renameTypes(all, renames)), renames };
}

/**
 * The executable schema: a Federation v2 subgraph (`_service`, `_entities`, `__resolveReference` per entity) over the
 * SDL and resolvers of the served domains (GATEWAY_DOMAINS), its types named as `options` says. Served standalone it
 * answers exactly as a plain schema would.
 */
export function buildSchema(
  domains: readonly GatewayDomain[] = GATEWAY_DOMAINS,
  options: SubgraphOptions = {},
): Promise<GraphQLSchema> {
  const key = JSON.stringify([domains, options]);
  let schema = built.get(key);
  if (!schema) {
    schema = buildOnce(domains, options);
    built.set(key, schema);
    // A refused configuration (a bad rename, say) is refused again on the next start, not remembered.
    schema.catch(() => built.delete(key));
  }
  return schema;
}

/**
 * The schemas built in this process, by served domains and options. A gateway process builds one, but the test suite
 * and the in-process benchmarks start hundreds of gateways in one process, and each build (Apollo's subgraph
 * validation and printing) costs ~30 ms of CPU. Nothing changes a schema once built (its resolvers read their
 * gateway's state from the context), so gateways of the same configuration can share one.
 */
const built = new Map<string, Promise<GraphQLSchema>>();

async function buildOnce(domains: readonly GatewayDomain[], options: SubgraphOptions): Promise<GraphQLSchema> {
  const { typeDefs, renames } = await routerTypeDefs(domains, options);
  const merged = renameResolvers(mergeResolvers(servedDomains(domains).map((d) => d.resolvers)), renames);
  // The generated resolver types and @apollo/subgraph's own map type describe the same shape differently.
  const schema = withoutSlicingDefaults(buildSubgraphSchema({ typeDefs, resolvers: merged as never }));
  assertResolversMatchSchema(schema, merged);
  checkRepresentations(schema, renames.get('Title') ?? 'Title');
  // `@defer`/`@stream` are the gateway's own: executable and introspectable, but not in the SDL a router composes.
  const served = withIncrementalDirectives(schema);
  recordDomains(served, typeDefs);
  recordServedNames(served, renames);
  return served;
}

/** The resolver map under the served type names; a renamed scalar gets a copy under its new name (@apollo/subgraph copies every property of a scalar, its name too). */
function renameResolvers(map: Record<string, unknown>, renames: ReadonlyMap<string, string>): Record<string, unknown> {
  if (renames.size === 0) return map;
  return Object.fromEntries(
    Object.entries(map).map(([type, value]) => {
      const to = renames.get(type);
      if (to === undefined) return [type, value];
      return [to, isScalarType(value) ? new GraphQLScalarType({ ...value.toConfig(), name: to }) : value];
    }),
  );
}

/**
 * `_entities` checks its representations before @apollo/subgraph reads them: a representation that is not an object
 * or names no entity of this subgraph is BAD_USER_INPUT naming it, where the library would fail with an internal error.
 */
function checkRepresentations(schema: GraphQLSchema, titleType: string): void {
  const field = schema.getQueryType()?.getFields()._entities;
  const entity = schema.getType('_Entity');
  if (!field?.resolve || !isUnionType(entity)) return;
  const resolve = field.resolve;
  const entities = entity.getTypes().map((t) => t.name);
  field.resolve = (source, args: { representations: unknown[] }, ctx, info) => {
    args.representations.forEach((r, i) => {
      const typename =
        r && typeof r === 'object' && !Array.isArray(r) ? (r as { __typename?: unknown }).__typename : undefined;
      if (typeof typename !== 'string' || !entities.includes(typename)) {
        throw badInput(
          `representations[${i}]: ${JSON.stringify(r)?.slice(0, 80)} is not a reference to an entity of this subgraph; send an object whose __typename is one of ${entities.join(', ')}, with its key, e.g. {"__typename": "${titleType}", "imdbId": "tt0078346"}.`,
          'representations',
        );
      }
    });
    // Settled here, failures as Error items: graphql-js and graphql-jit both make such an item null with its own
    // error, while graphql-jit 0.8.9 misplaces the null of a rejected promise inside a list (execution.ts). The
    // upstream budget admitted the call whole or refused it before this ran (pipeline/rules/upstreamBudget.ts).
    const list = resolve(source, args, ctx, info) as unknown[];
    return Promise.all(
      list.map((item) =>
        Promise.resolve(item).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
      ),
    );
  };
}

/** The domains' resolver maps as one; only the root types are shared between domains. */
function mergeResolvers(list: readonly Resolvers[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const domain of list) {
    for (const [type, value] of Object.entries(domain)) {
      out[type] = isScalarType(value) ? value : { ...(out[type] as object | undefined), ...(value as object) };
    }
  }
  return out;
}

/** `buildSubgraphSchema` skips resolvers of unknown fields silently; a typo must fail at start-up instead. */
function assertResolversMatchSchema(schema: GraphQLSchema, map: Record<string, unknown>): void {
  for (const [typeName, value] of Object.entries(map)) {
    const type = schema.getType(typeName);
    if (!type) throw new Error(`Resolvers are defined for ${typeName}, which schema/*.graphql does not define.`);
    if (!isObjectType(type)) continue;
    const fields = type.getFields();
    for (const field of Object.keys(value as object)) {
      if (!field.startsWith('__') && !fields[field])
        throw new Error(
          `Resolver ${typeName}.${field} is defined, but ${typeName} has no field ${field} in schema/*.graphql.`,
        );
    }
  }
}

/** This subgraph's SDL as a router reads it from `_service { sdl }` (federation directives included). */
export async function subgraphSdl(
  domains: readonly GatewayDomain[] = GATEWAY_DOMAINS,
  options: SubgraphOptions = {},
): Promise<string> {
  return printSubgraphSchema(buildSubgraphSchema({ typeDefs: (await routerTypeDefs(domains, options)).typeDefs }));
}

/** `_entities`, `_service`, `_Any`, `link__Import`, `federation__FieldSet`: the federation machinery. */
const isFederationInternal = (name: string) => name.startsWith('_') || name.includes('__');

/**
 * The public API schema, printed and sorted, with descriptions: what a client may query, without the federation
 * machinery (`_entities`, `_service`, their types, the federation directives), so frontends can feed it to GraphQL
 * Code Generator's client preset instead of introspecting.
 */
export async function printPublicSchema(): Promise<string> {
  const typeDefs = await subgraphTypeDefs();
  const ownDirectives = new Set(
    typeDefs.definitions.flatMap((d) => (d.kind === Kind.DIRECTIVE_DEFINITION ? [d.name.value] : [])),
  );
  const printed = parse(printSchema(buildSubgraphSchema({ typeDefs })));
  const definitions = printed.definitions.flatMap((d): DefinitionNode[] => {
    if (d.kind === Kind.DIRECTIVE_DEFINITION) return ownDirectives.has(d.name.value) ? [d] : [];
    if (!('name' in d) || !d.name) return [d];
    if (isFederationInternal(d.name.value)) return [];
    if (d.kind === Kind.OBJECT_TYPE_DEFINITION)
      return [{ ...d, fields: d.fields?.filter((f) => !isFederationInternal(f.name.value)) }];
    return [d];
  });
  return (
    printSchema(
      lexicographicSortSchema(withIncrementalDirectives(buildASTSchema({ kind: Kind.DOCUMENT, definitions }))),
    ) + '\n'
  );
}
