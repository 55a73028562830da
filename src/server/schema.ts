import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolvers } from '../resolvers.js';

/** `schema/` at the project root; the same relative path from `src/server` and `dist/server`. */
export const schemaDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'schema');

/** Reads every `schema/*.graphql` (one file per domain) and binds the resolvers. */
export async function buildSchema(): Promise<GraphQLSchema> {
  const files = (await readdir(schemaDir)).filter((f) => f.endsWith('.graphql')).sort();
  const typeDefs = await Promise.all(files.map((f) => readFile(join(schemaDir, f), 'utf8')));
  return makeExecutableSchema({ typeDefs, resolvers, resolverValidationOptions: { requireResolversToMatchSchema: 'error' } });
}
