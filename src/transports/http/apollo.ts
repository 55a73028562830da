import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { ErrorCode, ErrorReason, GatewayError } from '../../errors/codes.js';
import type { AdmittedOperation, OperationPipeline } from '../../pipeline/index.js';
import { cacheControlHeader } from '../../pipeline/rules/responseCache.js';
import type { GatewayContext } from '../../context/request.js';
import type { DirectOperation } from './direct.js';

/**
 * Apollo Server as the HTTP protocol adapter only: Apollo parses and validates (its document store, APQ, CSRF
 * prevention, content negotiation), and this one plugin hands the resolved operation to the operation pipeline's
 * `admit` rules and the response's errors to its `finish` rules, so HTTP runs the rules every other transport runs.
 */
export function pipelinePlugin(pipeline: OperationPipeline, operationOf: (context: GatewayContext) => DirectOperation): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const op = operationOf(contextValue);
      return {
        async didResolveOperation({ operation, document, request }) {
          if (!operation) return;
          if (operation.operation === 'subscription') throw subscriptionOverHttp();
          // Begun by the direct path (directExecution.ts): admitted already, or refused with this.
          if (op.handedOver) {
            if (op.handedOver.refusal) throw op.handedOver.refusal;
            return;
          }
          const refusal = await pipeline.admitResolved(op, document, operation, request.variables, request.operationName);
          if (refusal) throw refusal;
        },
        async responseForOperation() {
          // The response cache's answer, found at admission: Apollo sends it without executing.
          return op.answer ? { body: { kind: 'single', singleResult: op.answer }, http: { status: undefined, headers: new HeaderMap() } } : null;
        },
        async didEncounterErrors({ errors }) {
          // Notes the codes and, in production, logs what masking hides from the client, with the request id.
          pipeline.format(errors, op);
        },
        async willSendResponse({ response, request }) {
          if (op.name === null && request.operationName) op.name = request.operationName;
          // An incremental response is still running: the adapter finishes it once its last part is sent.
          if (response.body.kind !== 'single') return;
          const errors = response.body.singleResult.errors;
          for (const e of errors ?? []) op.errorCodes.add(String(e.extensions?.code ?? ErrorCode.InternalServerError));
          // The direct path's execution ran the `completed` rules on its result already.
          if (op.operation && !op.handedOver?.result) await pipeline.completed(op as AdmittedOperation, response.body.singleResult);
          response.http.headers.set('cache-control', cacheControlHeader(op, request.http?.method ?? 'POST', !!errors?.length));
          pipeline.finish(op);
        },
      };
    },
  };
}

/**
 * Subscriptions over HTTP are served by the streaming protocols (transports/http: sse.ts, multipart.ts) before Apollo sees them; one
 * that still arrives here is a plain JSON request, which would otherwise fail with a confusing non-null error from
 * Apollo: tell the client which protocols stream.
 */
export function subscriptionOverHttp(): GatewayError {
  return new GatewayError(
    ErrorCode.BadUserInput,
    'A subscription needs a streaming response: send it with `Accept: text/event-stream` (GraphQL over SSE, e.g. graphql-sse) or `Accept: multipart/mixed;subscriptionSpec="1.0"` (Apollo Client\'s HttpLink), or subscribe over graphql-ws at ws://<this host>/graphql.',
    { reason: ErrorReason.SubscriptionOverHttp, http: { status: 400 } },
  );
}

/** Codes of requests refused before execution; BAD_REQUEST (malformed HTTP, CSRF) is not a well-formed request. */
const REQUEST_ERROR = (e: { extensions?: Record<string, unknown> }) =>
  (e.extensions?.code === ErrorCode.BadUserInput || e.extensions?.code === ErrorCode.QueryTooComplex) && e.extensions?.reason !== ErrorReason.BadRequest;

/**
 * GraphQL-over-HTTP: a client that accepts only `application/json` SHOULD get 200 for a well-formed request whose
 * document fails to parse, validate or coerce its variables, so legacy clients read the errors as GraphQL errors.
 * Apollo answers 400; with `application/graphql-response+json` the 4xx stays, as that media type asks.
 */
export const legacyJsonStatusPlugin: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, request }) {
        if (response.http.status !== 400 || response.body.kind !== 'single') return;
        if (request.http?.headers.get('accept')?.includes('application/graphql-response+json')) return;
        const errors = response.body.singleResult.errors ?? [];
        if (errors.length > 0 && errors.every(REQUEST_ERROR)) response.http.status = 200;
      },
    };
  },
};
