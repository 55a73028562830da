import type { IncomingMessage } from 'node:http';

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) for /mcp with MCP_AUTH=jwt: the document an MCP client reads,
 * after a 401 whose `WWW-Authenticate` points at it, to learn which authorization server issues tokens for /mcp.
 */
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

/** The endpoint's own path. */
export const MCP_PATH = '/mcp';

/**
 * The paths the router hands to the MCP endpoint: /mcp, and the metadata at the root well-known path (the contract's
 * name) and at the path RFC 9728 section 3.1 derives for a resource at `/mcp` (which MCP clients try first).
 */
export const MCP_PATHS: ReadonlySet<string> = new Set([
  MCP_PATH,
  PROTECTED_RESOURCE_PATH,
  `${PROTECTED_RESOURCE_PATH}${MCP_PATH}`,
]);

/** What the metadata says: RFC 9728 section 2's fields that apply to a bearer-token resource. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: string[];
  scopes_supported?: string[];
  resource_name: string;
}

/** The metadata and its URL, for one request (the resource's URL may come from its Host). */
export interface ProtectedResource {
  /** The resource identifier: MCP_JWT_AUDIENCE when it is a URL, else this gateway's /mcp as the request reached it. */
  resource: string;
  /** Where its metadata is (RFC 9728 section 3.1: the well-known path between the host and the resource's path). */
  metadataUrl: string;
  metadata: ProtectedResourceMetadata;
}

/**
 * The protected resource /mcp is. MCP clients ask the authorization server for a token for the URL they connect to
 * (RFC 8707 `resource`), so an audience that is a URL is that URL; an audience that is not (an `api://…` id) leaves
 * the URL to the request's `Host` (checked against ALLOWED_HOSTS before it gets here).
 */
export function protectedResource(
  req: IncomingMessage,
  options: { issuer: string; audience: string; scopes: readonly string[] },
): ProtectedResource {
  const resource = isHttpUrl(options.audience) ? options.audience : `http://${hostOf(req)}${MCP_PATH}`;
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return {
    resource,
    metadataUrl: `${url.origin}${PROTECTED_RESOURCE_PATH}${path}`,
    metadata: {
      resource,
      authorization_servers: [options.issuer],
      bearer_methods_supported: ['header'],
      ...(options.scopes.length ? { scopes_supported: [...options.scopes] } : {}),
      resource_name: 'GraphQL gateway tools (MCP)',
    },
  };
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'http:' || protocol === 'https:';
}

/** The request's Host when it is a plain host[:port], else the address the request came in on. */
function hostOf(req: IncomingMessage): string {
  const host = req.headers.host;
  if (host && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host)) return host;
  const { localAddress, localPort } = req.socket;
  return localAddress?.includes(':') ? `[${localAddress}]:${localPort}` : `${localAddress}:${localPort}`;
}
