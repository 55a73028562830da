import { createOmdbClient } from '../domains/titles/loaders.js';
import { createChatClients, type ChatClient } from './chat/client.js';
import { createGraphClient, type GraphClient } from './msgraph/client.js';
import type { OmdbClient } from './omdb/client.js';
import { ResponseBufferBudget } from './http/bufferBudget.js';
import type { UpstreamClientServices } from '../context/request.js';

/** Every upstream client of one gateway: one connection pool, limiter and token store each. */
export interface UpstreamClients {
  graph: GraphClient;
  omdb: OmdbClient;
  /** By provider id, one per configured chat provider. */
  chat: ReadonlyMap<string, ChatClient>;
}

/**
 * Builds every upstream client once, at start-up, so a misconfiguration fails there rather than on the first request
 * that needs the upstream, and a test can build them without a server. Each registers its cleanup in `onClose`.
 */
export function createUpstreamClients(services: UpstreamClientServices): UpstreamClients {
  // One budget for the bytes of every buffered upstream body at once (UPSTREAM_MAX_BUFFERED_BYTES), across upstreams.
  const bufferBudget = new ResponseBufferBudget(services.config.upstreamMaxBufferedBytes);
  return { graph: createGraphClient(services, bufferBudget), omdb: createOmdbClient(services, bufferBudget), chat: createChatClients(services, bufferBudget) };
}
