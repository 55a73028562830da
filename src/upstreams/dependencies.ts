import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/env.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { SharedState } from '../state/index.js';
import type { GatewayCredentials } from './credentials.js';

/** What building an upstream client needs from the gateway: nothing of GraphQL, the pipeline or a transport. */
export interface UpstreamDependencies {
  config: GatewayConfig;
  metrics: GatewayMetrics;
  log: Logger;
  /** Removes secrets from any text that leaves the process. */
  redact: (text: string) => string;
  /** What replicas share (quota, rate limits, cache, tokens). */
  state: SharedState;
  /** The gateway's own upstream credentials as the upstreams last judged them. */
  credentials: GatewayCredentials;
  /** Cleanup run on shutdown (each client closes its connection pool). */
  onClose: Array<() => Promise<void> | void>;
}
