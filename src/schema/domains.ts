import type { DocumentNode, GraphQLSchema } from 'graphql';
import { GATEWAY_DOMAINS, type GatewayDomain } from '../config/env.js';

/**
 * The domain a `schema/` file belongs to: the one its name starts with (`enterprise.live.graphql`, `chatPlatform.graphql`);
 * undefined for the files every graph has (`gateway.graphql`, `subgraph.graphql`).
 */
export function domainOfFile(file: string): GatewayDomain | undefined {
  return GATEWAY_DOMAINS.find((d) => file.startsWith(d));
}

export const ROOT_TYPES: ReadonlySet<string> = new Set(['Query', 'Mutation', 'Subscription']);

/** Each built schema's domains by type name and root field (`Query.title`), read from the files that define them. */
const domainsOfSchema = new WeakMap<GraphQLSchema, Map<string, GatewayDomain>>();

/**
 * The domain whose `schema/` file defines a type, or a root field as `Query.title`; undefined for the gateway's own
 * and for the federation machinery. Apart from `schema.ts` so that readers (the cache policy) do not import the
 * resolvers.
 */
export function domainOf(schema: GraphQLSchema, coordinate: string): GatewayDomain | undefined {
  return domainsOfSchema.get(schema)?.get(coordinate);
}

/** Notes the domain of each type and root field of `schema` from its type definitions (each parsed with its file as source). */
export function recordDomains(schema: GraphQLSchema, typeDefs: DocumentNode): void {
  const map = new Map<string, GatewayDomain>();
  for (const d of typeDefs.definitions) {
    const domain = d.loc && domainOfFile(d.loc.source.name);
    if (!domain || !('name' in d) || !d.name) continue;
    if (!ROOT_TYPES.has(d.name.value)) map.set(d.name.value, domain);
    else if ('fields' in d) for (const f of d.fields ?? []) map.set(`${d.name.value}.${f.name.value}`, domain);
  }
  domainsOfSchema.set(schema, map);
}
