import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { loadConfig, type GatewayConfig } from '../config/env.js';
import { describeUnknown, type UnknownName } from '../config/unknownNames.js';
import { createLogger } from '../observability/logger.js';
import { GatewayMetrics } from '../observability/metrics.js';
import { createRedactor } from '../observability/redact.js';
import { startTracing } from '../observability/tracing.js';
import type { GatewayServices } from '../context/services.js';
import { graphiqlExamples, type DomainServicesOptions } from '../domains/index.js';
import type { OperationPipeline } from '../pipeline/index.js';
import { createGatewayCore } from './gatewayCore.js';
import type { InProcessTransport } from '../transports/inProcess.js';
import { servedOperationText } from '../schema/renames.js';
import type { UpstreamDependencies } from '../upstreams/dependencies.js';
import type { Sandbox } from '../sandbox/server.js';
import { createSharedState } from '../state/index.js';
import { createGraphiqlHandler } from '../transports/http/graphiql.js';
import { createHealthEndpoints } from '../transports/http/health.js';
import { createHttpTransport } from '../transports/http/router.js';
import { resolveUpstreams } from './upstreams.js';
import { GatewayCredentials } from '../upstreams/credentials.js';
import { attachWebSocket } from '../transports/ws/websocket.js';
import { createMcpEndpoint } from '../transports/mcp/server.js';
import { ClientResolver } from '../transports/clientIdentity.js';
import { HostOriginCheck } from '../transports/hostOrigin.js';

// `node:http` through require: an ES import of it makes its namespace, reading every export, and Node 22+'s `http`
// exports WebSocket, CloseEvent and MessageEvent as getters that load Node's bundled undici (≈ 2.8 MB of heap) which
// the gateway never uses (bench/PROFILE.md, "Thirteenth pass"; test/app/idleModules.test.ts).
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** Options of {@link startGateway}; everything defaults to the environment (docs/configuration.md). */
export interface StartGatewayOptions {
  /** Environment to read when `config` is not given. @default process.env */
  env?: NodeJS.ProcessEnv;
  config?: GatewayConfig;
  /** Use this sandbox for upstreams without credentials instead of starting one in-process. */
  sandbox?: Sandbox;
  /** Where log lines go (tests capture them). @default process.stdout */
  logDestination?: NodeJS.WritableStream;
  /** Interval of the multipart subscription protocol's heartbeat parts (tests shorten it). @default 5000 */
  multipartHeartbeatMs?: number;
  /** JSON POSTs of known documents skip Apollo Server's per-request work (transports/http/graphql.ts); false sends every request through Apollo (tests compare the two). @default true */
  directExecution?: boolean;
  /** Time a router has to answer one message of a subscription over HTTP callbacks (tests shorten it). @default 5000 */
  callbackTimeoutMs?: number;
  /** What a test sets in the domains' long-lived state (live health's clock and state). */
  domains?: DomainServicesOptions;
  /** The dotenv file `npm start` read, named in the start-up log (the variables' names, never their values). */
  envFile?: { path: string; variables: string[] };
  /** Names set in `.env` or the environment that the gateway does not read: one warning each at start-up. */
  unknownNames?: readonly UnknownName[];
}

export interface Gateway {
  /** `http://host:port/graphql` */
  url: string;
  /** `ws://host:port/graphql` */
  wsUrl: string;
  origin: string;
  config: GatewayConfig;
  services: GatewayServices;
  /** The operation pipeline every transport runs. */
  pipeline: OperationPipeline;
  /** Runs an operation in-process, through the same pipeline: `inProcess.execute()`, `inProcess.subscribe()`. */
  inProcess: InProcessTransport;
  /** The in-process sandbox, when any upstream is served by it. */
  sandbox?: Sandbox;
  server: Server;
  /**
   * Refuses new operations, lets running ones finish within SHUTDOWN_GRACE_MS (streams end as their protocol ends),
   * aborts what outlives it, then closes every connection (WebSockets with 1001).
   */
  close(): Promise<void>;
}

/** Starts the whole gateway on one port: GraphQL over HTTP and WebSocket, GraphiQL, health and metrics. */
export async function startGateway(options: StartGatewayOptions = {}): Promise<Gateway> {
  const config = options.config ?? loadConfig(options.env ?? process.env);
  const redact = createRedactor(config.secrets);
  const log = createLogger({
    level: config.logLevel,
    redact,
    destination: options.logDestination as (NodeJS.WritableStream & { write(s: string): boolean }) | undefined,
    format: config.logFormat,
  });
  // Undefined (and nothing of the SDK loaded) unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const tracing = await startTracing(config.otlpEndpoint);
  const metrics = new GatewayMetrics();

  // A person reads a terminal: the sandbox's chat answers then run long enough to try Stop (tests read pipes).
  const watched = (options.logDestination ?? process.stdout) as { isTTY?: boolean };
  const chatAnswerLength = config.sandboxAnswerLength ?? (watched.isTTY === true ? 'long' : 'short');
  const needsSandbox =
    config.graph.mode === 'sandbox' || config.omdb.mode === 'sandbox' || config.chat.some((c) => c.mode === 'sandbox');
  // Loaded only when needed: a fully live gateway carries none of the emulators' code or data.
  const ownSandbox =
    needsSandbox && !options.sandbox
      ? await (
          await import('../sandbox/server.js')
        ).startSandbox({
          port: config.sandboxPort,
          settings: { chatTokenDelayMs: config.sandboxTokenDelayMs, chatAnswerLength },
        })
      : undefined;
  const sandbox = options.sandbox ?? ownSandbox;
  const upstreams = resolveUpstreams(config, sandbox);

  const state = await createSharedState({ redis: config.redis, replicas: config.replicas, metrics, log });
  const dependencies: UpstreamDependencies = {
    config,
    metrics,
    log,
    redact,
    state,
    credentials: new GatewayCredentials(log),
    onClose: [],
  };
  if (tracing) dependencies.onClose.push(() => tracing.shutdown());
  const { schema, services, pipeline, fairShare, inProcess } = await createGatewayCore({
    dependencies,
    upstreams,
    tracing,
    domains: options.domains,
  });

  // Node checks the header and request timeouts every connectionsCheckingInterval (30 s by default): a slow-header
  // client would otherwise hold its socket for up to that much longer.
  const { headersTimeoutMs, requestTimeoutMs } = config.http;
  const server = createServer({
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, headersTimeoutMs / 2),
  });
  server.keepAliveTimeout = 65_000;
  fairShare.guard(server);
  const hostOrigin = new HostOriginCheck(config.trust, log);
  const clients = new ClientResolver(config.trust);
  const websocket = attachWebSocket({ server, services, path: '/graphql', pipeline, hostOrigin, clients });
  const health = createHealthEndpoints(services);
  const http = await createHttpTransport({
    services,
    pipeline,
    hostOrigin,
    clients,
    health,
    // GraphiQL's tabs with the type names this schema serves (SUBGRAPH_TYPE_PREFIX, SUBGRAPH_RENAMES).
    graphiql: createGraphiqlHandler({
      examples: () => graphiqlExamples.map((e) => ({ ...e, query: servedOperationText(e.query, schema) })),
    }),
    mcp: createMcpEndpoint({ services, pipeline, clients }),
    heartbeatMs: options.multipartHeartbeatMs,
    direct: options.directExecution,
    callbackTimeoutMs: options.callbackTimeoutMs,
  });
  server.on('request', http.listener);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const origin = `http://${host}:${addr.port}`;
  health.ready = true;
  if (options.envFile)
    log.info(
      { envFile: options.envFile.path, variables: options.envFile.variables },
      `read ${options.envFile.variables.length} variables from ${options.envFile.path}`,
    );
  for (const d of config.deprecated) log.warn({ variable: d.variable }, `${d.variable} ${d.message}`);
  for (const u of options.unknownNames ?? [])
    log.warn({ variable: u.name, source: u.source, closest: u.closest }, `${u.name} ${describeUnknown(u)}`);
  for (const u of upstreams.filter((x) => x.served)) {
    const permissions = u.id === 'graph' ? graphPermissions(config) : undefined;
    log.info(
      { upstream: u.id, mode: u.mode, baseUrl: u.baseUrl, ...(permissions && { permissions: permissions.mode }) },
      `upstream ${u.id}: ${u.mode} ${u.baseUrl}${permissions ? ` (${permissions.text})` : ''}`,
    );
  }
  if (sandbox && upstreams.some((u) => u.mode === 'sandbox' && config.chat.some((c) => c.id === u.id))) {
    const { chatTokenDelayMs: delayMs, chatAnswerLength: length } = sandbox.settings;
    log.info(
      { chatTokenDelayMs: delayMs, chatAnswerLength: length },
      `sandbox chat answers stream a token every ${delayMs} ms (SANDBOX_TOKEN_DELAY_MS), ${length} answers (SANDBOX_ANSWER_LENGTH)`,
    );
  }
  const shared = state.status();
  log.info(
    { sharedState: shared.store, replicas: config.replicas },
    shared.store === 'redis'
      ? `shared state: redis (${shared.status}), fallback share 1/${config.replicas}`
      : 'shared state: in process',
  );
  log.info(
    { allowedHosts: config.trust.allowedHosts, allowedOrigins: config.trust.allowedOrigins },
    hostOrigin.describe(config.host),
  );
  log.info({ url: `${origin}/graphql` }, `gateway listening on ${origin} (GraphiQL at ${origin}/)`);

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/graphql`,
    wsUrl: `ws://${host}:${addr.port}/graphql`,
    origin,
    config,
    services,
    pipeline,
    inProcess,
    sandbox,
    server,
    close() {
      closing ??= (async () => {
        health.ready = false;
        const drained = await pipeline.drain(config.shutdownGraceMs);
        log.info(drained, 'operations drained');
        // Every operation has ended by now: close the sockets (graphql-ws with 1001) and the listener.
        await websocket.dispose();
        await http.stop();
        await closeServer(server);
        await Promise.allSettled(services.onClose.map((fn) => fn()));
        await state.close();
        await ownSandbox?.close();
        log.info('gateway stopped');
      })();
      return closing;
    },
  };
}

/** Stops listening and closes idle keep-alive connections; connections still answering are given a second. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 1000).unref();
  });
}

/** Which Graph permissions the gateway uses, said once at start-up (docs/service-health.md, "Credentials"). */
function graphPermissions(config: GatewayConfig): { mode: 'application' | 'delegated'; text: string } {
  if (config.graph.mode === 'sandbox')
    return {
      mode: 'application',
      text: "application permissions with the sandbox's credentials; a caller's Authorization header is forwarded when sent",
    };
  return config.graph.clientSecret
    ? {
        mode: 'application',
        text: `application permissions: the gateway's own token for tenant ${config.graph.tenantId}`,
      }
    : {
        mode: 'delegated',
        text: "delegated permissions: each caller's Authorization header is forwarded; a call without one is UNAUTHENTICATED",
      };
}
