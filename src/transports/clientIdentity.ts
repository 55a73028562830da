import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';
import type { TrustConfig } from '../config/env.js';
import { createApiKeyCheck, type ConnectionShare } from '../pipeline/index.js';
import type { ClientIdentity } from '../pipeline/operation.js';

/** The gateway API key a request presents (`x-api-key`; graphql-ws carries it in `connectionParams` instead). */
export function presentedApiKey(headers: IncomingMessage['headers']): string | undefined {
  const v = headers['x-api-key'];
  return Array.isArray(v) ? v[0] : v;
}

/** Longest client name a router may give: it is kept as a digest, but hashing megabytes per request is not free. */
const MAX_CLIENT_NAME = 256;

/**
 * Who the client of a request really is, resolved once per request (HTTP) or connection and operation (graphql-ws):
 * - its address: the socket's peer, or, when that peer is a trusted proxy (TRUSTED_PROXIES), the nearest address of
 *   `X-Forwarded-For` that is not one (proxy-addr, as Express and Fastify read it: a client cannot claim an address
 *   by sending the header itself, since the proxy appends the peer it saw);
 * - behind a federation router (a key of TRUSTED_ROUTER_KEYS): the end client the router names in
 *   ROUTER_CLIENT_HEADER, as the identity's `subject`. A router multiplexes its subscribers over one WebSocket, so
 *   there the name is read per operation ({@link ClientResolver.ofOperation}).
 * An authenticated subject from another source (a verified token's `sub`) is set the same way, as `subject`.
 */
export class ClientResolver {
  private readonly resolved = new WeakMap<IncomingMessage, ClientIdentity>();
  private readonly trusted: ((address: string, hop: number) => boolean) | undefined;
  private readonly routerKey: ((presented: string | undefined) => boolean) | undefined;
  private readonly header: string | undefined;

  constructor(trust: Pick<TrustConfig, 'trustedProxies' | 'routerKeys' | 'routerClientHeader'>) {
    this.trusted = trust.trustedProxies.length ? proxyAddr.compile(trust.trustedProxies) : undefined;
    this.routerKey = createApiKeyCheck(trust.routerKeys);
    this.header = trust.routerClientHeader;
  }

  /** The client of an HTTP request or WebSocket upgrade (resolved once per request where resolving costs something). */
  of(req: IncomingMessage): ClientIdentity {
    // Without proxies or routers to trust, the client is what the request says: cheaper to read again than to keep.
    if (!this.trusted && !this.routerKey)
      return { apiKey: presentedApiKey(req.headers), remoteAddress: req.socket.remoteAddress };
    let identity = this.resolved.get(req);
    if (!identity) {
      identity = this.resolve(req);
      this.resolved.set(req, identity);
    }
    return identity;
  }

  /**
   * How the request's socket counts against its client's CLIENT_MAX_CONNECTIONS ({@link ConnectionShare}): a router's
   * request against the end client it names, else against no one; a trusted proxy's per request, against the client
   * it forwards; anyone else's socket against them.
   */
  connectionShare(req: IncomingMessage, client: ClientIdentity): ConnectionShare {
    if (client.router) return client.subject ? 'request' : 'none';
    return this.trusted !== undefined && this.trusted(req.socket.remoteAddress ?? '', 0) ? 'request' : 'socket';
  }

  /**
   * The client of one graphql-ws operation on `connection`: on a router's connection, the end client the operation
   * names (Hive Gateway's `propagateHeaders` puts the client's headers in the operation's `extensions.headers`), else
   * the connection's own (`connectionParams`, the upgrade request).
   */
  ofOperation(connection: ClientIdentity, extensions: unknown): ClientIdentity {
    if (!connection.router || !this.header) return connection;
    const named = headerIn((extensions as { headers?: unknown } | null | undefined)?.headers, this.header);
    return named ? { ...connection, subject: named } : connection;
  }

  /**
   * The client of a graphql-ws connection once `connection_init` arrived: its key may come in `connectionParams`
   * (browsers cannot set WebSocket headers), and a router may name its end client there (or in their `headers`) or
   * in the upgrade request.
   */
  ofConnection(req: IncomingMessage, params: Record<string, unknown>, apiKey: string | undefined): ClientIdentity {
    const { remoteAddress } = this.of(req);
    if (!apiKey || !this.routerKey?.(apiKey)) return { apiKey, remoteAddress };
    const named = this.header
      ? (headerIn(params, this.header) ?? headerIn(params.headers, this.header) ?? headerIn(req.headers, this.header))
      : undefined;
    return named ? { apiKey, remoteAddress, router: true, subject: named } : { apiKey, remoteAddress, router: true };
  }

  private resolve(req: IncomingMessage): ClientIdentity {
    const apiKey = presentedApiKey(req.headers);
    const remoteAddress = this.trusted ? proxyAddr(req, this.trusted) : req.socket.remoteAddress;
    if (!apiKey || !this.routerKey?.(apiKey)) return { apiKey, remoteAddress };
    const named = this.header ? headerIn(req.headers, this.header) : undefined;
    return named ? { apiKey, remoteAddress, router: true, subject: named } : { apiKey, remoteAddress, router: true };
  }
}

/** The value of header `name` (lower case) in a header object whatever its case, when it is a usable client name. */
function headerIn(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const record = headers as Record<string, unknown>;
  let value = record[name];
  if (value === undefined) {
    for (const key in record) {
      if (key.toLowerCase() === name) {
        value = record[key];
        break;
      }
    }
  }
  if (Array.isArray(value)) value = value[0];
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_CLIENT_NAME ? value : undefined;
}
