import { createChatClients, type ChatClient } from './chat/client.js';
import type { UpstreamDependencies } from './dependencies.js';
import { ResponseBufferBudget } from './http/bufferBudget.js';
import { createGraphClient, type GraphClient } from './msgraph/client.js';
import { createOmdbClient, type OmdbClient } from './omdb/client.js';
import { RouterInvalidation } from './routers/invalidation.js';

/** Every upstream client of one gateway: one connection pool, limiter and token store each. */
export interface UpstreamClients {
  graph: GraphClient;
  omdb: OmdbClient;
  /** By provider id, one per configured chat provider. */
  chat: ReadonlyMap<string, ChatClient>;
  /** The routers told when cached data went stale (ROUTER_INVALIDATION_URLS); absent when none are listed. */
  routers?: RouterInvalidation;
}

/**
 * Builds every upstream client once, at start-up, so a misconfiguration fails there rather than on the first request
 * that needs the upstream, and a test can build them without a server. Each registers its cleanup in `onClose`.
 */
export function createUpstreamClients(dependencies: UpstreamDependencies): UpstreamClients {
  // One budget for the bytes of every buffered upstream body at once (UPSTREAM_MAX_BUFFERED_BYTES), across upstreams.
  const bufferBudget = new ResponseBufferBudget(dependencies.config.upstreamMaxBufferedBytes);
  const invalidation = dependencies.config.routerInvalidation;
  const routers = invalidation && new RouterInvalidation(dependencies, invalidation.targets, invalidation.secret);
  if (routers) dependencies.onClose.push(() => routers.close());
  return {
    graph: createGraphClient(dependencies, bufferBudget),
    omdb: createOmdbClient(dependencies, bufferBudget),
    chat: createChatClients(dependencies, bufferBudget),
    ...(routers ? { routers } : {}),
  };
}
