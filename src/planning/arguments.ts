import {
  getArgumentValues,
  isNonNullType,
  Kind,
  valueFromAST,
  type FieldNode,
  type GraphQLField,
  type ValueNode,
} from 'graphql';

/**
 * A field node's arguments, as graphql-js's `getArgumentValues` gives them, with what depends on the document alone
 * read once per node. The estimates read a cached document's arguments on every operation (a title lookup's
 * `imdbId: $imdbId`), and `getArgumentValues` coerces every literal and looks every argument up again each time; a
 * literal's value cannot change, and a variable's value is the coerced variable itself (graphql-js reads it as it is).
 * A literal's value is shared between operations, as a default value already is in graphql-js: read only.
 */
export function argumentsOf(
  def: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  let plan = plans.get(node);
  if (plan?.def !== def) plans.set(node, (plan = planOf(def, node)));
  if (!plan.entries) return getArgumentValues(def, node, variables);
  const out: Record<string, unknown> = {};
  // Indexed: read on every operation, and the array iterator's results were garbage of each (bench:alloc, `next`).
  const entries = plan.entries;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e.variable === undefined) {
      out[e.name] = e.value;
      continue;
    }
    if (!Object.hasOwn(variables, e.variable)) {
      if (e.value !== undefined) out[e.name] = e.value;
      else if (e.nonNull) return getArgumentValues(def, node, variables); // its error, worded by graphql-js
      continue;
    }
    const value = variables[e.variable];
    if (value == null && e.nonNull) return getArgumentValues(def, node, variables);
    out[e.name] = value;
  }
  return out;
}

/** One argument: a constant `value` (a literal or the default), or a `variable`'s value with `value` as its default. */
interface Entry {
  name: string;
  variable?: string;
  value?: unknown;
  nonNull: boolean;
}

/** A node's arguments for one field definition; no `entries` when any needs graphql-js's general path. */
interface Plan {
  def: GraphQLField<unknown, unknown>;
  entries?: Entry[];
}

/** By node of a cached document: goes with the document, and grows with documents, never with requests. */
const plans = new WeakMap<FieldNode, Plan>();

function planOf(def: GraphQLField<unknown, unknown>, node: FieldNode): Plan {
  const entries: Entry[] = [];
  for (const arg of def.args) {
    const nonNull = isNonNullType(arg.type);
    const value = node.arguments?.find((a) => a.name.value === arg.name)?.value;
    if (!value) {
      if (arg.defaultValue !== undefined) entries.push({ name: arg.name, value: arg.defaultValue, nonNull });
      else if (nonNull) return { def }; // refused: graphql-js says so
    } else if (value.kind === Kind.VARIABLE) {
      entries.push({ name: arg.name, variable: value.name.value, value: arg.defaultValue, nonNull });
    } else {
      // A literal holding variables (a list or an object of them) varies: graphql-js's path.
      if (holdsVariables(value)) return { def };
      const constant = value.kind === Kind.NULL ? null : valueFromAST(value, arg.type);
      if (constant === undefined || (constant === null && nonNull)) return { def };
      entries.push({ name: arg.name, value: constant, nonNull });
    }
  }
  return { def, entries };
}

function holdsVariables(value: ValueNode): boolean {
  switch (value.kind) {
    case Kind.VARIABLE:
      return true;
    case Kind.LIST:
      return value.values.some(holdsVariables);
    case Kind.OBJECT:
      return value.fields.some((f) => holdsVariables(f.value));
    default:
      return false;
  }
}
