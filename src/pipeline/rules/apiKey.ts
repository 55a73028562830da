import { createHash, timingSafeEqual } from 'node:crypto';
import { ErrorCode, GatewayError } from '../../errors/codes.js';

/** Whether a presented key is one of GATEWAY_API_KEYS; undefined when the gateway has no keys (everyone is let in). */
export type ApiKeyCheck = (presented: string | undefined) => boolean;

/**
 * Gateway API keys (GATEWAY_API_KEYS). Keys are compared as SHA-256 digests with `timingSafeEqual`, so neither the
 * content nor the length of a key leaks through response timing. Checked once per connection by the transports
 * (an HTTP request, a WebSocket's `connection_init`) and once per call by the in-process entry point.
 */
export function createApiKeyCheck(keys: readonly string[]): ApiKeyCheck | undefined {
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

/** UNAUTHENTICATED (HTTP 401) for a missing or unknown key; the key itself is never repeated. */
export function apiKeyRefusal(): GatewayError {
  return new GatewayError(
    ErrorCode.Unauthenticated,
    'Missing or unknown API key: send one of the gateway keys in the x-api-key header.',
    { http: { status: 401 } },
  );
}
