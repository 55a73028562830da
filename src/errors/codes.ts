import { GraphQLError } from 'graphql';

/**
 * Every `extensions.code` a client can see (docs/clients-and-transports.md, "Errors"). This module is the only place that names them.
 */
export enum ErrorCode {
  BadUserInput = 'BAD_USER_INPUT',
  Unauthenticated = 'UNAUTHENTICATED',
  Forbidden = 'FORBIDDEN',
  NotFound = 'NOT_FOUND',
  PreconditionFailed = 'PRECONDITION_FAILED',
  /** The caller is over one of the gateway's own fair-share caps (HTTP 429). */
  RateLimited = 'RATE_LIMITED',
  UpstreamRateLimited = 'UPSTREAM_RATE_LIMITED',
  UpstreamQuotaExhausted = 'UPSTREAM_QUOTA_EXHAUSTED',
  UpstreamTimeout = 'UPSTREAM_TIMEOUT',
  UpstreamError = 'UPSTREAM_ERROR',
  QueryTooComplex = 'QUERY_TOO_COMPLEX',
  InternalServerError = 'INTERNAL_SERVER_ERROR',
}

/**
 * `extensions.warnings[].code`: something the caller should know of an answer that still succeeded (CONTRACT.md §11).
 */
export enum WarningCode {
  /** The model answered, but its vendor has deprecated it: the message names the day it retires and its successor. */
  ModelRetiring = 'MODEL_RETIRING',
}

/** One entry of an answer's `extensions.warnings`. */
export interface AnswerWarning {
  code: WarningCode;
  message: string;
}

/** `extensions.reason`: why a request was refused before it ran, finer than its code. */
export enum ErrorReason {
  /** Malformed HTTP: not JSON, wrong method, CSRF. */
  BadRequest = 'BAD_REQUEST',
  GraphqlParseFailed = 'GRAPHQL_PARSE_FAILED',
  GraphqlValidationFailed = 'GRAPHQL_VALIDATION_FAILED',
  OperationResolutionFailure = 'OPERATION_RESOLUTION_FAILURE',
  PersistedQueryNotFound = 'PERSISTED_QUERY_NOT_FOUND',
  PersistedQueryNotSupported = 'PERSISTED_QUERY_NOT_SUPPORTED',
  SubscriptionOverHttp = 'SUBSCRIPTION_OVER_HTTP',
  /** The gateway is draining for shutdown and takes no new operations. */
  ShuttingDown = 'SHUTTING_DOWN',
  /** The request's `Host` is not one of ALLOWED_HOSTS (DNS rebinding). */
  HostNotAllowed = 'HOST_NOT_ALLOWED',
  /** A browser's `Origin` is not the gateway's own nor one of ALLOWED_ORIGINS. */
  OriginNotAllowed = 'ORIGIN_NOT_ALLOWED',
  /** An upstream refused the gateway's own credentials (a client secret, an API key): the operator's to fix. */
  GatewayCredentialsRejected = 'GATEWAY_CREDENTIALS_REJECTED',
  /** The shared document store (Redis) cannot answer: the operation is refused, not served from a stale copy; retry. */
  DocumentStoreUnavailable = 'DOCUMENT_STORE_UNAVAILABLE',
  /** A subscription's `callbackUrl` names a host SUBSCRIPTION_CALLBACK_HOSTS does not list (or the setting is unset). */
  CallbackHostNotAllowed = 'CALLBACK_HOST_NOT_ALLOWED',
  /** The router did not accept the callback protocol's `check` (answered other than 204, or not in time). */
  CallbackCheckFailed = 'CALLBACK_CHECK_FAILED',
}

/** Reasons of an INTERNAL_SERVER_ERROR that tell the caller to retry: their message is kept in production too. */
export const RETRYABLE_REASONS: ReadonlySet<unknown> = new Set([
  ErrorReason.ShuttingDown,
  ErrorReason.DocumentStoreUnavailable,
]);

/** Which upstream an error came from: `graph`, `omdb`, or a chat provider id. */
export type UpstreamId = string;

export interface UpstreamErrorDetails {
  upstream: UpstreamId;
  /** HTTP status the upstream answered, when it answered. */
  status?: number;
  /** The upstream's own request id (Graph `request-id`, Ark's request id, ...). */
  requestId?: string;
  /** The upstream's own error code (`resourceModified`, GLM `1302`, Ark `RateLimitExceeded...`). */
  upstreamCode?: string;
  /** Seconds the upstream asked us to wait. */
  retryAfter?: number;
}

/** A GraphQL error with one of our codes; `extensions` carries the upstream details where there are some. */
export class GatewayError extends GraphQLError {
  constructor(code: ErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(message, { extensions: { code, ...extensions } });
    this.name = 'GatewayError';
  }
  get code(): ErrorCode {
    return this.extensions.code as ErrorCode;
  }
}

export const badInput = (message: string, argument?: string) =>
  new GatewayError(ErrorCode.BadUserInput, message, argument ? { argument } : {});

/**
 * Longest message of an upstream error: what an upstream said (an HTML error page, a provider's message) is cut there,
 * so a client outside production and every log line see at most this much of it.
 */
export const MAX_UPSTREAM_MESSAGE = 1000;

export const upstreamError = (code: ErrorCode, message: string, details: UpstreamErrorDetails) => {
  if (message.length > MAX_UPSTREAM_MESSAGE)
    message = `${message.slice(0, MAX_UPSTREAM_MESSAGE)}… (cut at ${MAX_UPSTREAM_MESSAGE} characters)`;
  const ext: Record<string, unknown> = { upstream: details.upstream };
  if (details.status !== undefined) ext.status = details.status;
  if (details.requestId) ext.upstreamRequestId = details.requestId;
  if (details.upstreamCode) ext.upstreamCode = details.upstreamCode;
  if (details.retryAfter !== undefined) ext.retryAfter = details.retryAfter;
  return new GatewayError(code, message, ext);
};

/** The HTTP status a refusal asks for in `extensions.http` (removed before a client sees it), 400 when none. */
export function refusalStatus(error: { extensions?: Record<string, unknown> }): number {
  return (error.extensions?.http as { status?: number } | undefined)?.status ?? 400;
}

/** A request refused before it ran because it is malformed (not JSON, wrong method, CSRF), with the HTTP status. */
export function badRequest(message: string, status = 400): GatewayError {
  return new GatewayError(ErrorCode.BadUserInput, message, { reason: ErrorReason.BadRequest, http: { status } });
}
