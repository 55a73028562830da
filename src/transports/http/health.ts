import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayServices } from '../../context/services.js';
import { sendJson } from './response.js';
import type { ResolvedUpstream } from '../../context/services.js';
import type { GatewayCredentials } from '../../upstreams/credentials.js';

/**
 * `/healthz` (the process answers), `/readyz` (it takes traffic: false before listening and while draining) and
 * `/metrics` (Prometheus). Answers and returns true for those paths, false for any other.
 */
export function createHealthEndpoints(services: GatewayServices): {
  /** Whether it answered: a promise only for `/metrics` (the registry collects asynchronously). */
  serve(req: IncomingMessage, res: ServerResponse, path: string): boolean | Promise<boolean>;
  ready: boolean;
} {
  const { metrics, state, upstreams } = services;
  const endpoints = {
    ready: false,
    // Not async: every request to the port asks, and the GraphQL ones need no promise and no await from it.
    serve(req: IncomingMessage, res: ServerResponse, path: string): boolean | Promise<boolean> {
      if (path === '/healthz') {
        sendJson(res, 200, { status: 'ok' });
        return true;
      }
      if (path === '/readyz') {
        sendJson(res, endpoints.ready ? 200 : 503, {
          status: endpoints.ready ? 'ready' : 'not ready',
          // A refused credential of the gateway's own is named here, yet stays ready: every other domain still serves.
          upstreams: readyUpstreams(upstreams, services.credentials),
          // Redis down is degraded, not unready: the replica still serves, on its per-replica limits.
          sharedState: state.status(),
        });
        return true;
      }
      if (path === '/metrics' && req.method === 'GET') {
        return metrics.registry.metrics().then((text) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(text);
          return true;
        });
      }
      return false;
    },
  };
  return endpoints;
}

/** `/readyz`'s upstream list: each upstream this instance calls, its mode and, when it refused the gateway's credential, which variable to fix. */
export function readyUpstreams(upstreams: readonly ResolvedUpstream[], credentials: GatewayCredentials) {
  const rejected = new Map(credentials.list().map((r) => [r.upstream, r]));
  return upstreams
    .filter((u) => u.served)
    .map((u) => {
      const r = rejected.get(u.id);
      return r
        ? { id: u.id, mode: u.mode, credentials: 'rejected', fix: r.variable, since: r.since, retryAt: r.retryAt }
        : { id: u.id, mode: u.mode };
    });
}
