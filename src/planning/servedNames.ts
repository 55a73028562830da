import type { GraphQLSchema } from 'graphql';

/**
 * The names a built schema serves the types of `schema/` under (SUBGRAPH_TYPE_PREFIX, SUBGRAPH_RENAMES; made by
 * src/schema/renames.ts when the schema is built). Planners name the types of `schema/` and ask here for the name an
 * operation's fragments and a router's representations use. Without renames nothing is recorded and every lookup
 * answers the name it was given.
 */
const servedNamesOf = new WeakMap<GraphQLSchema, ReadonlyMap<string, string>>();

/** Notes that `schema` serves each type of `renames` (old name → served name) under its new name. */
export function recordServedNames(schema: GraphQLSchema, renames: ReadonlyMap<string, string>): void {
  if (renames.size) servedNamesOf.set(schema, renames);
}

/** The name `schema` serves the type `name` of `schema/` under (the same name when nothing renames it). */
export function servedTypeName(schema: GraphQLSchema, name: string): string {
  return servedNamesOf.get(schema)?.get(name) ?? name;
}

/** Every rename `schema` was built with, old name → served name (empty when none). */
export function servedNames(schema: GraphQLSchema): ReadonlyMap<string, string> {
  return servedNamesOf.get(schema) ?? new Map();
}
