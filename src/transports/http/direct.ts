import { getOperationAST, type DocumentNode, type ExecutionResult, type GraphQLError } from 'graphql';
import Negotiator from 'negotiator';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runInTrace } from '../../observability/tracing.js';
import { abortWhenGone } from '../../pipeline/rules/cancellation.js';
import type { AdmittedOperation, Operation, OperationPayload, OperationPipeline } from '../../pipeline/index.js';
import { cacheControlHeader } from '../../pipeline/rules/responseCache.js';
import { httpOperationInit } from './operationInit.js';
import { deliversIncrementally } from '../../execution/incremental.js';

/**
 * What the direct path leaves to Apollo Server for an operation it began: the refusal an admission rule gave, or
 * the result (or exception) of an execution that has errors. Apollo's plugin and executor take it from here instead
 * of admitting or executing again, so every error is formatted, logged and given its status by Apollo's one path.
 */
export interface HandedOver {
  refusal?: GraphQLError;
  result?: ExecutionResult;
  thrown?: unknown;
}

/** An operation the direct path began, with what it hands over to Apollo (an own property: Apollo copies contexts). */
export type DirectOperation = Operation & { handedOver?: HandedOver };

/**
 * GraphQL over HTTP for the common request without Apollo Server's per-request work: a JSON POST of a document the
 * pipeline has already parsed and validated (its LRU), with a query or mutation to run and a response type the
 * client accepts. The pipeline admits and executes it as on every other transport, and a result without errors is
 * written as Apollo writes it (same status, headers and bytes). Everything else goes to Apollo untouched: another
 * content type (CSRF prevention judges it), an invalid document, APQ, GET (CSRF prevention), batches, `@defer`, unusual `Accept` headers; and an operation that
 * was refused or has errors is handed over to Apollo with its refusal or result, so error responses have one source.
 *
 * Skipped per request: Apollo's header map, its SHA-256 of the query text and document-store lookup, two `Accept`
 * negotiations, ten plugin hooks and the gateway request context it builds for its executor.
 */
export function createDirectExecution(pipeline: OperationPipeline): {
  /** 'sent' when answered; an operation to hand to Apollo; undefined when the request is not for this path (nothing begun). */
  serve(req: IncomingMessage, res: ServerResponse, requestId: string, payload: Record<string, unknown>): Promise<DirectOperation | 'sent'> | undefined;
} {
  const contentTypes = new ContentTypes();
  return {
    serve(req, res, requestId, payload) {
      // Only a body sent as `application/json` itself: a browser posts `text/plain` (whatever its parameters say) without
      // a preflight, and Apollo's CSRF prevention must see that request.
      if (!isJsonMediaType(req.headers['content-type'])) return undefined;
      const contentType = contentTypes.for(req.headers.accept);
      if (!contentType || !isPlainPayload(payload)) return undefined;
      const document = pipeline.checkedDocument(payload.query);
      if (Array.isArray(document)) return undefined;
      const operation = getOperationAST(document, payload.operationName);
      if (!operation || operation.operation === 'subscription') return undefined;
      if (deliversIncrementally(operation, document)) return undefined;
      const op: DirectOperation = pipeline.begin(httpOperationInit(req, requestId, 'http'));
      abortWhenGone(op, res);
      return runInTrace(op.trace, () => executeDirect(op, document, operation, payload, res, contentType));
    },
  };

  async function executeDirect(
    op: DirectOperation,
    document: DocumentNode,
    operation: AdmittedOperation['operation'],
    payload: PlainPayload,
    res: ServerResponse,
    contentType: string,
  ): Promise<DirectOperation | 'sent'> {
    const admission = pipeline.admitResolved(op, document, operation, payload.variables, payload.operationName);
    // Most admissions decide at once; only a rule that reads shared state (a quota, a cached answer) is awaited.
    const refusal = admission instanceof Promise ? await admission : admission;
    if (refusal) {
      op.handedOver = { refusal };
      return op;
    }
    let result: ExecutionResult;
    try {
      result = (await pipeline.run(op as AdmittedOperation, { incremental: false })) as ExecutionResult;
    } catch (thrown) {
      op.handedOver = { thrown };
      return op;
    }
    if (result.errors?.length) {
      op.handedOver = { result };
      return op;
    }
    // As Apollo's `willSendResponse` (apolloPlugins.ts) then its serialisation: fields in its order, one newline.
    res.setHeader('cache-control', cacheControlHeader(op, 'POST', false));
    res.setHeader('content-type', contentType);
    pipeline.finish(op);
    res.end(`${JSON.stringify(result.extensions === undefined ? { data: result.data } : { data: result.data, extensions: result.extensions })}\n`);
    return 'sent';
  }
}

type PlainPayload = OperationPayload & { query: string; operationName?: string; variables?: Record<string, unknown> };

/**
 * A body Apollo would accept as it is and run without APQ: `query` a string, `operationName` a string, `variables` and
 * `extensions` objects, nothing else that changes what runs. Apollo's own checks (and error texts) apply to the rest.
 */
function isPlainPayload(payload: Record<string, unknown>): payload is Record<string, unknown> & PlainPayload {
  if (typeof payload.query !== 'string') return false;
  const { operationName, variables, extensions } = payload;
  if (operationName != null && typeof operationName !== 'string') return false;
  if (variables != null && !isRecord(variables)) return false;
  if (extensions != null && (!isRecord(extensions) || 'persistedQuery' in extensions)) return false;
  return true;
}

/** Whether a `Content-Type` is `application/json` by its essence (type and subtype), parameters aside. */
function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';', 1)[0].trim().toLowerCase() === 'application/json';
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const APPLICATION_JSON = 'application/json; charset=utf-8';
const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json; charset=utf-8';
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
