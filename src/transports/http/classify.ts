import { GraphQLError, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import Negotiator from 'negotiator';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, ErrorCode, ErrorReason, GatewayError } from '../../errors/codes.js';
import { deliversIncrementally, mentionsIncrementalDirective } from '../../execution/deferStream.js';
import { operationOf, type OperationPayload, type OperationPipeline } from '../../pipeline/index.js';
import { MAX_BODY_BYTES, readBodyThen } from './requestBody.js';
import { APPLICATION_JSON, GRAPHQL_RESPONSE_JSON } from './response.js';
import { misplacedUploadRefusal, readUploadRequest } from './upload.js';

/**
 * What a request to `/graphql` asks for, decided once, here, for every way GraphQL arrives over HTTP; the router
 * hands it to the one handler of its kind:
 * - `refused`: answered with the error (CSRF, a body too large, JSON that does not parse, a rule before parsing)
 * A GraphQL multipart request (a file upload, `multipart/form-data`) is read as its operation with the file streaming
 * to disk (upload.ts), then routed as a JSON POST of that operation would be.
 * - `sse`, `multipart`: a streaming protocol (GraphQL over SSE; Apollo's multipart subscriptions), read by its handler
 * - `incremental`: a query with `@defer`/`@stream` for a client that takes `multipart/mixed` parts
 * - `callback`: a router's subscription over Apollo's HTTP callback protocol (a JSON POST with `extensions.subscription`,
 *   ../callback/PROTOCOL.md), whatever its `Accept`
 * - `direct`: a JSON POST of a document the pipeline knows valid, for a response type it can answer: the pipeline runs
 *   it and this module's sibling writes the answer, errors included (graphql.ts)
 * - `apollo`: what Apollo Server is best at: GET, automatic persisted queries, batches, unusual `Accept` headers,
 *   documents that fail to parse or validate (its error texts), other methods and content types
 */
export type GraphqlHttpRoute =
  | { kind: 'refused'; error: GraphQLError }
  | { kind: 'sse' }
  | { kind: 'multipart' }
  | { kind: 'incremental'; payload: Record<string, unknown> }
  | { kind: 'callback'; payload: OperationPayload }
  | {
      kind: 'direct';
      payload: PlainPayload;
      document: DocumentNode;
      operation: OperationDefinitionNode;
      contentType: string;
    }
  | { kind: 'apollo'; method: string; search: string; body: unknown };

/** A payload run as sent: `query` a string, `operationName` a string, `variables` an object. */
export type PlainPayload = OperationPayload & {
  query: string;
  operationName?: string;
  variables?: Record<string, unknown>;
};

/**
 * Where the classifier sends what it decided about a request: its route, or the failure to read it (the client went
 * away before its body ended). Called once, at once when the head decides, else from the body's own `end` event, so
 * nothing waits on a promise between the request's last byte and its handler.
 */
export interface RouteSink {
  route(route: GraphqlHttpRoute): void;
  failed(error: unknown): void;
}

/**
 * The classifier of `/graphql` requests ({@link GraphqlHttpRoute}). CSRF prevention is decided here for every route
 * (Apollo Server's own check is off), a body is JSON by its media type's essence only, and `Accept` is negotiated as
 * Apollo negotiates it.
 */
export function createRequestClassifier(
  pipeline: OperationPipeline,
  options: { direct: boolean; maxUploadBytes: number },
): (req: IncomingMessage, res: ServerResponse, trustedRouter: boolean, sink: RouteSink) => void {
  const classifier = new RequestClassifier(pipeline, options);
  return (req, res, trustedRouter, sink) => classifier.classify(req, res, trustedRouter, sink);
}

class RequestClassifier {
  private readonly contentTypes = new ContentTypes();

  constructor(
    private readonly pipeline: OperationPipeline,
    private readonly options: { direct: boolean; maxUploadBytes: number },
  ) {}

  classify(req: IncomingMessage, res: ServerResponse, trustedRouter: boolean, sink: RouteSink): void {
    // A request bearing a key of TRUSTED_ROUTER_KEYS is a router's, not a browser's: a page cannot send that header
    // without the CORS preflight CSRF prevention stands in for (Hive Gateway subscribes by a plain `GET`).
    // A body is JSON by its media type's essence, whatever its parameters say; a file upload is read as its operation.
    const type = mediaTypeEssence(req.headers['content-type']);
    const csrf = trustedRouter ? undefined : crossSiteRefusal(req, type);
    if (csrf) return sink.route({ kind: 'refused', error: csrf });
    if (isSseRequest(req)) return sink.route({ kind: 'sse' });
    if (acceptsMultipartSubscription(req)) return sink.route({ kind: 'multipart' });

    const method = (req.method ?? 'GET').toUpperCase();
    if (method === 'POST' && type === 'multipart/form-data') {
      readUploadRequest(req, res, this.options.maxUploadBytes).then(
        (operation) =>
          this.decided(
            sink,
            req,
            method,
            true,
            operation instanceof GraphQLError ? new Refused({ kind: 'refused', error: operation }) : operation,
            true,
          ),
        (error: unknown) => sink.failed(error),
      );
      return;
    }
    if (method !== 'POST') return this.decided(sink, req, method, false, undefined, false);
    const json = type === 'application/json';
    // Goes on in the body's `end` event: the chain stays synchronous from the last byte to the answer's promise.
    readBodyThen(req, MAX_BODY_BYTES, (error, raw) =>
      error ? sink.failed(error) : this.decided(sink, req, method, json, bodyOf(raw, json), false),
    );
  }

  /** The route of a request whose body (if any) was read, given to `sink`; a failure deciding it is the sink's too. */
  private decided(
    sink: RouteSink,
    req: IncomingMessage,
    method: string,
    json: boolean,
    body: unknown,
    upload: boolean,
  ): void {
    let route: GraphqlHttpRoute;
    try {
      route = body instanceof Refused ? body.route : this.routeOf(req, method, json, body, upload);
    } catch (error) {
      return sink.failed(error);
    }
    sink.route(route);
  }

  private routeOf(
    req: IncomingMessage,
    method: string,
    json: boolean,
    body: unknown,
    upload: boolean,
  ): GraphqlHttpRoute {
    const pipeline = this.pipeline;
    const url = req.url ?? '/graphql';
    const q = url.indexOf('?');
    let search = q === -1 ? '' : url.slice(q);
    // The operation as sent: a POST's JSON object, or GET's parameters (a batch, or another body, is Apollo's).
    const fields =
      method === 'POST' ? body : method === 'GET' ? Object.fromEntries(new URLSearchParams(search)) : undefined;
    if (!isRecord(fields)) return { kind: 'apollo', method, search, body };
    // A subscription over HTTP callbacks: its handler runs it through the entry (prepare included).
    if (method === 'POST' && json && !upload && isRecord(fields.extensions) && 'subscription' in fields.extensions)
      return { kind: 'callback', payload: fields as OperationPayload };

    // The pipeline's `prepare` rules (persisted operations, document size) see every payload before anything parses it.
    const prepared = pipeline.prepare(fields as OperationPayload);
    if (prepared instanceof GraphQLError) return { kind: 'refused', error: prepared };
    // A file the `map` put where the operation takes none: named, with the fix (upload.ts).
    if (upload) {
      const misplaced = misplacedUploadRefusal(
        prepared as Record<string, unknown>,
        resolvedOperation(pipeline, prepared)?.operation,
      );
      if (misplaced) return { kind: 'refused', error: misplaced };
    }
    // `@defer`/`@stream` for a client that takes parts: the pipeline runs it (Apollo 5 on graphql 16 cannot).
    if (acceptsIncrementalDelivery(req) && mentionsIncrementalDirective(prepared.query))
      return { kind: 'incremental', payload: prepared as Record<string, unknown> };
    if (prepared !== fields) {
      if (method === 'GET') search = `?${asSearch(prepared)}`;
      else body = prepared;
    }

    if (this.options.direct && method === 'POST' && json && isPlainPayload(prepared)) {
      const contentType = this.contentTypes.for(req.headers.accept);
      const resolved = contentType && resolvedOperation(pipeline, prepared);
      if (resolved && !deliversIncrementally(resolved.operation, resolved.document)) {
        // Field by field: a spread of `resolved` took V8's generic copy, a visible share of this function's own time.
        return {
          kind: 'direct',
          payload: prepared,
          document: resolved.document,
          operation: resolved.operation,
          contentType,
        };
      }
    }
    return { kind: 'apollo', method, search, body };
  }
}

/** A body that refuses its request before any operation is read from it (too large, or JSON that does not parse). */
class Refused {
  constructor(readonly route: { kind: 'refused'; error: GraphQLError }) {}
}

/** A POST's body: parsed when JSON, else its text; {@link Refused} when too large or not JSON. */
function bodyOf(raw: Buffer | undefined, json: boolean): unknown {
  if (raw === undefined)
    return new Refused({
      kind: 'refused',
      error: badRequest(`Request body larger than ${MAX_BODY_BYTES} bytes: send a smaller operation.`, 413),
    });
  if (!json) return raw.toString('utf8');
  try {
    return raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
  } catch {
    return new Refused({
      kind: 'refused',
      error: badRequest(
        'Request body is not valid JSON: send a JSON object with "query" (and optional "variables", "operationName").',
      ),
    });
  }
}

/** The payload's document and operation when the document parses and validates (the pipeline's cache), else undefined. */
function resolvedOperation(
  pipeline: OperationPipeline,
  payload: OperationPayload,
): { document: DocumentNode; operation: OperationDefinitionNode } | undefined {
  const document = typeof payload.query === 'string' ? pipeline.documents.checked(payload.query) : undefined;
  const operation = document && !Array.isArray(document) ? operationOf(document, payload.operationName) : undefined;
  return operation ? { document: document as DocumentNode, operation } : undefined;
}

/**
 * Subscriptions over HTTP are served by the streaming protocols (classify.ts routes them); one sent as a plain request
 * would fail with a confusing non-null error from Apollo: tell the client which protocols stream.
 */
export function subscriptionOverHttp(): GatewayError {
  return new GatewayError(
    ErrorCode.BadUserInput,
    'A subscription needs a streaming response: send it with `Accept: text/event-stream` (GraphQL over SSE, e.g. graphql-sse) or `Accept: multipart/mixed;subscriptionSpec="1.0"` (Apollo Client\'s HttpLink), or subscribe over graphql-ws at ws://<this host>/graphql.',
    { reason: ErrorReason.SubscriptionOverHttp, http: { status: 400 } },
  );
}

/** Content types a browser sends cross-site without asking first (a "simple" request). */
const SIMPLE_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
/** Headers a page can only set after a CORS preflight the gateway answers (CORS_ORIGINS). */
const PREFLIGHT_HEADERS = ['apollo-require-preflight', 'x-apollo-operation-name', 'x-graphql-event-stream-token'];

/**
 * CSRF prevention, Apollo Server's rule for every route: a request must be one a browser would have preflighted.
 * Otherwise any page could run a mutation or open a costly chat stream with the visitor's cookies or network
 * position, since a simple request is sent before CORS is consulted. GET needs a preflight header, POST a content type
 * that is not a simple one (by its essence: `text/plain; charset=application/json` is text/plain).
 */
export function crossSiteRefusal(
  req: IncomingMessage,
  type = mediaTypeEssence(req.headers['content-type']),
): GraphQLError | undefined {
  if (req.method !== 'GET' && req.method !== 'POST' && req.method !== 'HEAD') return undefined;
  // The content type first: a JSON POST, the usual request, needs no look at the headers.
  if (type && !SIMPLE_TYPES.has(type)) return undefined;
  for (const header of PREFLIGHT_HEADERS) if (req.headers[header]) return undefined;
  return badRequest(
    'This request has been blocked as a potential Cross-Site Request Forgery (CSRF): send it with `content-type: application/json`, or add an `apollo-require-preflight: true` header; a federation router presents its key of TRUSTED_ROUTER_KEYS in `x-api-key`.',
  );
}

/** A `Content-Type`'s type and subtype, lower case, parameters aside; undefined when there is none. */
export function mediaTypeEssence(contentType: string | undefined): string | undefined {
  // The usual header is the essence itself: no strings made for it.
  if (contentType === 'application/json' || !contentType) return contentType || undefined;
  const semicolon = contentType.indexOf(';');
  const essence = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return essence || undefined;
}

const EVENT_STREAM = 'text/event-stream';
const TOKEN_HEADER = 'x-graphql-event-stream-token';

/** GraphQL over SSE: a stream request (`Accept: text/event-stream`), or a single-connection-mode reservation/operation. */
export function isSseRequest(req: IncomingMessage): boolean {
  if (req.headers.accept?.includes(EVENT_STREAM)) return true;
  if (req.method === 'PUT' || req.method === 'DELETE' || req.headers[TOKEN_HEADER]) return true;
  return /[?&]token=/.test(req.url ?? '');
}

/** Apollo Client's HttpLink asks for a subscription with `Accept: multipart/mixed;subscriptionSpec="1.0"` (+ boundary). */
export function acceptsMultipartSubscription(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes('multipart/mixed') && /subscriptionSpec/i.test(accept);
}

/**
 * Whether the client takes a `multipart/mixed` answer for a query: Apollo Client's `Defer20220824Handler` asks
 * `multipart/mixed;deferSpec=20220824`, GraphiQL `multipart/mixed`. (`subscriptionSpec` asks for Apollo's
 * subscription protocol instead.)
 */
export function acceptsIncrementalDelivery(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? '';
  return accept.includes('multipart/mixed') && !/subscriptionSpec/i.test(accept);
}

/**
 * A body Apollo would accept as it is and run without APQ: `query` a string, `operationName` a string, `variables` and
 * `extensions` objects, nothing else that changes what runs. Apollo's own checks (and error texts) apply to the rest.
 */
function isPlainPayload(payload: OperationPayload): payload is PlainPayload {
  if (typeof payload.query !== 'string') return false;
  const { operationName, variables, extensions } = payload;
  if (operationName != null && typeof operationName !== 'string') return false;
  if (variables != null && !isRecord(variables)) return false;
  if (extensions != null && (!isRecord(extensions) || 'persistedQuery' in extensions)) return false;
  return true;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** GET parameters of a prepared payload (variables and extensions as JSON, as a GET carries them). */
function asSearch(payload: OperationPayload): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(payload)) {
    if (value === undefined || value === null) continue;
    params.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return params;
}

// Apollo negotiates among these three; the callback type (Apollo's subscription callbacks) stays Apollo's.
const OFFERED = [APPLICATION_JSON, GRAPHQL_RESPONSE_JSON, 'application/json; callbackSpec=1.0; charset=utf-8'];
const MAX_REMEMBERED_ACCEPTS = 64;

/**
 * The response type Apollo would choose for an `Accept` header (the same negotiator and offer order), remembered per
 * header text: clients send a handful of distinct headers, and negotiating costs more than the lookup.
 */
class ContentTypes {
  private readonly chosen = new Map<string, string | undefined>();

  for(accept: string | undefined): string | undefined {
    if (!accept) return APPLICATION_JSON;
    if (this.chosen.has(accept)) return this.chosen.get(accept);
    const preferred = new Negotiator({ headers: { accept } }).mediaType(OFFERED);
    const type = preferred === APPLICATION_JSON || preferred === GRAPHQL_RESPONSE_JSON ? preferred : undefined;
    // Bounded: an unusual header past the cap is negotiated each time instead of remembered.
    if (this.chosen.size < MAX_REMEMBERED_ACCEPTS) this.chosen.set(accept, type);
    return type;
  }
}
