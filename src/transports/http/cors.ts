import type { IncomingMessage, ServerResponse } from 'node:http';

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
