import type { GraphResponse, RequestIds } from './response.js';

/** Error codes the emulator puts in `error.code` (docs/upstreams.md 1.9). */
export enum GraphErrorCode {
  BadRequest = 'BadRequest',
  InvalidAuthenticationToken = 'InvalidAuthenticationToken',
  AccessDenied = 'accessDenied',
  ItemNotFound = 'itemNotFound',
  MethodNotAllowed = 'Request_BadRequest',
  Conflict = 'Conflict',
  ResourceModified = 'resourceModified',
  MalformedEntityTag = 'malformedEntityTag',
  FailedDependency = 'FailedDependency',
  TooManyRequests = 'TooManyRequests',
  GeneralException = 'generalException',
  NotSupported = 'notSupported',
  ServiceNotAvailable = 'serviceNotAvailable',
  UnknownError = 'UnknownError',
}

/** A Graph error the request handlers throw; the emulator turns it into the error envelope. */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly innerCode?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string): GraphError => new GraphError(400, GraphErrorCode.BadRequest, message);

export const notFound = (what: string): GraphError =>
  new GraphError(404, GraphErrorCode.ItemNotFound, `${what} was not found.`);

export function errorEnvelope(
  code: string,
  message: string,
  ids: RequestIds,
  now: number,
  innerCode?: string,
): unknown {
  return {
    error: {
      code,
      message,
      innerError: {
        ...(innerCode ? { code: innerCode } : {}),
        // Graph sends the date without a timezone suffix.
        date: new Date(now).toISOString().slice(0, 19),
        'request-id': ids.requestId,
        'client-request-id': ids.clientRequestId,
      },
    },
  };
}

export function errorResponse(err: GraphError, ids: RequestIds, now: number): GraphResponse {
  return {
    status: err.status,
    headers: { ...err.headers },
    body: errorEnvelope(err.code, err.message, ids, now, err.innerCode),
  };
}

/** Code and message Graph answers with for a status it chose itself (fault injection, throttling). */
const STATUS_ERRORS: Record<number, [string, string]> = {
  400: [GraphErrorCode.BadRequest, 'Bad request.'],
  401: [GraphErrorCode.InvalidAuthenticationToken, 'Access token validation failure.'],
  403: [GraphErrorCode.AccessDenied, 'Either scp or roles claim need to be present in the token.'],
  404: [GraphErrorCode.ItemNotFound, 'The requested resource was not found.'],
  405: [GraphErrorCode.MethodNotAllowed, 'Specified HTTP method is not allowed for the request target.'],
  409: [GraphErrorCode.Conflict, 'The request conflicts with the current state of the resource.'],
  412: [GraphErrorCode.ResourceModified, 'The resource has been modified since it was read.'],
  429: [GraphErrorCode.TooManyRequests, 'Too many requests; retry after the time given in the Retry-After header.'],
  500: [GraphErrorCode.GeneralException, 'An internal server error occurred.'],
  501: [GraphErrorCode.NotSupported, 'The requested feature is not implemented.'],
  502: [GraphErrorCode.UnknownError, 'Bad gateway.'],
  503: [
    GraphErrorCode.ServiceNotAvailable,
    'The service is temporarily unavailable. Retry after the time given in the Retry-After header.',
  ],
  504: [GraphErrorCode.UnknownError, 'Gateway timeout: the backend did not answer in time.'],
};

export function statusError(status: number): GraphError {
  const [code, message] = STATUS_ERRORS[status] ?? [
    status >= 500 ? GraphErrorCode.UnknownError : GraphErrorCode.BadRequest,
    `HTTP ${status}.`,
  ];
  return new GraphError(status, code, message);
}
