import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  isObjectType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';
import { argumentsOf } from './arguments.js';
import { servedTypeName } from './servedNames.js';

/** What walking a selection needs from the resolver's `info`. */
export type SelectionContext = Pick<GraphQLResolveInfo, 'schema' | 'fragments' | 'variableValues'>;

/** One response key selected on a type: the field, its coerced arguments, and every node that selects it. */
export interface SelectedField {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly nodes: FieldNode[];
}

function included(node: { directives?: readonly unknown[] }, sc: SelectionContext): boolean {
  const n = node as Parameters<typeof getDirectiveValues>[1];
  if (getDirectiveValues(GraphQLSkipDirective, n, sc.variableValues)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, n, sc.variableValues)?.if !== false;
}

function applies(typeCondition: string | undefined, typeName: string, sc: SelectionContext): boolean {
  if (!typeCondition || typeCondition === typeName) return true;
  const condition = sc.schema.getType(typeCondition);
  const type = sc.schema.getType(typeName);
  return !!condition && isAbstractType(condition) && isObjectType(type) && sc.schema.isSubType(condition, type);
}

function collect(
  set: SelectionSetNode | undefined,
  typeName: string,
  sc: SelectionContext,
  out: Map<string, FieldNode[]>,
  seen: Set<string>,
): void {
  for (const s of set?.selections ?? []) {
    if (!included(s, sc)) continue;
    if (s.kind === 'Field') {
      const key = s.alias?.value ?? s.name.value;
      out.set(key, [...(out.get(key) ?? []), s]);
    } else if (s.kind === 'InlineFragment') {
      if (applies(s.typeCondition?.name.value, typeName, sc)) collect(s.selectionSet, typeName, sc, out, seen);
    } else {
      const name = s.name.value;
      const fragment = sc.fragments[name];
      if (!fragment || seen.has(name) || !applies(fragment.typeCondition.name.value, typeName, sc)) continue;
      seen.add(name);
      collect(fragment.selectionSet, typeName, sc, out, seen);
      seen.delete(name);
    }
  }
}

/**
 * The fields the given nodes select on an object of `type` (named as in `schema/`, whatever SUBGRAPH_TYPE_PREFIX or
 * SUBGRAPH_RENAMES serve it as), by response key, as graphql-js would execute them: aliases apart, inline and named
 * fragments merged, `@skip`/`@include` applied with the operation's variables.
 */
export function selectedFields(nodes: readonly FieldNode[], type: string, sc: SelectionContext): SelectedField[] {
  const typeName = servedTypeName(sc.schema, type);
  const byKey = new Map<string, FieldNode[]>();
  for (const node of nodes) collect(node.selectionSet, typeName, sc, byKey, new Set());
  const served = sc.schema.getType(typeName);
  const defs = isObjectType(served) ? served.getFields() : {};
  const out: SelectedField[] = [];
  for (const fieldNodes of byKey.values()) {
    const name = fieldNodes[0].name.value;
    const def = defs[name];
    out.push(new Selected(name, fieldNodes, def, sc.variableValues));
  }
  return out;
}

/**
 * A {@link SelectedField} whose arguments are coerced when first read: a walk that reads only some fields' arguments
 * (the cost plan reads a list's `first`) neither pays for the others nor reads the variables they name, so its result
 * can be kept for the document alone (memo.ts, `watched`).
 */
class Selected implements SelectedField {
  private coerced: Record<string, unknown> | undefined;

  constructor(
    readonly name: string,
    readonly nodes: FieldNode[],
    private readonly def: GraphQLField<unknown, unknown> | undefined,
    private readonly variables: Record<string, unknown>,
  ) {}

  get args(): Record<string, unknown> {
    return (this.coerced ??= this.def ? argumentsOf(this.def, this.nodes[0], this.variables) : {});
  }
}

/** The node-level field nodes under a connection selection: `nodes { … }` and `edges { node { … } }`. */
export function connectionNodes(
  nodes: readonly FieldNode[],
  connectionType: string,
  edgeType: string,
  sc: SelectionContext,
): FieldNode[] {
  const out: FieldNode[] = [];
  for (const f of selectedFields(nodes, connectionType, sc)) {
    if (f.name === 'nodes') out.push(...f.nodes);
    if (f.name === 'edges')
      for (const e of selectedFields(f.nodes, edgeType, sc)) if (e.name === 'node') out.push(...e.nodes);
  }
  return out;
}

/**
 * Whether the fields `set` selects (on any type) can change with the operation's variables: only an `@skip` or
 * `@include` whose condition is a variable, on a selection of the set or of the fragments it spreads, makes them vary.
 * Decided once per selection set of a cached document, so that a walk of a document without such directives is kept
 * by the document alone, not once per variables.
 */
export function selectionVaries(
  set: SelectionSetNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
): boolean {
  let found = varyingSets.get(set);
  if (found === undefined) varyingSets.set(set, (found = varies(set, fragments, new Set())));
  return found;
}

/** By selection set of a cached document: goes with the document, never grows with requests. */
const varyingSets = new WeakMap<SelectionSetNode, boolean>();

function varies(
  set: SelectionSetNode,
  fragments: Readonly<Record<string, FragmentDefinitionNode>>,
  seen: Set<string>,
): boolean {
  for (const s of set.selections) {
    for (const d of s.directives ?? [])
      if (
        (d.name.value === 'skip' || d.name.value === 'include') &&
        d.arguments?.some((a) => a.value.kind !== Kind.BOOLEAN)
      )
        return true;
    if (s.kind === Kind.INLINE_FRAGMENT && varies(s.selectionSet, fragments, seen)) return true;
    if (s.kind === Kind.FRAGMENT_SPREAD && !seen.has(s.name.value)) {
      seen.add(s.name.value);
      const fragment = fragments[s.name.value];
      if (fragment && varies(fragment.selectionSet, fragments, seen)) return true;
    }
  }
  return false;
}
