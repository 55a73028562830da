import type { Resolvers } from '../../generated/resolvers.js';
import type { GraphiqlExample } from '../../server/graphiql.js';

/** Enterprise data (Microsoft Graph service communications): resolvers and GraphiQL tabs. */
export const enterpriseResolvers: Resolvers = {};
export const enterpriseExamples: GraphiqlExample[] = [];
