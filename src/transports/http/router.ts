import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, refusalStatus } from '../../errors/codes.js';
import type { FairShare } from '../../pipeline/rules/fairShare.js';
import type { OperationPipeline } from '../../pipeline/index.js';
import { presentedApiKey } from '../../pipeline/rules/apiKey.js';
import { requestIdFrom } from '../../context/request.js';
import type { GatewayServices } from '../../context/services.js';
import { applyCors } from './cors.js';
import type { createHealthEndpoints } from './health.js';
import { sendJson } from './response.js';

type Handler = (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void>;

/** The parts the router sends requests to. */
export interface Routes {
  health: ReturnType<typeof createHealthEndpoints>;
  /** GraphiQL's page and assets; true when it answered. */
  graphiql(req: IncomingMessage, res: ServerResponse): boolean;
  /** Streaming protocols over HTTP (SSE, multipart), chosen by the request's headers. */
  httpStreams: { handles(req: IncomingMessage): boolean; serve: Handler };
  /** GraphQL over HTTP (Apollo as the protocol adapter). */
  graphql: Handler;
  /** The Model Context Protocol endpoint: trusted operations as tools, through the same pipeline. */
  mcp: Handler;
  /** Connection caps: a request on a socket past CLIENT_MAX_CONNECTIONS or MAX_CONNECTIONS is answered 429. */
  fairShare: FairShare;
}

const KNOWN_ROUTES = new Set(['/graphql', '/mcp', '/healthz', '/readyz', '/metrics', '/']);

/**
 * The HTTP server's request listener: a request id and the HTTP metrics for every request, then health, GraphiQL or
 * `/graphql` (CORS, the API key, the shutdown refusal, then SSE, multipart or plain GraphQL over HTTP).
 */
export function createRouter(services: GatewayServices, pipeline: OperationPipeline, routes: Routes): (req: IncomingMessage, res: ServerResponse) => void {
  const { config, log, metrics, redact } = services;

  async function serve(req: IncomingMessage, res: ServerResponse, path: string, requestId: string): Promise<void> {
    const overConnections = routes.fairShare.connectionRefusal(req, presentedApiKey(req.headers));
    if (overConnections) {
      res.setHeader('connection', 'close');
      return sendJson(res, 429, { errors: pipeline.format([overConnections]) });
    }
    if (await routes.health.serve(req, res, path)) return;
    if (routes.graphiql(req, res)) return;
    if (path === '/mcp') return routes.mcp(req, res, requestId);
    if (path !== '/graphql') {
      return sendJson(res, 404, { error: `nothing at ${path}; GraphQL is served at /graphql and GraphiQL at /` });
    }
    if (applyCors(req, res, config.corsOrigins)) return;
    const refusal = pipeline.authenticate(presentedApiKey(req.headers)) ?? pipeline.drainingRefusal();
    if (refusal) {
      return sendJson(res, refusalStatus(refusal), { errors: pipeline.format([refusal]) });
    }
    if (routes.httpStreams.handles(req)) return routes.httpStreams.serve(req, res, requestId);
    return routes.graphql(req, res, requestId);
  }

  return (req, res) => {
    const started = performance.now();
    const requestId = requestIdFrom(req.headers['x-request-id']);
    res.setHeader('x-request-id', requestId);
    const path = (req.url ?? '/').split('?')[0];
    const route = KNOWN_ROUTES.has(path) ? path : path.startsWith('/graphiql/') ? '/graphiql' : 'other';
    res.on('finish', () => {
      metrics.httpRequests.inc({ method: req.method ?? 'GET', route, status: String(res.statusCode) });
      metrics.httpDuration.observe({ route }, (performance.now() - started) / 1000);
    });
    serve(req, res, path, requestId).catch((error: unknown) => {
      // A client that leaves before its request body ended is not a failure of the gateway: nobody is left to answer.
      if (!req.complete && req.destroyed) return log.debug({ requestId }, 'client left before its request body ended');
      log.error({ requestId, err: redact(String((error as Error)?.stack ?? error)) }, 'request failed');
      if (!res.headersSent) sendJson(res, 500, { errors: [{ message: 'Internal server error', extensions: { code: ErrorCode.InternalServerError } }] });
      else res.destroy();
    });
  };
}
