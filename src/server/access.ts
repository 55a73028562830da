import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Gateway API keys (GATEWAY_API_KEYS). Keys are compared as SHA-256 digests with `timingSafeEqual`, so neither the
 * content nor the length of a key leaks through response timing.
 */
export function createApiKeyCheck(keys: readonly string[]): ((presented: string | undefined) => boolean) | undefined {
  if (keys.length === 0) return undefined;
  const digests = keys.map((k) => createHash('sha256').update(k).digest());
  return (presented) => {
    if (!presented) return false;
    const digest = createHash('sha256').update(presented).digest();
    let ok = false;
    for (const d of digests) ok = timingSafeEqual(d, digest) || ok;
    return ok;
  };
}

/** The key a request presents: `x-api-key`, since `Authorization` carries the caller's own upstream token. */
export function presentedApiKey(headers: IncomingMessage['headers']): string | undefined {
  const v = headers['x-api-key'];
  return Array.isArray(v) ? v[0] : v;
}

/** Who a caller is for fair shares: its API key when GATEWAY_API_KEYS is set (one it cannot invent), else its address. */
export function clientOf(apiKeys: readonly string[], apiKey: string | undefined, remoteAddress: string | undefined): string {
  return (apiKeys.length > 0 && apiKey) || remoteAddress || 'unknown';
}

const ALLOWED_HEADERS = 'content-type, authorization, x-api-key, x-request-id, apollo-require-preflight, x-apollo-operation-name';

/**
 * CORS for browser frontends on other origins (CORS_ORIGINS). Answers a preflight itself (returns true), otherwise
 * adds the headers and lets the request go on. CSRF prevention stays on independently (Apollo's preflight check).
 */
export function applyCors(req: IncomingMessage, res: ServerResponse, allowed: readonly string[]): boolean {
  const origin = req.headers.origin;
  if (allowed.length === 0 || !origin) return false;
  const permitted = allowed.includes('*') || allowed.includes(origin);
  res.setHeader('vary', 'Origin');
  if (!permitted) return false;
  res.setHeader('access-control-allow-origin', allowed.includes('*') ? '*' : origin);
  res.setHeader('access-control-expose-headers', 'x-request-id');
  if (req.method === 'OPTIONS') {
    res.writeHead(204, {
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-allow-headers': ALLOWED_HEADERS,
      'access-control-max-age': '600',
    });
    res.end();
    return true;
  }
  return false;
}
