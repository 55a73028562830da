import { ErrorCode, upstreamError, type GatewayError } from '../../errors/codes.js';
import { parseRetryAfter } from '../http/retry.js';
import type { RawGraphError } from './types.js';

export const UPSTREAM = 'graph';

type Headers = Record<string, string | string[] | undefined>;

const header = (headers: Headers, name: string): string | undefined => {
  const v =
    headers[name] ??
    headers[name.toLowerCase()] ??
    Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(v) ? v[0] : v;
};

function codeFor(status: number, write: boolean): ErrorCode {
  if (status === 401) return ErrorCode.Unauthenticated;
  if (status === 403) return ErrorCode.Forbidden;
  if (status === 404) return ErrorCode.NotFound;
  if (status === 412) return ErrorCode.PreconditionFailed;
  if (status === 429) return ErrorCode.UpstreamRateLimited;
  if (status === 504) return ErrorCode.UpstreamTimeout;
  // A 409 (the id already exists) and a 400 on a write are about what the caller asked to store; a 400 on a read
  // means the gateway built a bad request.
  if (status === 409 || (write && (status === 400 || status === 422))) return ErrorCode.BadUserInput;
  return ErrorCode.UpstreamError;
}

const HINTS: Partial<Record<number, string>> = {
  401: 'Send a valid `Authorization: Bearer` token for Microsoft Graph, or configure GRAPH_CLIENT_SECRET.',
  403: 'The token lacks ServiceHealth.Read.All (or the write permission this call needs).',
  412: 'Read the entity again and pass its current `etag` as ifMatch.',
  429: 'Retry after the time given in extensions.retryAfter.',
};

/**
 * Graph's error envelope and status as a contract error, carrying Graph's `request-id` and error code.
 * `write` tells whether the request stored the caller's input (then 400 is the caller's fault).
 */
export function graphError(status: number, body: unknown, headers: Headers, write: boolean): GatewayError {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as RawGraphError;
  const inner = envelope.error?.innerError ?? envelope.error?.innererror;
  const upstreamCode = envelope.error?.code || inner?.code || undefined;
  const detail = envelope.error?.message ? `: ${envelope.error.message}` : '.';
  const hint = HINTS[status] ? ` ${HINTS[status]}` : '';
  return upstreamError(
    codeFor(status, write),
    `Microsoft Graph answered ${status}${upstreamCode ? ` ${upstreamCode}` : ''}${detail}${hint}`,
    {
      upstream: UPSTREAM,
      status,
      requestId: inner?.['request-id'] ?? header(headers, 'request-id'),
      upstreamCode,
      retryAfter: parseRetryAfter(header(headers, 'retry-after')),
    },
  );
}

/** A body that is not the JSON Graph promised. */
export function malformedResponse(status: number, headers: Headers): GatewayError {
  return upstreamError(ErrorCode.UpstreamError, `Microsoft Graph answered ${status} with a body that is not JSON.`, {
    upstream: UPSTREAM,
    status,
    requestId: header(headers, 'request-id'),
  });
}
