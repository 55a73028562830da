import type { FieldNode, GraphQLSchema } from 'graphql';
import type { SelectionContext } from './selection.js';

/** Variable values longer than this (as JSON) are computed afresh each time rather than kept as a key. */
const MAX_VARIABLES_KEY = 2048;

/**
 * Values kept per AST node of a cached document and per variable values: what depends only on the document and its
 * variables is computed once, not once per request. The node is held weakly (the entries go with the document when
 * the document cache drops it); at most `maxPerNode` variable sets are kept per node and `extra`, the oldest forgotten
 * first. A computation that throws is not kept, nor are variables without a short JSON form. Values are shared
 * between requests: callers must not change them.
 */
export class VariablesMemo<K extends object, T> {
  /**
   * By node, then `extra`, then the variables' key: no key string made per lookup by joining the two, and the one key
   * string of a request's variables ({@link variablesKey}) is hashed once for every memo that looks it up.
   */
  private readonly byNode = new WeakMap<K, Map<string, Map<string, T>>>();
  /**
   * Values whose computation read none of the variables, by node and `extra` ({@link watched}): the same for any
   * variables, so found with no key made from them. Most documents' cost plan is one (a lookup by `$id`).
   */
  private readonly fixed = new WeakMap<K, Map<string, T>>();

  constructor(private readonly maxPerNode: number) {}

  /** `compute()` for `node` and `variables`, or what it gave before; `extra` distinguishes more than the node does. */
  get(node: K, variables: Record<string, unknown> | undefined, compute: () => T, extra = ''): T {
    const key = variablesKey(variables);
    if (key === undefined) return compute();
    const known = this.byNode.get(node)?.get(extra);
    if (known?.has(key)) return known.get(key) as T;
    const value = compute();
    this.keep(node, extra, key, value, known);
    return value;
  }

  /**
   * {@link get} for a computation that reads the variables only through its argument: one that read none of them
   * (not a value, a key, nor whether one is there) is kept for the node alone, and found again for any variables
   * without serialising them. `compute` gets `context` and the variables to read: a function made once, not a
   * closure per call.
   */
  watched<C>(
    node: K,
    variables: Record<string, unknown> | undefined,
    compute: (context: C, variables: Record<string, unknown> | undefined) => T,
    context: C,
    extra = '',
  ): T {
    const fixed = this.fixed.get(node);
    if (fixed?.has(extra)) return fixed.get(extra) as T;
    const key = variablesKey(variables);
    const known = key === undefined ? undefined : this.byNode.get(node)?.get(extra);
    if (key !== undefined && known?.has(key)) return known.get(key) as T;
    // Watched only when it runs: a value found by its key says nothing of what its computation read.
    const reads = variables && new ReadWatch(variables);
    const value = compute(context, reads ? reads.proxy : variables);
    if (reads && !reads.read) {
      if (!fixed) this.fixed.set(node, new Map([[extra, value]]));
      else fixed.set(extra, value);
    } else if (key !== undefined) this.keep(node, extra, key, value, known);
    return value;
  }

  /**
   * The value {@link watched} kept for `node` and `extra` alone (its computation read no variable), if any: for a
   * caller that would otherwise make its computation's closure on every call just to have it found. Undefined when
   * there is none (or the value kept is undefined: {@link watched} finds that one).
   */
  kept(node: K, extra = ''): T | undefined {
    return this.fixed.get(node)?.get(extra);
  }

  private keep(node: K, extra: string, key: string, value: T, known: Map<string, T> | undefined): void {
    if (!known) {
      let byExtra = this.byNode.get(node);
      if (!byExtra) this.byNode.set(node, (byExtra = new Map()));
      byExtra.set(extra, (known = new Map()));
    }
    if (known.size >= this.maxPerNode) known.delete(known.keys().next().value as string);
    known.set(key, value);
  }
}

/** A view of a variables object that notes whether anything looked at it (a value, a key, whether one is there). */
class ReadWatch {
  read = false;
  readonly proxy: Record<string, unknown>;

  constructor(variables: Record<string, unknown>) {
    const seen = () => void (this.read = true);
    this.proxy = new Proxy(variables, {
      get: (target, key, receiver) => (seen(), Reflect.get(target, key, receiver)),
      has: (target, key) => (seen(), Reflect.has(target, key)),
      getOwnPropertyDescriptor: (target, key) => (seen(), Reflect.getOwnPropertyDescriptor(target, key)),
      ownKeys: (target) => (seen(), Reflect.ownKeys(target)),
    });
  }
}

/**
 * The key of the last variables object seen, so that one request's variables are serialized once, not once per field
 * that asks (an `_entities` call asks once per reference, and its variables hold every reference): its fields ask one
 * after the other. One entry, not a WeakMap of every request's variables: a long-lived table that gains an entry per
 * request is rebuilt in the old generation as it fills, and that was promoted garbage of every operation.
 */
let lastVariables: object | undefined;
let lastKey: string | null = null;

/** The variables as a key, or undefined when they are long or have no JSON form (a custom scalar's BigInt, a cycle). */
function variablesKey(variables: Record<string, unknown> | undefined): string | undefined {
  if (!variables) return '{}';
  if (variables !== lastVariables) {
    lastKey = serialize(variables);
    lastVariables = variables;
  }
  return lastKey ?? undefined;
}

function serialize(variables: Record<string, unknown>): string | null {
  try {
    const key = JSON.stringify(variables);
    return key.length > MAX_VARIABLES_KEY ? null : key;
  } catch {
    return null;
  }
}

/**
 * `plan` remembered per field of a cached document and variable values. A plan depends only on the field nodes, the
 * fragments of their document, the schema and the variables, so a document run again with the same variables is
 * not walked again. More nodes for one response key (merged fields) are told apart by their place in the document.
 */
export function perDocument<T>(
  plan: (nodes: readonly FieldNode[], sc: SelectionContext) => T,
): (nodes: readonly FieldNode[], sc: SelectionContext) => T {
  const bySchema = new WeakMap<GraphQLSchema, VariablesMemo<FieldNode, T>>();
  return (nodes, sc) => {
    if (nodes.length === 0) return plan(nodes, sc);
    // The usual field is one node: no list of the others' places made for it.
    let extra = '';
    if (nodes.length > 1) {
      const others = nodes.slice(1).map((n) => n.loc?.start);
      if (others.includes(undefined)) return plan(nodes, sc);
      extra = `${others.join(',')}\n`;
    }
    let memo = bySchema.get(sc.schema);
    if (!memo) bySchema.set(sc.schema, (memo = new VariablesMemo(32)));
    // A plan kept for the field alone is found without the closure below (one per resolver call).
    const kept = memo.kept(nodes[0], extra);
    if (kept !== undefined) return kept;
    // Watched: a plan that reads no variable (no argument of one, no `@include(if: $v)`) is kept for the field alone.
    return memo.watched(
      nodes[0],
      sc.variableValues,
      (_none, variables) =>
        plan(nodes, { schema: sc.schema, fragments: sc.fragments, variableValues: variables ?? sc.variableValues }),
      undefined,
      extra,
    );
  };
}
