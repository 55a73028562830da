import type { IncomingMessage } from 'node:http';
import { badRequest, type GatewayError } from '../../errors/codes.js';

/** Content types a browser sends cross-site without asking first (a "simple" request). */
const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
/** Headers a page can only set after a CORS preflight the gateway answers (CORS_ORIGINS). */
const PREFLIGHT_HEADERS = ['apollo-require-preflight', 'x-apollo-operation-name', 'x-graphql-event-stream-token'];

/**
 * Apollo Server's CSRF rule, applied to the streams it does not serve: a request must be one a browser would have
 * preflighted. Otherwise any page could open a costly chat stream with the visitor's cookies or network position,
 * since a simple request is sent before CORS is consulted. GET needs a preflight header, POST a JSON content type.
 */
export function crossSiteRefusal(req: IncomingMessage): GatewayError | undefined {
  if (req.method !== 'GET' && req.method !== 'POST' && req.method !== 'HEAD') return undefined;
  if (PREFLIGHT_HEADERS.some((h) => req.headers[h])) return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type && !SIMPLE_TYPES.has(type)) return undefined;
  return badRequest(
    'This request has been blocked as a potential Cross-Site Request Forgery (CSRF): send it with `content-type: application/json`, or add an `apollo-require-preflight: true` header.',
  );
}
