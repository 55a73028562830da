/**
 * The demand-control directives a router reads (the IBM GraphQL cost directive specification, as Apollo Federation
 * 2.9 imports it), added to the SDL at build time from what the planners know (each domain's `cost.ts`, beside its
 * estimate) rather than written in `schema/` by hand:
 * - `@cost(weight:)` on every field that can send an upstream request of its own: an object field weighs
 *   1 + UPSTREAM_REQUEST_COST, a scalar one UPSTREAM_REQUEST_COST, where a field that reads its parent's answer
 *   weighs the default (an object 1, a scalar 0);
 * - `@listSize` on every list of objects: its size arguments (`first`, with the connection's `nodes` and `edges` as
 *   sized fields) and the size the planner assumes without them; a list no planner sizes gets DEFAULT_LIST_SIZE, so a
 *   router's own default never decides. `requireOneSlicingArgument` is false: `first` is optional in this graph.
 * A router counts each occurrence (it cannot see the planners' batching, deduplication or cache), so its estimate is
 * at least the gateway's own for the same list sizes.
 */
import {
  Kind,
  type ConstArgumentNode,
  type ConstDirectiveNode,
  type ConstValueNode,
  type DefinitionNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type TypeNode,
} from 'graphql';
import { DEFAULT_LIST_SIZE, UPSTREAM_REQUEST_COST, type CostHints, type ListSizeHint } from '../planning/cost.js';

const OBJECT_KINDS: ReadonlySet<string> = new Set([
  Kind.OBJECT_TYPE_DEFINITION,
  Kind.OBJECT_TYPE_EXTENSION,
  Kind.INTERFACE_TYPE_DEFINITION,
  Kind.INTERFACE_TYPE_EXTENSION,
]);
const COMPOSITE_KINDS: ReadonlySet<string> = new Set([
  Kind.OBJECT_TYPE_DEFINITION,
  Kind.INTERFACE_TYPE_DEFINITION,
  Kind.UNION_TYPE_DEFINITION,
]);

function value(v: number | boolean | string | readonly string[]): ConstValueNode {
  if (typeof v === 'number') return { kind: Kind.INT, value: String(v) };
  if (typeof v === 'boolean') return { kind: Kind.BOOLEAN, value: v };
  if (typeof v === 'string') return { kind: Kind.STRING, value: v };
  return { kind: Kind.LIST, values: v.map((s) => ({ kind: Kind.STRING, value: s })) };
}

function directive(
  name: string,
  args: Record<string, number | boolean | string | readonly string[] | undefined>,
): ConstDirectiveNode {
  const list: ConstArgumentNode[] = Object.entries(args)
    .filter((e): e is [string, number | boolean | string | readonly string[]] => e[1] !== undefined)
    .map(([arg, v]) => ({ kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: arg }, value: value(v) }));
  return { kind: Kind.DIRECTIVE, name: { kind: Kind.NAME, value: name }, arguments: list };
}

const namedType = (t: TypeNode): string => (t.kind === Kind.NAMED_TYPE ? t.name.value : namedType(t.type));
const isList = (t: TypeNode): boolean => (t.kind === Kind.NON_NULL_TYPE ? isList(t.type) : t.kind === Kind.LIST_TYPE);

function listSize(hint: ListSizeHint): ConstDirectiveNode {
  return directive('listSize', {
    assumedSize: hint.assumedSize,
    slicingArguments: hint.slicingArguments,
    sizedFields: hint.sizedFields,
    requireOneSlicingArgument: hint.slicingArguments?.length ? false : undefined,
  });
}

/** `document` (named as `schema/` names its types) with `@cost` and `@listSize` from `hints`, as the module comment says. */
export function withCostDirectives(document: DocumentNode, hints: CostHints): DocumentNode {
  const composite = new Set(
    document.definitions.flatMap((d) => (COMPOSITE_KINDS.has(d.kind) && 'name' in d && d.name ? [d.name.value] : [])),
  );
  // A connection's `nodes` and `edges` take their size from the field that returns the connection.
  const sized = new Set<string>();
  for (const d of document.definitions) {
    if (!OBJECT_KINDS.has(d.kind) || !('fields' in d)) continue;
    for (const f of (d.fields as readonly FieldDefinitionNode[] | undefined) ?? []) {
      for (const s of hints[`${d.name.value}.${f.name.value}`]?.listSize?.sizedFields ?? [])
        sized.add(`${namedType(f.type)}.${s}`);
    }
  }
  const definitions = document.definitions.map((d): DefinitionNode => {
    if (!OBJECT_KINDS.has(d.kind) || !('fields' in d) || !d.fields) return d;
    const typeName = d.name.value;
    const fields = (d.fields as readonly FieldDefinitionNode[]).map((f) => {
      const coordinate = `${typeName}.${f.name.value}`;
      const hint = hints[coordinate];
      const objects = composite.has(namedType(f.type));
      const added: ConstDirectiveNode[] = [];
      if (hint?.upstream) added.push(directive('cost', { weight: UPSTREAM_REQUEST_COST + (objects ? 1 : 0) }));
      if (hint?.listSize) added.push(listSize(hint.listSize));
      else if (objects && isList(f.type) && !sized.has(coordinate) && !f.name.value.startsWith('_'))
        added.push(listSize({ assumedSize: DEFAULT_LIST_SIZE }));
      return added.length ? { ...f, directives: [...(f.directives ?? []), ...added] } : f;
    });
    return { ...d, fields } as DefinitionNode;
  });
  return { ...document, definitions };
}
