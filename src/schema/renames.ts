/**
 * The subgraph's type names as a router sees them (SUBGRAPH_TYPE_PREFIX, SUBGRAPH_RENAMES). The rename is made once,
 * on the SDL before the executable schema is built: the schema then has the served names, so `__typename` in answers,
 * the `__typename` of the representations `_entities` reads and the `_service` SDL all agree, at no cost per
 * operation. The built schema's renames are recorded for the planners (src/planning/servedNames.ts); documents
 * written with the names of `schema/` (trusted operations, GraphiQL's examples) are renamed with {@link renameTypes}.
 * Without a prefix or renames nothing changes.
 */
import {
  Kind,
  parse,
  print,
  visit,
  type ASTNode,
  type DefinitionNode,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { ConfigError, type SubgraphOptions } from '../config/env.js';
import { servedNames } from '../planning/servedNames.js';
import { domainOfFile, ROOT_TYPES } from './domains.js';

/** A type definition or extension, which carries the type's name. */
const TYPE_KINDS: ReadonlySet<string> = new Set([
  Kind.OBJECT_TYPE_DEFINITION,
  Kind.OBJECT_TYPE_EXTENSION,
  Kind.INTERFACE_TYPE_DEFINITION,
  Kind.INTERFACE_TYPE_EXTENSION,
  Kind.UNION_TYPE_DEFINITION,
  Kind.UNION_TYPE_EXTENSION,
  Kind.ENUM_TYPE_DEFINITION,
  Kind.ENUM_TYPE_EXTENSION,
  Kind.INPUT_OBJECT_TYPE_DEFINITION,
  Kind.INPUT_OBJECT_TYPE_EXTENSION,
  Kind.SCALAR_TYPE_DEFINITION,
  Kind.SCALAR_TYPE_EXTENSION,
]);

/** Relay's page info, `@shareable` with every other subgraph's identical one: it keeps its name under a prefix. */
const SHARED_WITH_OTHER_SUBGRAPHS: ReadonlySet<string> = new Set(['PageInfo']);

type TypeDefinition = DefinitionNode & { name: { value: string } };
const isType = (d: DefinitionNode | ASTNode): d is TypeDefinition => TYPE_KINDS.has(d.kind);

/**
 * Old name to served name for every type of `document` (every domain's `schema/` files, served or not, so a typo is
 * found whichever domains an instance serves) that a router sees under another name. The prefix goes before the
 * domains' own types, not before `PageInfo`, the root types, scalars (a wire format, which composes by name with
 * other subgraphs' scalars) or what `common.graphql` defines; a type named in `renames` gets that name instead. Throws a ConfigError naming the variable when a
 * renamed type does not exist or two types would end up with one name.
 */
export function planRenames(document: DocumentNode, options: SubgraphOptions): ReadonlyMap<string, string> {
  const { typePrefix, renames = {} } = options;
  const types = new Map<string, { prefixed: boolean }>();
  for (const d of document.definitions) {
    if (!isType(d) || ROOT_TYPES.has(d.name.value)) continue;
    const ownDomain = d.loc !== undefined && domainOfFile(d.loc.source.name) !== undefined;
    const scalar = d.kind === Kind.SCALAR_TYPE_DEFINITION || d.kind === Kind.SCALAR_TYPE_EXTENSION;
    const known = types.get(d.name.value);
    types.set(d.name.value, {
      prefixed: (known?.prefixed ?? true) && ownDomain && !scalar && !SHARED_WITH_OTHER_SUBGRAPHS.has(d.name.value),
    });
  }
  for (const old of Object.keys(renames)) {
    if (ROOT_TYPES.has(old))
      throw new ConfigError(
        'SUBGRAPH_RENAMES',
        `${old} is a root type, which keeps its name in every subgraph; rename the types below it instead.`,
      );
    if (!types.has(old))
      throw new ConfigError(
        'SUBGRAPH_RENAMES',
        `${old} is not a type of this graph (schema/*.graphql); the types are named as in schema.graphql, e.g. Title, ChatMessage, OrderDirection.`,
      );
  }
  const served = new Map<string, string>();
  for (const [name, { prefixed }] of types) {
    const to = renames[name] ?? (typePrefix && prefixed ? `${typePrefix}${name}` : name);
    if (to !== name) served.set(name, to);
  }
  const byServedName = new Map<string, string>();
  for (const name of types.keys()) {
    const to = served.get(name) ?? name;
    const other = byServedName.get(to);
    if (other !== undefined) {
      const variable =
        renames[name] !== undefined || renames[other] !== undefined ? 'SUBGRAPH_RENAMES' : 'SUBGRAPH_TYPE_PREFIX';
      throw new ConfigError(
        variable,
        `${other} and ${name} would both be named ${to} as the router sees them; give one of them another name in SUBGRAPH_RENAMES.`,
      );
    }
    byServedName.set(to, name);
  }
  return served;
}

/** `document` with every type definition, extension and reference renamed by `renames` (SDL and operations alike). */
export function renameTypes<T extends DocumentNode>(document: T, renames: ReadonlyMap<string, string>): T {
  if (renames.size === 0) return document;
  const rename = <N extends { name: { value: string } }>(node: N): N | undefined => {
    const to = renames.get(node.name.value);
    return to === undefined ? undefined : { ...node, name: { ...node.name, value: to } };
  };
  return visit(document, {
    enter(node) {
      if (node.kind === Kind.NAMED_TYPE || isType(node)) return rename(node as TypeDefinition);
      return undefined;
    },
  });
}

/** An operation's text written with the names of `schema/`, with the names `schema` serves (reprinted only when they differ). */
export function servedOperationText(text: string, schema: GraphQLSchema): string {
  const renames = servedNames(schema);
  return renames.size === 0 ? text : print(renameTypes(parse(text), renames));
}
