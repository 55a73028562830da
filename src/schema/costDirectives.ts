/**
 * The demand-control directives a router reads (the IBM GraphQL cost directive specification, as Apollo Federation
 * 2.9 imports it), added to the SDL at build time from what the planners know (each domain's `cost.ts`, beside its
 * estimate) rather than written in `schema/` by hand, so that a router's estimate is never below the upstream work an
 * operation really causes (test/federation/routerCost.test.ts asks Hive Gateway). A router multiplies a field's
 * weight, and its type's (an object 1, a scalar 0), by the field's own list size and by every list above it, and it
 * sees neither the planners' batching, deduplication nor cache; so:
 * - a field that sends a request of its own weighs {@link UPSTREAM_REQUEST_COST} (+1 for an object, which Apollo's
 *   reading of the specification takes in place of the type's weight); a list that one request brings whole weighs
 *   the request's share per element (`ceil(10 / assumedSize)`), or a season's 26 episodes would count 26 requests;
 * - a field whose selection looks its object up (a search item's `rated`: the type's `lookupWhenSelected`) weighs the
 *   lookup, or its share per element for a list;
 * - `@listSize` on every list of objects: its size arguments (`first`, with the connection's `nodes` and `edges` as
 *   sized fields) and the size the planner assumes without them; a list no planner sizes gets DEFAULT_LIST_SIZE, so a
 *   router's own default never decides. `requireOneSlicingArgument` is false: `first` is optional in this graph. Hive
 *   Gateway (2.15) sizes a list whose slicing argument is left out as 1, whatever `assumedSize` says: so the slicing
 *   argument carries the assumed size as its default too, in the SDL a router reads only ({@link withoutSlicingDefaults}
 *   takes it out of the executable schema, where an omitted `first` stays omitted).
 */
import {
  Kind,
  type ConstArgumentNode,
  type ConstDirectiveNode,
  type ConstValueNode,
  type DefinitionNode,
  type DocumentNode,
  type FieldDefinitionNode,
  type GraphQLSchema,
  type TypeNode,
  isInterfaceType,
  isObjectType,
} from 'graphql';
import {
  DEFAULT_LIST_SIZE,
  UPSTREAM_REQUEST_COST,
  type CostHints,
  type FieldCostHint,
  type ListSizeHint,
  listSizeOf,
} from '../planning/cost.js';

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

/**
 * What a field of another subgraph that returns one of this subgraph's entities should weigh for a router to see the
 * reference's cost (docs/federation.md, "Demand control"): a router prices `_entities` as one object whatever the
 * number of representations, so only the referencing field, once per occurrence, can carry it. A reference is at most
 * one request (a title's lookup; a Graph `$batch` that 20 share) and one object.
 */
export const REFERENCE_WEIGHT = UPSTREAM_REQUEST_COST + 1;

/** What one request weighs per element of a list of `size` it brings whole (at least 1: weights are whole numbers). */
const share = (size: number) => Math.ceil(UPSTREAM_REQUEST_COST / size);

/**
 * What a field weighs beyond its type's own weight: the request it sends (`upstream`), the lookup its selection makes
 * (`lookup`), per element for a list that comes whole; undefined: the default.
 */
function weight(f: FieldDefinitionNode, hint: FieldCostHint | undefined, objects: boolean, lookup: boolean) {
  if (!hint?.upstream && !lookup) return undefined;
  const size = hint?.listSize?.slicingArguments?.length ? undefined : hint?.listSize?.assumedSize;
  if (isList(f.type) && size) return share(size);
  const requests = (hint?.upstream ? 1 : 0) + (lookup ? 1 : 0);
  return requests * UPSTREAM_REQUEST_COST + (hint?.upstream && objects ? 1 : 0);
}

/** The field's slicing arguments with `assumedSize` as their default, where `schema/` gives none. */
function withSlicingDefaults(f: FieldDefinitionNode, hint: ListSizeHint | undefined): FieldDefinitionNode {
  const assumed = hint?.assumedSize;
  if (!hint?.slicingArguments?.length || assumed === undefined) return f;
  const sliced = new Set(hint.slicingArguments);
  const args = f.arguments?.map((a) => {
    if (!sliced.has(a.name.value) || a.defaultValue) return a;
    return { ...a, defaultValue: value(assumed) };
  });
  return { ...f, arguments: args };
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
    const lookups = hints[typeName]?.lookupWhenSelected;
    const fields = (d.fields as readonly FieldDefinitionNode[]).map((f) => {
      const hint = hints[`${typeName}.${f.name.value}`];
      const objects = composite.has(namedType(f.type));
      const added: ConstDirectiveNode[] = [];
      const w = weight(f, hint, objects, lookups?.(f.name.value) ?? false);
      if (w !== undefined) added.push(directive('cost', { weight: w }));
      if (hint?.listSize) added.push(listSize(hint.listSize));
      else if (objects && isList(f.type) && !sized.has(`${typeName}.${f.name.value}`) && !f.name.value.startsWith('_'))
        added.push(listSize({ assumedSize: DEFAULT_LIST_SIZE }));
      if (!added.length) return f;
      return { ...withSlicingDefaults(f, hint?.listSize), directives: [...(f.directives ?? []), ...added] };
    });
    return { ...d, fields } as DefinitionNode;
  });
  return { ...document, definitions };
}

/**
 * The executable schema without the slicing arguments' defaults {@link withCostDirectives} gave the SDL a router
 * reads (a slicing argument whose default is its field's `assumedSize`): a resolver still sees an omitted `first` as
 * omitted, and asks Graph for its own page, of that size. (@apollo/subgraph rebuilds the schema from its printed SDL,
 * so the defaults are found by what they are, not by the nodes withSlicingDefaults made.)
 */
export function withoutSlicingDefaults(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const hint = listSizeOf(field.astNode);
      if (!hint?.slicingArguments?.length) continue;
      for (const arg of field.args)
        if (hint.slicingArguments.includes(arg.name) && arg.defaultValue === hint.assumedSize)
          arg.defaultValue = undefined;
    }
  }
  return schema;
}
