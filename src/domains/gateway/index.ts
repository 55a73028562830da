import type { Domain } from '../domain.js';
import { gatewayExamples, gatewayResolvers } from './resolvers.js';

/** The gateway domain: fields about the graph itself (`schema/gateway.graphql`) and GraphiQL's first tabs. */
export const gateway: Domain = {
  name: 'gateway',
  resolvers: gatewayResolvers,
  examples: gatewayExamples,
  // The upstreams' configuration and status are the same for every caller.
  routerSharing: 'always',
};
