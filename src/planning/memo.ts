import type { FieldNode } from 'graphql';
import type { SelectionContext } from './selection.js';

/** Variable values longer than this (as JSON) are planned afresh each time rather than kept as a key. */
const MAX_VARIABLES_KEY = 2048;
/** Variable sets kept per field; past this the oldest is forgotten (a field run with ever new ids). */
const MAX_ENTRIES_PER_FIELD = 32;

interface Entry<T> {
  schema: SelectionContext['schema'];
  nodes: readonly FieldNode[];
  variables: string;
  value: T;
}

/**
 * `plan` remembered per field of a cached document and variable values. A plan depends only on the field nodes
 * (which Apollo's and graphql-ws's document caches keep for as long as the document), the fragments of their
 * document, the schema and the variables, so a document run again with the same variables is not walked again.
 * Plans are shared between requests: callers must not change them. A plan that throws (bad arguments) is not kept.
 */
export function perDocument<T>(plan: (nodes: readonly FieldNode[], sc: SelectionContext) => T): (nodes: readonly FieldNode[], sc: SelectionContext) => T {
  const memo = new WeakMap<FieldNode, Array<Entry<T>>>();
  return (nodes, sc) => {
    const first = nodes[0];
    const variables = first ? keyOf(sc.variableValues) : undefined;
    if (!first || variables === undefined || variables.length > MAX_VARIABLES_KEY) return plan(nodes, sc);
    let entries = memo.get(first);
    const found = entries?.find((e) => e.variables === variables && e.schema === sc.schema && sameNodes(e.nodes, nodes));
    if (found) return found.value;
    const value = plan(nodes, sc);
    if (!entries) memo.set(first, (entries = []));
    if (entries.length >= MAX_ENTRIES_PER_FIELD) entries.shift();
    entries.push({ schema: sc.schema, nodes: [...nodes], variables, value });
    return value;
  };
}

/** The variables as a key, or undefined when they have no JSON form (a custom scalar's BigInt, a cycle). */
function keyOf(variables: Record<string, unknown> | undefined): string | undefined {
  try {
    return JSON.stringify(variables ?? {});
  } catch {
    return undefined;
  }
}

function sameNodes(a: readonly FieldNode[], b: readonly FieldNode[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
