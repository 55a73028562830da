/**
 * The cost of an operation, in the units of the IBM GraphQL cost directive specification as Apollo Router and Hive
 * Gateway count them (an object 1, a scalar or enum 0, a list times its size), tied to what the gateway knows better
 * than a router: each upstream request the planners expect counts {@link UPSTREAM_REQUEST_COST}, and the actual cost
 * counts the requests actually sent and the objects actually answered. docs/security.md ("Demand control") has the
 * rules with examples; src/schema/costDirectives.ts writes the same knowledge into the SDL as `@cost` and
 * `@listSize` for a router in front.
 */
import {
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isListType,
  isObjectType,
  Kind,
  valueFromASTUntyped,
  type FieldDefinitionNode,
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { VariablesMemo } from './memo.js';
import { selectedFields, type SelectionContext } from './selection.js';
import type { OperationShape } from './upstreamEstimate.js';

/** What one upstream request weighs: as much as ten objects of the answer (Apollo's weight of a mutation). */
export const UPSTREAM_REQUEST_COST = 10;

/** The size assumed of a list the schema says nothing about (Apollo Router's `static_estimated.list_size` is the router's own). */
export const DEFAULT_LIST_SIZE = 10;

/** How long a list is, as `@listSize` says it (IBM cost specification). */
export interface ListSizeHint {
  /** The size when no slicing argument is given. */
  assumedSize?: number;
  /** Arguments whose value is the size (`first`); the largest given wins. */
  slicingArguments?: readonly string[];
  /** Lists below the field that take its size (a connection's `nodes` and `edges`). */
  sizedFields?: readonly string[];
}

/** What a domain knows of one field's cost, beside its planner. */
export interface FieldCostHint {
  /** Selecting it can send an upstream request of its own (it weighs {@link UPSTREAM_REQUEST_COST} more for a router). */
  upstream?: boolean;
  listSize?: ListSizeHint;
}

/** What a domain knows of one type's cost, beside its planner. */
export interface TypeCostHint {
  /**
   * Whether selecting `field` on an object of the type can make a request for that object alone: an item of a listing
   * that does not carry the field is looked up (a search item's `rated`).
   */
  lookupWhenSelected?: (field: string) => boolean;
}

/** Each domain's knowledge of its fields' cost, by `Type.field` as `schema/` names them, and of its types, by `Type`. */
export type CostHints = Readonly<Record<string, FieldCostHint & TypeCostHint>>;

/** An operation's cost and upstream requests. */
export interface CostFigures {
  /** Objects answered (the structural part), plus {@link UPSTREAM_REQUEST_COST} per upstream request. */
  cost: number;
  upstreamRequests: number;
}

/** One response key selected on a composite type, compiled for counting. */
interface CostField {
  key: string;
  /** The value is a list (of the children's type). */
  list: boolean;
  /** Estimated elements when a list, else 1. */
  size: number;
  /** The selection below, by the concrete type it applies to (one entry for an object type). */
  children: Map<string, CostField[]>;
  /** The one entry of `children` when there is one (an object type's field): read per answered object, no iterator. */
  only?: CostField[];
  /** `_entities`: how many representations of each type. */
  entities?: Map<string, number>;
}

/** An operation compiled for counting: its selection and its estimated structural cost. */
export interface CostPlan {
  /** Objects the operation is expected to answer (lists by `@listSize`), without upstream requests. */
  readonly structure: number;
  readonly root: CostField[];
}

/**
 * The cost model of one schema: the structural part of each operation, estimated before it runs (once per document
 * and variables) and counted on its answer.
 */
export class CostModel {
  private readonly plans = new VariablesMemo<OperationDefinitionNode, CostPlan>(64);
  private readonly listSizes = new Map<GraphQLField<unknown, unknown>, ListSizeHint | null>();

  constructor(private readonly schema: GraphQLSchema) {}

  /** {@link compile} on the variables the memo watches (made once: no closure per operation). */
  private readonly compileWatched = (shape: OperationShape, variables: Record<string, unknown> | undefined) =>
    this.compile(!variables || variables === shape.variableValues ? shape : { ...shape, variableValues: variables });

  /** The operation's plan: its estimated structure and what counting its answers needs. */
  plan(shape: OperationShape): CostPlan {
    const variables = shape.operation.variableDefinitions?.length ? shape.variableValues : undefined;
    // Watched: a plan that read no variable (no `first: $n`, no `@include(if: $v)`) is kept for the document alone.
    return this.plans.watched(shape.operation, variables, this.compileWatched, shape);
  }

  /** The objects one result's `data` holds, counted along the operation's selection (a `JSON` scalar's objects are not objects of the graph). */
  countAnswered(plan: CostPlan, data: unknown): number {
    return data && typeof data === 'object' ? countFields(plan.root, data as Record<string, unknown>) : 0;
  }

  /**
   * The objects a later part of an incremental answer brings: a deferred fragment's `data` at `path` (an object), or
   * a streamed list's `items` at `path` (the list).
   */
  countAt(plan: CostPlan, path: ReadonlyArray<string | number>, value: unknown): number {
    let fields: readonly CostField[] = plan.root;
    let field: CostField | undefined;
    for (const step of path) {
      if (typeof step === 'number') continue;
      field = fields.find((f) => f.key === step);
      if (!field) return 0;
      fields = field.only ?? mergedChildren(field);
    }
    if (Array.isArray(value)) return field ? value.reduce((n: number, item) => n + countObject(field, item), 0) : 0;
    return value && typeof value === 'object' ? countFields(fields, value as Record<string, unknown>) : 0;
  }

  private compile(shape: OperationShape): CostPlan {
    const rootType =
      shape.operation.operation === 'mutation'
        ? this.schema.getMutationType()
        : shape.operation.operation === 'subscription'
          ? this.schema.getSubscriptionType()
          : this.schema.getQueryType();
    const sc: SelectionContext = shape;
    const root = rootType
      ? this.fields(
          [
            {
              kind: Kind.FIELD,
              name: { kind: Kind.NAME, value: rootType.name },
              selectionSet: shape.operation.selectionSet,
            } as FieldNode,
          ],
          rootType,
          sc,
          new Map(),
          0,
        )
      : [];
    return { structure: estimateFields(root), root };
  }

  /** The composite fields `nodes` select on `type`; `sized` gives lists their parent's size (`sizedFields`). */
  private fields(
    nodes: readonly FieldNode[],
    type: GraphQLObjectType,
    sc: SelectionContext,
    sized: ReadonlyMap<string, number>,
    depth: number,
  ): CostField[] {
    const out: CostField[] = [];
    // The operation limits bound depth long before this; the guard keeps a hostile schema from recursing without end.
    if (depth > 64) return out;
    const defs = type.getFields();
    for (const selected of selectedFields(nodes, type.name, sc)) {
      const def = defs[selected.name];
      if (!def) continue;
      const named = getNamedType(def.type);
      if (!isCompositeType(named)) continue;
      const list = isListType(getNullableType(def.type));
      const hint = this.listSize(def);
      const slice = hint?.slicingArguments
        ?.map((a) => selected.args[a])
        .filter((v): v is number => typeof v === 'number' && v >= 0);
      const own = slice?.length ? Math.max(...slice) : (hint?.assumedSize ?? DEFAULT_LIST_SIZE);
      const size = sized.get(selected.name) ?? own;
      const below =
        hint?.sizedFields?.length && !list ? new Map(hint.sizedFields.map((f) => [f, own])) : new Map<string, number>();
      const field: CostField = {
        key: selected.nodes[0].alias?.value ?? selected.name,
        list,
        size: list ? size : 1,
        children: new Map(),
      };
      for (const object of this.objectTypes(named))
        field.children.set(object.name, this.fields(selected.nodes, object, sc, below, depth + 1));
      if (field.children.size === 1) field.only = field.children.values().next().value;
      if (selected.name === '_entities') field.entities = entityCounts(selected.args.representations);
      out.push(field);
    }
    return out;
  }

  private objectTypes(type: GraphQLCompositeType): readonly GraphQLObjectType[] {
    if (isObjectType(type)) return [type];
    return isAbstractType(type) ? this.schema.getPossibleTypes(type) : [];
  }

  /** The field's `@listSize`, as the SDL a router reads carries it. */
  private listSize(def: GraphQLField<unknown, unknown>): ListSizeHint | null {
    let hint = this.listSizes.get(def);
    if (hint === undefined) {
      hint = listSizeOf(def.astNode) ?? null;
      this.listSizes.set(def, hint);
    }
    return hint;
  }
}

/** A field's `@listSize` arguments, as the SDL a router reads carries them. */
export function listSizeOf(node: FieldDefinitionNode | null | undefined): ListSizeHint | undefined {
  const d = node?.directives?.find((x) => x.name.value === 'listSize' || x.name.value === 'federation__listSize');
  return d
    ? (Object.fromEntries(d.arguments?.map((a) => [a.name.value, valueFromASTUntyped(a.value)]) ?? []) as ListSizeHint)
    : undefined;
}

function entityCounts(representations: unknown): Map<string, number> {
  const counts = new Map<string, number>();
  if (!Array.isArray(representations)) return counts;
  for (const r of representations) {
    const typename = (r as { __typename?: unknown } | null)?.__typename;
    if (typeof typename === 'string') counts.set(typename, (counts.get(typename) ?? 0) + 1);
  }
  return counts;
}

/** The estimated objects of a selection: each composite field its size times (itself and what is below it). */
function estimateFields(fields: readonly CostField[]): number {
  let total = 0;
  for (const field of fields) {
    if (field.entities) {
      // A router's references: each answers the selection on its own type.
      for (const [type, n] of field.entities) total += n * (1 + estimateFields(field.children.get(type) ?? []));
      continue;
    }
    // An abstract type answers one of its members: the costliest is the estimate.
    let below = 0;
    for (const children of field.children.values()) below = Math.max(below, estimateFields(children));
    total += field.size * (1 + below);
  }
  return total;
}

function countFields(fields: readonly CostField[], value: Record<string, unknown>): number {
  let total = 0;
  // Indexed loops: every answer is counted (demand control's `answered`), and iterators' results were its garbage.
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    const v = value[field.key];
    if (v === null || v === undefined) continue;
    if (Array.isArray(v)) {
      for (let j = 0; j < v.length; j++) total += countObject(field, v[j]);
    } else total += countObject(field, v);
  }
  return total;
}

function countObject(field: CostField, item: unknown): number {
  if (item === null || typeof item !== 'object') return 0;
  // A list of lists (none in this graph) counts its innermost objects.
  if (Array.isArray(item)) return item.reduce((n: number, i) => n + countObject(field, i), 0);
  const object = item as Record<string, unknown>;
  const typename = object.__typename;
  const children =
    field.only ?? (typeof typename === 'string' ? field.children.get(typename) : undefined) ?? mergedChildren(field);
  return 1 + countFields(children, object);
}

/** Every member type's selection, for an answer of an abstract type that does not say which it is. */
function mergedChildren(field: CostField): CostField[] {
  const byKey = new Map<string, CostField>();
  for (const children of field.children.values())
    for (const child of children) if (!byKey.has(child.key)) byKey.set(child.key, child);
  return [...byKey.values()];
}
