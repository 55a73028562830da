import { ApolloServer, HeaderMap, type HTTPGraphQLRequest } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { loadConfig, type GatewayConfig } from '../config/env.js';
import { formatError } from '../errors.js';
import { createLogger } from '../observability/logger.js';
import { GatewayMetrics } from '../observability/metrics.js';
import { createRedactor } from '../observability/redact.js';
import { bindTrace, endOperationSpan, runInTrace, startOperationSpan, startTracing } from '../observability/tracing.js';
import { createSharedState } from '../state/index.js';
import type { Sandbox } from '../sandbox/server.js';
import { legacyJsonStatusPlugin, operationLogPlugin, stripHttpExtension, subscriptionsOverHttpPlugin, upstreamBudgetPlugin } from './apolloPlugins.js';
import { createContext, requestIdFrom, type GatewayContext, type GatewayServices } from '../runtime/context.js';
import { graphiqlExamples } from './examples.js';
import { applyCors, clientOf, createApiKeyCheck, presentedApiKey } from './access.js';
import { createGraphiqlHandler } from './graphiql.js';
import { checkDocumentSize, limitRules } from './limits.js';
import { PersistedOperations } from './persistedOperations.js';
import { MAX_BODY_BYTES, readBody } from './requestBody.js';
import { upstreamEstimators } from '../resolvers.js';
import { buildSchema } from './schema.js';
import { resolveUpstreams } from './upstreams.js';
import { attachWebSocket } from './websocket.js';
import { createHttpStreams } from './httpStreams/index.js';
import { OperationGate } from './operationGate.js';
import { compiledExecution } from './execution.js';

/** Options of {@link startGateway}; everything defaults to the environment (CONTRACT.md section 2). */
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
}

export interface Gateway {
  /** `http://host:port/graphql` */
  url: string;
  /** `ws://host:port/graphql` */
  wsUrl: string;
  origin: string;
  config: GatewayConfig;
  services: GatewayServices;
  /** The in-process sandbox, when any upstream is served by it. */
  sandbox?: Sandbox;
  server: Server;
  /** Stops accepting, lets in-flight operations finish (up to the grace period), closes subscriptions with 1001. */
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

  const needsSandbox = config.graph.mode === 'sandbox' || config.omdb.mode === 'sandbox' || config.chat.some((c) => c.mode === 'sandbox');
  // Loaded only when needed: a fully live gateway carries none of the emulators' code or data.
  const ownSandbox = needsSandbox && !options.sandbox ? await (await import('../sandbox/server.js')).startSandbox() : undefined;
  const sandbox = options.sandbox ?? ownSandbox;
  const upstreams = resolveUpstreams(config, sandbox);

  const state = await createSharedState({ redis: config.redis, replicas: config.replicas, metrics, log });
  const services: GatewayServices = { config, metrics, log, redact, upstreams, state, shared: new Map(), onClose: [] };
  if (tracing) services.onClose.push(() => tracing.shutdown());
  const schema: GraphQLSchema = await buildSchema();

  const validationRules = limitRules(config.limits);
  const apiKeyCheck = createApiKeyCheck(config.apiKeys);
  const persisted = config.persistedOperationsFile ? PersistedOperations.load(config.persistedOperationsFile) : undefined;

  const server = createServer();
  server.keepAliveTimeout = 65_000;
  const gate = new OperationGate({ schema, services, validationRules, persisted, estimators: upstreamEstimators, tracing });
  const websocket = attachWebSocket({ server, schema, services, path: '/graphql', gate, apiKeyCheck });
  const httpStreams = createHttpStreams({ schema, gate, heartbeatMs: options.multipartHeartbeatMs });

  const apollo = new ApolloServer<GatewayContext>({
    // Apollo parses, validates and runs the plugins; execution is compiled per cached document (execution.ts).
    gateway: compiledExecution(schema),
    // Apollo's own notices (e.g. inline tracing enabled for this subgraph) go to the gateway's log, not the console.
    logger: log,
    introspection: config.introspection,
    includeStacktraceInErrorResponses: !config.production,
    // "Did you mean …?" suggestions reveal the schema; production hides them with introspection.
    hideSchemaDetailsFromClientErrors: !config.introspection,
    validationRules,
    parseOptions: { maxTokens: config.limits.maxTokens },
    // Automatic persisted queries stay on unless only the manifest's operations may run (resolved before Apollo).
    persistedQueries: persisted ? false : undefined,
    stopOnTerminationSignals: false,
    formatError: (formatted) => stripHttpExtension(formatError(formatted, { production: config.production, redact })),
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      // No @cacheControl in this schema; the plugin would otherwise hook every field resolve.
      ApolloServerPluginCacheControlDisabled(),
      // Federated inline traces (ftv1) are built from field hooks that compiled execution does not call.
      ApolloServerPluginInlineTraceDisabled(),
      ApolloServerPluginDrainHttpServer({ httpServer: server, stopGracePeriodMillis: config.shutdownGraceMs }),
      { async serverWillStart() { return { async drainServer() { await websocket.dispose(); } }; } },
      subscriptionsOverHttpPlugin,
      upstreamBudgetPlugin(upstreamEstimators),
      legacyJsonStatusPlugin,
      operationLogPlugin,
    ],
  });
  await apollo.start();

  const graphiql = createGraphiqlHandler({ examples: graphiqlExamples });
  let ready = false;

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const requestId = requestIdFrom(req.headers['x-request-id']);
    res.setHeader('x-request-id', requestId);
    const path = (req.url ?? '/').split('?')[0];
    const route = ['/graphql', '/healthz', '/readyz', '/metrics', '/'].includes(path) ? path : path.startsWith('/graphiql/') ? '/graphiql' : 'other';
    res.on('finish', () => {
      metrics.httpRequests.inc({ method: req.method ?? 'GET', route, status: String(res.statusCode) });
      metrics.httpDuration.observe({ route }, (performance.now() - started) / 1000);
    });
    serve(req, res, path, requestId).catch((error: unknown) => {
      // A client that leaves before its request body ended is not a failure of the gateway: nobody is left to answer.
      if (!req.complete && req.destroyed) return log.debug({ requestId }, 'client left before its request body ended');
      log.error({ requestId, err: redact(String((error as Error)?.stack ?? error)) }, 'request failed');
      if (!res.headersSent) sendJson(res, 500, { errors: [{ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
      else res.destroy();
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse, path: string, requestId: string): Promise<void> {
    if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      return sendJson(res, ready ? 200 : 503, {
        status: ready ? 'ready' : 'not ready',
        upstreams: upstreams.map((u) => ({ id: u.id, mode: u.mode })),
        // Redis down is degraded, not unready: the replica still serves, on its per-replica limits.
        sharedState: state.status(),
      });
    }
    if (path === '/metrics' && req.method === 'GET') {
      const text = await metrics.registry.metrics();
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      res.end(text);
      return;
    }
    if (graphiql(req, res)) return;
    if (path === '/graphql') {
      if (applyCors(req, res, config.corsOrigins)) return;
      if (apiKeyCheck && !apiKeyCheck(presentedApiKey(req.headers))) {
        return sendGraphQLError(res, 401, 'Missing or unknown API key: send one of the gateway keys in the x-api-key header.', { code: 'UNAUTHENTICATED' });
      }
      if (httpStreams.handles(req)) return httpStreams.serve(req, res, requestId);
      return graphqlOverHttp(req, res, requestId);
    }
    sendJson(res, 404, { error: `nothing at ${path}; GraphQL is served at /graphql and GraphiQL at /` });
  }

  async function graphqlOverHttp(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    let body: unknown;
    if (req.method === 'POST') {
      const raw = await readBody(req, MAX_BODY_BYTES);
      if (raw === undefined) {
        return sendJson(res, 413, { errors: [{ message: `Request body larger than ${MAX_BODY_BYTES} bytes`, extensions: { code: 'BAD_USER_INPUT' } }] });
      }
      const type = headers.get('content-type') ?? '';
      if (type.includes('json')) {
        try {
          body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
        } catch {
          return sendJson(res, 400, { errors: [{ message: 'Request body is not valid JSON', extensions: { code: 'BAD_USER_INPUT' } }] });
        }
      } else body = raw.toString('utf8');
    }
    const url = req.url ?? '/graphql';
    const q = url.indexOf('?');
    let search = q === -1 ? '' : url.slice(q);
    // Limits and the persisted-operation manifest look at the document before Apollo parses it.
    const params = new URLSearchParams(search);
    const fields = (req.method === 'POST' ? body : Object.fromEntries(params)) as Record<string, unknown> | undefined;
    if (fields && typeof fields === 'object' && !Array.isArray(fields)) {
      if (persisted) {
        const extensions = typeof fields.extensions === 'string' ? safeJson(fields.extensions) : fields.extensions;
        const resolved = persisted.resolve({ ...fields, extensions } as never);
        if (typeof resolved !== 'string') return sendGraphQLError(res, 403, resolved.message, resolved.extensions);
        if (req.method === 'POST') {
          const { extensions: _e, documentId: _d, ...rest } = fields;
          body = { ...rest, query: resolved };
        }
        else {
          params.set('query', resolved);
          params.delete('extensions');
          params.delete('documentId');
          search = `?${params}`;
        }
      }
      const tooLarge = checkDocumentSize(req.method === 'POST' ? (body as Record<string, unknown>).query : params.get('query'), config.limits);
      if (tooLarge) return sendGraphQLError(res, 400, tooLarge.message, tooLarge.extensions);
    }
    const httpGraphQLRequest: HTTPGraphQLRequest = { method: (req.method ?? 'GET').toUpperCase(), headers, search, body };
    const trace = startOperationSpan(tracing, req.headers, 'http');
    try {
      const result = await runInTrace(trace, () =>
        apollo.executeHTTPGraphQLRequest({
          httpGraphQLRequest,
          context: async () => bindTrace(createContext(services, { requestId, signal: controller.signal, authorization: req.headers.authorization, client: clientOf(config.apiKeys, presentedApiKey(req.headers), req.socket.remoteAddress) }), trace),
        }),
      );
      for (const [key, value] of result.headers) res.setHeader(key, value);
      res.statusCode = result.status ?? 200;
      if (result.body.kind === 'complete') {
        res.end(result.body.string);
        return;
      }
      for await (const chunk of result.body.asyncIterator) res.write(chunk);
      res.end();
    } finally {
      endOperationSpan(trace, []);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const origin = `http://${host}:${addr.port}`;
  ready = true;
  for (const u of upstreams) log.info({ upstream: u.id, mode: u.mode, baseUrl: u.baseUrl }, `upstream ${u.id}: ${u.mode} ${u.baseUrl}`);
  const shared = state.status();
  log.info({ sharedState: shared.store, replicas: config.replicas }, shared.store === 'redis' ? `shared state: redis (${shared.status}), fallback share 1/${config.replicas}` : 'shared state: in process');
  log.info({ url: `${origin}/graphql` }, `gateway listening on ${origin} (GraphiQL at ${origin}/)`);

  let closing: Promise<void> | undefined;
  return {
    url: `${origin}/graphql`,
    wsUrl: `ws://${host}:${addr.port}/graphql`,
    origin,
    config,
    services,
    sandbox,
    server,
    close() {
      closing ??= (async () => {
        ready = false;
        await apollo.stop();
        await Promise.allSettled(services.onClose.map((fn) => fn()));
        await state.close();
        await ownSandbox?.close();
        log.info('gateway stopped');
      })();
      return closing;
    },
  };
}

function sendGraphQLError(res: ServerResponse, status: number, message: string, extensions: Record<string, unknown>): void {
  sendJson(res, status, { errors: [{ message, extensions }] });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
