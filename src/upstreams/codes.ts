/**
 * The `extensions.upstreamCode` values the gateway itself sets on upstream errors (an upstream's own codes, such as
 * Graph's `ErrorItemNotFound`, pass through as they came). Exported so that callers in other layers compare with a
 * name, not a string they must keep in step (schema/chat.graphql's `CIRCUIT_OPEN` outcome, docs/configuration.md).
 */
export const UpstreamCode = {
  /** The circuit breaker paused calls to a failing upstream (http/breaker.ts). */
  CircuitOpen: 'CIRCUIT_OPEN',
  /** A body, or one stream event, past UPSTREAM_MAX_RESPONSE_BYTES. */
  ResponseTooLarge: 'RESPONSE_TOO_LARGE',
  /** The process-wide UPSTREAM_MAX_BUFFERED_BYTES is spent. */
  ResponseBufferFull: 'RESPONSE_BUFFER_FULL',
  /** A 2xx body that is not valid UTF-8. */
  InvalidUtf8: 'INVALID_UTF8',
} as const;

export type UpstreamCode = (typeof UpstreamCode)[keyof typeof UpstreamCode];
