import type { HTTPGraphQLResponse } from '@apollo/server';
import type { FormattedExecutionResult, GraphQLFormattedError } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, ErrorReason } from '../../errors/codes.js';

/**
 * Every HTTP answer the gateway writes itself goes through this module: its status rules, its serialisation and its
 * error bodies. GraphQL answers follow Apollo Server's rules exactly (the requests Apollo still serves are written
 * here too, from its response), so a client cannot tell which path answered (test/transports/http/directPath.test.ts).
 */

export const APPLICATION_JSON = 'application/json; charset=utf-8';
export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json; charset=utf-8';

/** A JSON answer with its length: health, refusals before any protocol, 404s. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': APPLICATION_JSON, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Whether the client accepts `application/graphql-response+json`: it then gets 4xx for request errors, as that media type asks. */
export function acceptsGraphqlResponseJson(req: IncomingMessage): boolean {
  return req.headers.accept?.includes('application/graphql-response+json') ?? false;
}

/**
 * Errors that answer an operation instead of a result (a limit, the budget, an invalid document, a cap), in the media
 * type the client takes, with the status {@link graphqlStatus} gives.
 */
export function sendErrors(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  errors: readonly GraphQLFormattedError[],
): void {
  sendRefusal(req, res, graphqlStatus(status, errors, acceptsGraphqlResponseJson(req)), errors);
}

/** `Retry-After` of an answer whose error says when to come back (`extensions.retryAfterSeconds`: a cost budget). */
export function retryAfterOf(
  errors: readonly { extensions?: Record<string, unknown> }[] | undefined,
): string | undefined {
  const seconds = errors?.find((e) => typeof e.extensions?.retryAfterSeconds === 'number')?.extensions
    ?.retryAfterSeconds;
  return seconds === undefined ? undefined : String(seconds);
}

/**
 * Errors that refuse an HTTP request before any operation is read from it (an API key, a connection cap, draining,
 * CSRF, a body too large or not JSON, a document over the size limit), with the status the refusal asks for.
 */
export function sendRefusal(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  errors: readonly GraphQLFormattedError[],
  headers: Record<string, string> = {},
): void {
  const modern = acceptsGraphqlResponseJson(req);
  const text = `${JSON.stringify({ errors })}\n`;
  const retryAfter = retryAfterOf(errors);
  if (retryAfter !== undefined) headers = { ...headers, 'retry-after': retryAfter };
  res.writeHead(status, {
    ...headers,
    'content-type': modern ? GRAPHQL_RESPONSE_JSON : APPLICATION_JSON,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** Codes of requests refused before execution; BAD_REQUEST (malformed HTTP, CSRF) is not a well-formed request. */
const isRequestError = (e: { extensions?: Record<string, unknown> }) =>
  (e.extensions?.code === ErrorCode.BadUserInput || e.extensions?.code === ErrorCode.QueryTooComplex) &&
  e.extensions?.reason !== ErrorReason.BadRequest;

/**
 * GraphQL over HTTP's status rule: a client that accepts only `application/json` SHOULD get 200 for a well-formed
 * request whose document fails to parse, validate or coerce its variables (or that a limit refuses), so legacy
 * clients read the errors as GraphQL errors; with `application/graphql-response+json` the 4xx stays.
 */
export function graphqlStatus(
  status: number,
  errors: readonly { extensions?: Record<string, unknown> }[] | undefined,
  modern: boolean,
): number {
  if (status !== 400 || modern || !errors?.length) return status;
  return errors.every(isRequestError) ? 200 : status;
}

/** How a GraphQL result is answered: its negotiated media type, `Cache-Control` and the request's id. */
export interface ResultHead {
  contentType: string;
  cacheControl: string;
  /** `x-request-id`, written with the rest of the head (the router leaves it to the direct route: router.ts). */
  requestId: string;
}

/**
 * A GraphQL result as Apollo Server serialises one: `errors`, `data`, `extensions` in that order, one newline, the
 * status of its errors (see {@link resultErrors}). The head goes out in one `writeHead` of a flat list, with its
 * length: no table of headers made for it (`setHeader`'s), each header checked once as it is written.
 */
export function sendResult(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  result: { errors?: readonly GraphQLFormattedError[]; data?: unknown; extensions?: unknown },
  head: ResultHead,
): void {
  const text = `${JSON.stringify({ errors: result.errors, data: result.data, extensions: result.extensions })}\n`;
  const code = graphqlStatus(status, result.errors, head.contentType === GRAPHQL_RESPONSE_JSON);
  const retryAfter = result.errors && retryAfterOf(result.errors);
  const length = Buffer.byteLength(text);
  res.writeHead(
    code,
    retryAfter === undefined
      ? [
          'x-request-id',
          head.requestId,
          'cache-control',
          head.cacheControl,
          'content-type',
          head.contentType,
          'content-length',
          length,
        ]
      : [
          'x-request-id',
          head.requestId,
          'cache-control',
          head.cacheControl,
          'retry-after',
          retryAfter,
          'content-type',
          head.contentType,
          'content-length',
          length,
        ],
  );
  res.end(text);
}

/** An answer Apollo Server made (GET, APQ, batches, unusual `Accept`), written as it made it. */
export async function sendApolloResponse(res: ServerResponse, response: HTTPGraphQLResponse): Promise<void> {
  for (const [key, value] of response.headers) res.setHeader(key, value);
  res.statusCode = response.status ?? 200;
  if (response.body.kind === 'complete') {
    res.end(response.body.string);
    return;
  }
  for await (const chunk of response.body.asyncIterator) res.write(chunk);
  res.end();
}

/** The status of an answer with errors: the one an error asked for, else 500 for a refusal or a failure, 200 for a result. */
export function resultStatus(result: FormattedExecutionResult, errorStatus: number | undefined): number {
  if (errorStatus) return errorStatus;
  // A result without data failed before any resolver ran: its variables did not coerce (Apollo's
  // status400ForVariableCoercionErrors).
  return result.errors?.length && result.data === undefined ? 400 : 200;
}
