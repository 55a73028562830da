import type { Resolvers } from '../../generated/resolvers.js';
import type { GraphiqlExample } from '../../server/graphiql.js';

/** Chat completions over four providers: resolvers and GraphiQL tabs. */
export const chatResolvers: Resolvers = {};
export const chatExamples: GraphiqlExample[] = [];
