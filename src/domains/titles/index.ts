import type { Resolvers } from '../../generated/resolvers.js';
import type { GraphiqlExample } from '../../server/graphiql.js';

/** Title metadata (OMDb): resolvers and GraphiQL tabs. */
export const titlesResolvers: Resolvers = {};
export const titlesExamples: GraphiqlExample[] = [];
