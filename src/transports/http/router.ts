import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestIdFrom } from '../../context/request.js';
import type { GatewayServices } from '../../context/services.js';
import { ErrorCode, refusalStatus } from '../../errors/codes.js';
import type { Caller, OperationPipeline } from '../../pipeline/index.js';
import type { ClientResolver } from '../clientIdentity.js';
import type { HostOriginCheck } from '../hostOrigin.js';
import { JsonRpcCode, sendJsonRpcError } from '../mcp/jsonRpc.js';
import { MCP_PATHS } from '../mcp/protectedResource.js';
import { applyCors, corsPreflightRefusal } from './cors.js';
import { createGraphqlHttp } from './graphql.js';
import type { createHealthEndpoints } from './health.js';
import { createIncrementalResponder } from './incremental.js';
import { createMultipartHandler } from './multipart.js';
import { createRequestClassifier, type GraphqlHttpRoute, type RouteSink } from './classify.js';
import { sendJson, sendRefusal } from './response.js';
import { createSseHandler } from './sse.js';
import { createCallbackSubscriptions } from '../callback/subscriptions.js';

type Handler = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void>;

/** Options of {@link createHttpTransport}. */
export interface HttpTransportOptions {
  services: GatewayServices;
  /** Also the connection caps: a request on a socket past CLIENT_MAX_CONNECTIONS or MAX_CONNECTIONS is answered 429. */
  pipeline: OperationPipeline;
  /** ALLOWED_HOSTS and ALLOWED_ORIGINS, checked before any route. */
  hostOrigin: HostOriginCheck;
  /** Who each request's client is (TRUSTED_PROXIES, TRUSTED_ROUTER_KEYS). */
  clients: ClientResolver;
  health: ReturnType<typeof createHealthEndpoints>;
  /** GraphiQL's page and assets; true when it answered. */
  graphiql(req: IncomingMessage, res: ServerResponse): boolean;
  /** The Model Context Protocol endpoint (transports/mcp): /mcp and its OAuth protected-resource metadata. */
  mcp: Handler;
  /** Interval of the multipart subscription protocol's `{}` heartbeat parts. @default 5000 */
  heartbeatMs?: number;
  /** JSON POSTs of known documents skip Apollo Server (graphql.ts); false sends them through Apollo (tests compare the two). @default true */
  direct?: boolean;
  /** Time a router has to answer one message of a subscription over HTTP callbacks. @default 5000 */
  callbackTimeoutMs?: number;
}

const KNOWN_ROUTES = new Set(['/graphql', ...MCP_PATHS, '/healthz', '/readyz', '/metrics', '/']);

/**
 * The HTTP front door: the server's one request listener. Every request gets a request id and the HTTP metrics;
 * then the Host and Origin checks, the connection caps (against the client it resolves), health, GraphiQL and `/mcp`; `/graphql` gets CORS, the API key and the shutdown refusal,
 * then the classifier (classify.ts) decides once what the request is and hands it to the one handler of its kind.
 * Every answer is written by response.ts.
 */
export async function createHttpTransport(
  options: HttpTransportOptions,
): Promise<{ listener: (req: IncomingMessage, res: ServerResponse) => void; stop(): Promise<void> }> {
  const { services, pipeline, health, hostOrigin, clients } = options;
  const { config, log, metrics, redact } = services;
  const classify = createRequestClassifier(pipeline, {
    direct: options.direct ?? true,
    maxUploadBytes: config.chatDocuments.maxBytes,
  });
  const graphql = await createGraphqlHttp({ pipeline, services, clients });
  const incremental = createIncrementalResponder(pipeline, services, clients);
  const sse = createSseHandler({ schema: pipeline.schema, pipeline, services, clients });
  const multipart = createMultipartHandler({
    schema: pipeline.schema,
    pipeline,
    services,
    clients,
    heartbeatMs: options.heartbeatMs ?? 5000,
  });
  const callbacks = createCallbackSubscriptions({
    pipeline,
    services,
    clients,
    timeoutMs: options.callbackTimeoutMs,
  });

  /**
   * Each step below returns at once unless it must wait (a shared connection count, a health probe, a handler's
   * answer): a request is not carried through a chain of async frames that only pass their value on.
   */
  function serveGraphql(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    client: Pick<Caller, 'apiKey' | 'router'>,
  ): void {
    if (applyCors(req, res, config.corsOrigins)) return;
    const uncors = corsPreflightRefusal(req, config.corsOrigins);
    if (uncors) {
      hostOrigin.logRefusal(uncors, { path: '/graphql', origin: req.headers.origin });
      return sendRefusal(req, res, 403, pipeline.format([uncors]));
    }
    const refusal = pipeline.gate(client);
    if (refusal) {
      stampRequestId(res, requestId);
      return sendRefusal(req, res, refusalStatus(refusal), pipeline.format([refusal]));
    }
    // `gate` accepted its key: a router's is one of TRUSTED_ROUTER_KEYS.
    classify(req, res, client.router === true, new GraphqlExchange(req, res, requestId, handle, failed));
  }

  /** The one handler of a route's kind. */
  function handle(exchange: GraphqlExchange, route: GraphqlHttpRoute): void | Promise<void> {
    const { req, res, requestId } = exchange;
    switch (route.kind) {
      case 'refused':
        return sendRefusal(req, res, refusalStatus(route.error), pipeline.format([route.error]));
      case 'sse':
        return sse(req, res, requestId);
      case 'multipart':
        return multipart(req, res, requestId);
      case 'incremental':
        return incremental.serve(req, res, requestId, route.payload);
      case 'callback':
        return callbacks.serve(req, res, requestId, route.payload);
      case 'direct':
        return graphql.direct(req, res, requestId, route, exchange.failure);
      case 'apollo':
        return graphql.apollo(req, res, requestId, route);
    }
  }

  function serve(req: IncomingMessage, res: ServerResponse, path: string, requestId: string): void | Promise<void> {
    const misdirected = hostOrigin.refusal(req.headers, path === '/graphql' ? 'graphql' : 'endpoint');
    if (misdirected) {
      stampRequestId(res, requestId);
      hostOrigin.logRefusal(misdirected, { path, origin: req.headers.origin, host: req.headers.host });
      if (path === '/mcp') return sendJsonRpcError(res, 403, JsonRpcCode.InvalidRequest, misdirected.message);
      return sendRefusal(req, res, 403, pipeline.format([misdirected]));
    }
    const client = clients.of(req);
    const overConnections = pipeline.connectionRefusal(req, client, clients.connectionShare(req, client), res);
    // Across replicas (REDIS_URL) a socket's first request waits for the shared count.
    if (overConnections instanceof Promise)
      return overConnections.then((refused) => connected(req, res, path, requestId, client, refused));
    return connected(req, res, path, requestId, client, overConnections);
  }

  function connected(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    requestId: string,
    client: ReturnType<ClientResolver['of']>,
    overConnections: Awaited<ReturnType<OperationPipeline['connectionRefusal']>>,
  ): void | Promise<void> {
    if (overConnections) {
      stampRequestId(res, requestId);
      return sendRefusal(req, res, 429, pipeline.format([overConnections]), { connection: 'close' });
    }
    const answered = health.serve(req, res, path);
    if (answered === true) return;
    if (answered !== false)
      return answered.then((done) => (done ? undefined : routed(req, res, path, requestId, client)));
    return routed(req, res, path, requestId, client);
  }

  function routed(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    requestId: string,
    client: ReturnType<ClientResolver['of']>,
  ): void | Promise<void> {
    if (options.graphiql(req, res)) return;
    if (MCP_PATHS.has(path)) return options.mcp(req, res, requestId);
    if (path !== '/graphql')
      return sendJson(res, 404, { error: `nothing at ${path}; GraphQL is served at /graphql and GraphiQL at /` });
    return serveGraphql(req, res, requestId, client);
  }

  /** A request that failed past its checks: a 500 while nothing was sent, else its connection cut. */
  function failed(req: IncomingMessage, res: ServerResponse, requestId: string, error: unknown): void {
    // A client that leaves before its request body ended is not a failure of the gateway: nobody is left to answer.
    if (!req.complete && req.destroyed) return log.debug({ requestId }, 'client left before its request body ended');
    log.error({ requestId, err: redact(String((error as Error)?.stack ?? error)) }, 'request failed');
    stampRequestId(res, requestId);
    if (!res.headersSent)
      sendRefusal(
        req,
        res,
        500,
        pipeline.format([{ message: 'Internal server error', extensions: { code: ErrorCode.InternalServerError } }]),
      );
    else res.destroy();
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const requestId = requestIdFrom(req.headers['x-request-id']);
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    // Every answer carries the request's id. A POST to /graphql may be the direct route's, whose head goes out in one
    // `writeHead` with it (response.ts `sendResult`), not a table of headers begun here: its other answers are
    // stamped as they are decided (the refusals before its body is read, the exchange's other routes, a failure).
    if (path !== '/graphql' || req.method !== 'POST') res.setHeader(REQUEST_ID, requestId);
    const route = KNOWN_ROUTES.has(path) ? path : path.startsWith('/graphiql/') ? '/graphiql' : 'other';
    res.on('finish', () => {
      metrics.httpRequests.series(req.method ?? 'GET', route, String(res.statusCode)).inc();
      metrics.httpDuration.series(route).observe((performance.now() - started) / 1000);
    });
    let done: void | Promise<void>;
    try {
      done = serve(req, res, path, requestId);
    } catch (error) {
      return failed(req, res, requestId, error);
    }
    if (done) whenRejected(done, req, res, requestId, failed);
  };
  return {
    listener,
    async stop() {
      await callbacks.stop();
      await graphql.stop();
    },
  };
}

type Failed = (req: IncomingMessage, res: ServerResponse, requestId: string, error: unknown) => void;

const REQUEST_ID = 'x-request-id';

/** The request's id on an answer not yet written that does not carry it (see the listener). */
function stampRequestId(res: ServerResponse, requestId: string): void {
  if (!res.headersSent && !res.hasHeader(REQUEST_ID)) res.setHeader(REQUEST_ID, requestId);
}

/** A step that had to wait: its rejection goes to `failed` (one reaction, no `catch` wrapper). */
function whenRejected(
  done: Promise<void>,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  failed: Failed,
): void {
  done.then(undefined, (error: unknown) => failed(req, res, requestId, error));
}

/**
 * One `/graphql` request on its way to its handler: what the classifier decides goes to the handler of that kind,
 * and a failure (reading the body, or the handler's) to the router's failure answer. One object per request, not a
 * closure per step.
 */
class GraphqlExchange implements RouteSink {
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly requestId: string,
    private readonly handle: (exchange: GraphqlExchange, route: GraphqlHttpRoute) => void | Promise<void>,
    private readonly fail: Failed,
  ) {}

  route(route: GraphqlHttpRoute): void {
    // The direct route writes it with its head; every other handler writes its answer its own way.
    if (route.kind !== 'direct') stampRequestId(this.res, this.requestId);
    let done: void | Promise<void>;
    try {
      done = this.handle(this, route);
    } catch (error) {
      return this.failed(error);
    }
    if (done) whenRejected(done, this.req, this.res, this.requestId, this.fail);
  }

  failed(error: unknown): void {
    this.fail(this.req, this.res, this.requestId, error);
  }

  /** {@link failed} as a function, for a handler that settles its own promise (the direct route). */
  get failure(): (error: unknown) => void {
    return (error) => this.failed(error);
  }
}
