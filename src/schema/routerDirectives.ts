/**
 * Federation directives a router reads, added to the SDL at build time rather than written in `schema/` by hand:
 * `@tag(name: "<domain>")` on each domain's types and root fields, so a contract variant can take or drop a domain
 * (the tags follow the files, so a new type cannot miss its tag), and `@override` on the fields SUBGRAPH_OVERRIDES
 * takes over from another subgraph.
 */
import {
  Kind,
  type ConstDirectiveNode,
  type DefinitionNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type TypeNode,
} from 'graphql';
import { ConfigError, type FieldOverride } from '../config/env.js';
import { domainOfFile, ROOT_TYPES } from './domains.js';

function directive(name: string, args: Record<string, string>): ConstDirectiveNode {
  return {
    kind: Kind.DIRECTIVE,
    name: { kind: Kind.NAME, value: name },
    arguments: Object.entries(args).map(([arg, value]) => ({
      kind: Kind.ARGUMENT,
      name: { kind: Kind.NAME, value: arg },
      value: { kind: Kind.STRING, value },
    })),
  };
}

const hasDirective = (node: { directives?: readonly ConstDirectiveNode[] }, name: string) =>
  node.directives?.some((d) => d.name.value === name) ?? false;

const TAGGED_KINDS: ReadonlySet<string> = new Set([
  Kind.OBJECT_TYPE_DEFINITION,
  Kind.INTERFACE_TYPE_DEFINITION,
  Kind.UNION_TYPE_DEFINITION,
  Kind.ENUM_TYPE_DEFINITION,
  Kind.INPUT_OBJECT_TYPE_DEFINITION,
  Kind.SCALAR_TYPE_DEFINITION,
]);

/**
 * `document` with `@tag(name: "<domain>")` on every type a domain's file defines and on every root field it adds.
 * Left untagged: what `common.graphql` and `subgraph.graphql` define, `@shareable` value types (`PageInfo`,
 * `ItemBody`…) and the types those refer to (`BodyType`): other subgraphs define them too, and a contract that drops
 * this domain must neither take them from theirs nor leave a kept type referring to a dropped one (a contract drops
 * them anyway where nothing reaches them).
 */
export function withDomainTags(document: DocumentNode): DocumentNode {
  const shared = sharedTypes(document);
  const definitions = document.definitions.map((d): DefinitionNode => {
    const domain = d.loc && domainOfFile(d.loc.source.name);
    if (!domain || !('name' in d) || !d.name) return d;
    const tag = directive('tag', { name: domain });
    if (ROOT_TYPES.has(d.name.value) && 'fields' in d) {
      const fields = (d.fields as readonly FieldDefinitionNode[] | undefined)?.map((f) => ({
        ...f,
        directives: [...(f.directives ?? []), tag],
      }));
      return { ...d, fields } as DefinitionNode;
    }
    if (!TAGGED_KINDS.has(d.kind) || shared.has(d.name.value)) return d;
    return {
      ...d,
      directives: [...((d as { directives?: readonly ConstDirectiveNode[] }).directives ?? []), tag],
    } as DefinitionNode;
  });
  return { ...document, definitions };
}

/** The `@shareable` types of `document` and every type their fields and arguments refer to, transitively. */
function sharedTypes(document: DocumentNode): Set<string> {
  const byName = new Map<string, DefinitionNode>();
  for (const d of document.definitions)
    if ('name' in d && d.name && TAGGED_KINDS.has(d.kind)) byName.set(d.name.value, d);
  const shared = new Set<string>();
  const visit = (name: string) => {
    const d = byName.get(name);
    if (!d || shared.has(name)) return;
    shared.add(name);
    const fields =
      ('fields' in d
        ? (d.fields as readonly { type: TypeNode; arguments?: readonly { type: TypeNode }[] }[] | undefined)
        : undefined) ?? [];
    for (const f of fields) for (const t of [f.type, ...(f.arguments ?? []).map((a) => a.type)]) visit(namedType(t));
  };
  for (const [name, d] of byName)
    if (hasDirective(d as { directives?: readonly ConstDirectiveNode[] }, 'shareable')) visit(name);
  return shared;
}

const namedType = (t: TypeNode): string => (t.kind === Kind.NAMED_TYPE ? t.name.value : namedType(t.type));

/**
 * `document` (with the names a router sees) with `@override(from:, label:)` on each field of `overrides` it defines.
 * `all` is every domain's SDL under the same names: an override naming a field none of them has stops start-up; one
 * for a domain this instance does not serve is left to the instance that does.
 */
export function withOverrides(
  document: DocumentNode,
  overrides: readonly FieldOverride[],
  all: DocumentNode,
): DocumentNode {
  if (overrides.length === 0) return document;
  const exists = (doc: DocumentNode, o: FieldOverride) =>
    doc.definitions.some(
      (d) =>
        'name' in d &&
        d.name?.value === o.type &&
        'fields' in d &&
        (d.fields as readonly { name: { value: string } }[] | undefined)?.some((f) => f.name.value === o.field),
    );
  for (const o of overrides) {
    if (!exists(all, o))
      throw new ConfigError(
        'SUBGRAPH_OVERRIDES',
        `${o.type}.${o.field} is not a field of this graph as a router sees it; name the type with its served name (after SUBGRAPH_TYPE_PREFIX and SUBGRAPH_RENAMES) and one of its fields.`,
      );
  }
  const definitions = document.definitions.map((d): DefinitionNode => {
    if (!('name' in d) || !d.name || !('fields' in d) || !d.fields) return d;
    const typeName = d.name.value;
    const mine = overrides.filter((o) => o.type === typeName);
    if (mine.length === 0) return d;
    const fields = (d.fields as readonly FieldDefinitionNode[]).map((f) => {
      const o = mine.find((x) => x.field === f.name.value);
      if (!o) return f;
      return {
        ...f,
        directives: [
          ...(f.directives ?? []),
          directive('override', { from: o.from, ...(o.label === undefined ? {} : { label: o.label }) }),
        ],
      };
    });
    return { ...d, fields } as DefinitionNode;
  });
  return { ...document, definitions };
}
