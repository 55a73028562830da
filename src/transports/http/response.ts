import type { HTTPGraphQLResponse } from '@apollo/server';
import { GraphQLError, Kind, type ExecutionResult, type GraphQLFormattedError } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, ErrorReason } from '../../errors/codes.js';
import type { ErrorFormatter } from '../../errors/format.js';
import type { Operation } from '../../pipeline/operation.js';

/**
 * Every HTTP answer the gateway writes itself goes through this module: its status rules, its serialisation and its
 * error bodies. GraphQL answers follow Apollo Server's rules exactly (the requests Apollo still serves are written
 * here too, from its response), so a client cannot tell which path answered (test/transports/directPath.test.ts).
 */

export const APPLICATION_JSON = 'application/json; charset=utf-8';
export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json; charset=utf-8';

/** A JSON answer with its length: health, refusals before any protocol, 404s. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
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
export function sendErrors(req: IncomingMessage, res: ServerResponse, status: number, errors: readonly GraphQLFormattedError[]): void {
  sendRefusal(req, res, graphqlStatus(status, errors, acceptsGraphqlResponseJson(req)), errors);
}

/** `Retry-After` of an answer whose error says when to come back (`extensions.retryAfterSeconds`: a cost budget). */
export function retryAfterOf(errors: readonly { extensions?: Record<string, unknown> }[] | undefined): string | undefined {
  const seconds = errors?.find((e) => typeof e.extensions?.retryAfterSeconds === 'number')?.extensions?.retryAfterSeconds;
  return seconds === undefined ? undefined : String(seconds);
}

/**
 * Errors that refuse an HTTP request before any operation is read from it (an API key, a connection cap, draining,
 * CSRF, a body too large or not JSON, a document over the size limit), with the status the refusal asks for.
 */
export function sendRefusal(req: IncomingMessage, res: ServerResponse, status: number, errors: readonly GraphQLFormattedError[], headers: Record<string, string> = {}): void {
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
  (e.extensions?.code === ErrorCode.BadUserInput || e.extensions?.code === ErrorCode.QueryTooComplex) && e.extensions?.reason !== ErrorReason.BadRequest;

/**
 * GraphQL over HTTP's status rule: a client that accepts only `application/json` SHOULD get 200 for a well-formed
 * request whose document fails to parse, validate or coerce its variables (or that a limit refuses), so legacy
 * clients read the errors as GraphQL errors; with `application/graphql-response+json` the 4xx stays.
 */
export function graphqlStatus(status: number, errors: readonly { extensions?: Record<string, unknown> }[] | undefined, modern: boolean): number {
  if (status !== 400 || modern || !errors?.length) return status;
  return errors.every(isRequestError) ? 200 : status;
}

/** How a GraphQL result is answered: its negotiated media type and `Cache-Control`. */
export interface ResultHead {
  contentType: string;
  cacheControl: string;
}

/**
 * A GraphQL result as Apollo Server serialises one: `errors`, `data`, `extensions` in that order, one newline, the
 * status of its errors (see {@link resultErrors}).
 */
export function sendResult(req: IncomingMessage, res: ServerResponse, status: number, result: { errors?: readonly GraphQLFormattedError[]; data?: unknown; extensions?: unknown }, head: ResultHead): void {
  res.statusCode = graphqlStatus(status, result.errors, head.contentType === GRAPHQL_RESPONSE_JSON);
  res.setHeader('cache-control', head.cacheControl);
  const retryAfter = result.errors && retryAfterOf(result.errors);
  if (retryAfter !== undefined) res.setHeader('retry-after', retryAfter);
  res.setHeader('content-type', head.contentType);
  res.end(`${JSON.stringify({ errors: result.errors, data: result.data, extensions: result.extensions })}\n`);
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

/**
 * Errors of an operation's answer, formatted as Apollo Server formats them (so both paths answer alike): each as its
 * JSON with a code (INTERNAL_SERVER_ERROR when it has none), a variable that failed to coerce as BAD_USER_INPUT, its
 * stack trace, and `extensions.http` taken off into the status; then the gateway's formatter, which notes the codes on
 * the operation, logs an unexpected error's stack and what production masks, and keeps the stack trace only when
 * ERROR_STACK_TRACES asks for it.
 */
export function formatForResponse(
  errors: readonly GraphQLError[],
  options: { format: ErrorFormatter; op: Operation; stackTraces: boolean },
): { errors: GraphQLFormattedError[]; status: number | undefined } {
  let status: number | undefined;
  const enriched = errors.map((error) => {
    const extensions: Record<string, unknown> = { ...error.extensions };
    const unexpected = extensions.code == null && !isVariableCoercionError(error);
    if (extensions.code == null) extensions.code = unexpected ? ErrorCode.InternalServerError : ErrorCode.BadUserInput;
    const http = extensions.http as { status?: number } | undefined;
    if (http && typeof http === 'object') {
      if (typeof http.status === 'number') status = http.status;
      delete extensions.http;
    }
    // Every error's when asked for (as Apollo's includeStacktraceInErrorResponses), else an unexpected one's, for the log.
    if (options.stackTraces || unexpected) extensions.stacktrace = (error.originalError ?? error).stack?.split('\n');
    return { ...error.toJSON(), extensions };
  });
  return { errors: options.format(enriched, options.op), status };
}

/** graphql-js's wording of a variable whose value does not coerce (Apollo's `isBadUserInputGraphQLError`). */
function isVariableCoercionError(error: GraphQLError): boolean {
  const node = error.nodes?.length === 1 ? error.nodes[0] : undefined;
  if (node?.kind !== Kind.VARIABLE_DEFINITION) return false;
  const name = `Variable "$${node.variable.name.value}"`;
  return [' has invalid value', ' got invalid value ', ' of required type ', ' of non-null type '].some((rest) => error.message.startsWith(name + rest));
}

/** An error thrown while executing, as a GraphQL error (its message kept, as Apollo keeps it). */
export function asGraphqlError(thrown: unknown): GraphQLError {
  if (thrown instanceof GraphQLError) return thrown;
  const error = thrown instanceof Error ? thrown : new GraphQLError(`Unexpected error value: ${String(thrown)}`);
  return error instanceof GraphQLError ? error : new GraphQLError(error.message, { originalError: error });
}

/** The status of an answer with errors: the one an error asked for, else 500 for a refusal or a failure, 200 for a result. */
export function resultStatus(result: ExecutionResult, errorStatus: number | undefined): number {
  if (errorStatus) return errorStatus;
  // A result without data failed before any resolver ran: its variables did not coerce (Apollo's
  // status400ForVariableCoercionErrors).
  return result.errors?.length && result.data === undefined ? 400 : 200;
}
