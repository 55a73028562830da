import { makeExecutableSchema } from '@graphql-tools/schema';
import { graphql, type GraphQLSchema } from 'graphql';
import { readFile } from 'node:fs/promises';
import { publicSchemaFile } from '../../../src/schema/build.js';

/**
 * The comparison baseline: plain resolvers over the same SDL that fetch per field and per level, the way a
 * resolver-per-field gateway (or GraphQL Mesh's OData handler without nested $expand) does. No DataLoader, no
 * $select, no $expand, no $batch. Used only to count upstream requests against ours.
 */
export async function naiveBaseline(
  graphRoot: string,
  token = 'sandbox',
): Promise<(query: string, variables?: Record<string, unknown>) => Promise<unknown>> {
  const get = async (path: string): Promise<any> => {
    const res = await fetch(graphRoot + path, { headers: { authorization: `Bearer ${token}` } });
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`naive baseline: ${res.status} for ${path}`);
    return res.json();
  };
  const listQuery = (args: { first?: number; orderBy?: Array<{ field: string; direction?: string }> }) => {
    const parts: string[] = [];
    if (args.first) parts.push(`$top=${args.first}`);
    if (args.orderBy?.length)
      parts.push(
        `$orderby=${encodeURIComponent(args.orderBy.map((o) => `${camel(o.field)}${o.direction === 'DESC' ? ' desc' : ''}`).join(','))}`,
      );
    return parts.length ? `?${parts.join('&')}` : '';
  };
  const connection = (body: any, map: (raw: any) => unknown) => {
    const nodes = (body?.value ?? []).map(map);
    return {
      nodes,
      edges: nodes.map((node: unknown) => ({ cursor: '', node })),
      pageInfo: { hasNextPage: !!body?.['@odata.nextLink'], endCursor: null },
    };
  };
  const health = (raw: any) => raw && { ...raw, status: snake(raw.status) };
  const issue = (raw: any) => ({
    ...raw,
    status: snake(raw.status),
    classification: snake(raw.classification),
    origin: snake(raw.origin),
    posts: (raw.posts ?? []).map((p: any) => ({
      ...p,
      postType: snake(p.postType),
      description: p.description && { ...p.description, contentType: snake(p.description.contentType) },
    })),
  });
  const resolvers = {
    Query: { admin: () => get('/admin') },
    Admin: { serviceAnnouncement: () => get('/admin/serviceAnnouncement') },
    ServiceAnnouncement: {
      healthOverviews: async (_: unknown, args: any) =>
        connection(await get(`/admin/serviceAnnouncement/healthOverviews${listQuery(args)}`), health),
      healthOverview: async (_: unknown, args: { id: string }) =>
        health(await get(`/admin/serviceAnnouncement/healthOverviews/${encodeURIComponent(args.id)}`)),
    },
    ServiceHealth: {
      issues: async (parent: { id: string }, args: any) =>
        connection(
          await get(
            `/admin/serviceAnnouncement/healthOverviews/${encodeURIComponent(parent.id)}/issues${listQuery(args)}`,
          ),
          issue,
        ),
    },
  };
  // The public schema: the same types without the federation machinery, which plain makeExecutableSchema rejects.
  const schema: GraphQLSchema = makeExecutableSchema({ typeDefs: await readFile(publicSchemaFile, 'utf8'), resolvers });
  return (source, variableValues) => graphql({ schema, source, variableValues });
}

const camel = (member: string) => member.toLowerCase().replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const snake = (value: string | null | undefined) => value && value.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
