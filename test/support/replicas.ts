import { randomUUID } from 'node:crypto';
import { upstreamEnv } from '../../src/bench/lib/stack.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import type { RecordedRequest } from '../../src/sandbox/record.js';
import type { SandboxSettings, UpstreamName } from '../../src/sandbox/types.js';
import { spawnGateway, type GatewayProcess } from './process.js';
import { startRedis, type TestRedis } from './redis.js';

/** What a GraphQL POST answered. */
export interface GraphQLAnswer<T = any> {
  status: number;
  headers: Headers;
  body: { data?: T; errors?: Array<{ message: string; extensions?: Record<string, any>; path?: unknown[] }> };
}

/**
 * Several gateway processes (what `npm start` runs) behind no load balancer, on one sandbox and one Redis: the
 * set-up of a scaled-out deployment, for tests of what the replicas share and of what happens when Redis fails.
 */
export interface ReplicaCluster {
  sandbox: Sandbox;
  redis: TestRedis;
  replicas: GatewayProcess[];
  /** `http://127.0.0.1:port` of each replica, in start order. */
  origins: string[];
  /** POSTs an operation to replica `i`. */
  query<T = any>(i: number, query: string, variables?: Record<string, unknown>): Promise<GraphQLAnswer<T>>;
  /** The sandbox's request record for one upstream. */
  upstreamRequests(upstream: UpstreamName): RecordedRequest[];
  /** Every replica's `/readyz` body. */
  readiness(): Promise<Array<{ sharedState: { store: string; status: string } }>>;
  /** Stops the replicas (SIGTERM), the sandbox and Redis. */
  close(): Promise<void>;
}

export interface ReplicaClusterOptions {
  /** @default 3 */
  count?: number;
  /** Extra environment for every replica (e.g. OMDB_DAILY_QUOTA). */
  env?: Record<string, string>;
  sandbox?: Partial<SandboxSettings>;
}

/**
 * Starts a sandbox (in this process) and Redis, then `count` gateways pointed at both: every upstream "live" on the
 * sandbox with its `sandbox` credentials (Graph with application permissions, so they need a token), shared state in
 * Redis under a fresh key prefix, GATEWAY_REPLICAS = count.
 */
export async function startReplicas(options: ReplicaClusterOptions = {}): Promise<ReplicaCluster> {
  const count = options.count ?? 3;
  const sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0, ...options.sandbox } });
  const redis = await startRedis().catch(async (error: unknown) => {
    await sandbox.close();
    throw error;
  });
  const env: Record<string, string> = {
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: `replicas-${randomUUID()}:`,
    GATEWAY_REPLICAS: String(count),
    ...upstreamEnv(sandbox.origin),
    ...options.env,
  };
  const replicas = Array.from({ length: count }, () => spawnGateway(env, 90_000));
  let origins: string[];
  try {
    origins = await Promise.all(replicas.map((r) => r.origin));
  } catch (error) {
    await stopAll(replicas);
    await Promise.all([sandbox.close(), redis.close()]);
    throw error;
  }

  return {
    sandbox,
    redis,
    replicas,
    origins,
    async query(i, query, variables) {
      const res = await fetch(`${origins[i]}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return { status: res.status, headers: res.headers, body: (await res.json()) as GraphQLAnswer['body'] };
    },
    upstreamRequests: (upstream) => sandbox.record.list().filter((r) => r.upstream === upstream),
    readiness: () => Promise.all(origins.map(async (o) => (await fetch(`${o}/readyz`)).json() as never)),
    async close() {
      await stopAll(replicas);
      await Promise.all([sandbox.close(), redis.close()]);
    },
  };
}

async function stopAll(replicas: GatewayProcess[]): Promise<void> {
  await Promise.all(
    replicas.map(async (r) => {
      if (r.child.exitCode !== null || r.child.signalCode !== null) return;
      r.child.kill('SIGTERM');
      const killer = setTimeout(() => r.child.kill('SIGKILL'), 15_000);
      await r.exited;
      clearTimeout(killer);
    }),
  );
}
