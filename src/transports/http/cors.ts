import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayError } from '../../errors/codes.js';
import { originRefusal } from '../hostOrigin.js';

const ALLOWED_HEADERS =
  'content-type, authorization, x-api-key, x-request-id, apollo-require-preflight, x-apollo-operation-name';

/**
 * CORS for browser frontends on other origins (CORS_ORIGINS). Answers a preflight itself (returns true), otherwise
 * adds the headers and lets the request go on. CSRF prevention stays on independently (Apollo Server's rule, decided in classify.ts).
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

/**
 * A CORS preflight from an origin CORS_ORIGINS does not list (one the Origin check admitted through ALLOWED_ORIGINS):
 * FORBIDDEN naming CORS_ORIGINS. Left to go on, it would meet CSRF prevention and get a 400 about a missing header,
 * a riddle to whoever reads it, while the browser only reports a failed fetch.
 */
export function corsPreflightRefusal(req: IncomingMessage, allowed: readonly string[]): GatewayError | undefined {
  const origin = req.headers.origin;
  if (req.method !== 'OPTIONS' || !origin || req.headers['access-control-request-method'] === undefined)
    return undefined;
  if (allowed.includes('*') || allowed.includes(origin)) return undefined;
  return originRefusal(origin, 'graphql');
}
