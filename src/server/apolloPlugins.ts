import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError } from 'graphql';
import { ErrorCode, GatewayError } from '../errors.js';
import { endOperationSpan, nameOperationSpan, traceOf } from '../observability/tracing.js';
import type { GatewayContext } from '../runtime/context.js';
import {
  budgetRefusal,
  entitiesWithinBudget,
  estimateUpstreamRequests,
  operationShape,
  rememberEntitiesWithinBudget,
  rememberEstimates,
  type UpstreamEstimator,
} from '../runtime/upstreamBudget.js';

/** Refuses, before execution, an operation whose planned upstream requests exceed the budget. */
export function upstreamBudgetPlugin(estimators: readonly UpstreamEstimator[]): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, document, request, contextValue, schema }) {
          if (!operation) return;
          const shape = operationShape(schema, document, operation, request.variables);
          const totals = estimateUpstreamRequests(shape, contextValue.services, estimators);
          rememberEstimates(contextValue, operation, totals);
          const max = contextValue.services.config.limits.maxUpstreamRequests;
          const refusal = budgetRefusal(totals, max);
          // A router's `_entities` call answers the entries the budget allows and refuses only the rest.
          const within = refusal && entitiesWithinBudget(shape, contextValue.services, estimators, refusal, max);
          if (within) {
            rememberEstimates(contextValue, operation, within.totals);
            rememberEntitiesWithinBudget(contextValue, operation, within);
            return;
          }
          // A refusal is the client's operation, not a server fault: without a status Apollo would answer 500.
          if (refusal) throw new GraphQLError(refusal.message, { extensions: { ...refusal.extensions, http: { status: 400 } } });
        },
      };
    },
  };
}

/**
 * Subscriptions over HTTP are served by the streaming protocols (server/httpStreams) before Apollo sees them; one
 * that still arrives here is a plain JSON request, which would otherwise fail with a confusing non-null error from
 * Apollo: tell the client which protocols stream.
 */
export const subscriptionsOverHttpPlugin: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        if (operation?.operation === 'subscription') {
          throw new GatewayError(
            ErrorCode.BadUserInput,
            'A subscription needs a streaming response: send it with `Accept: text/event-stream` (GraphQL over SSE, e.g. graphql-sse) or `Accept: multipart/mixed;subscriptionSpec="1.0"` (Apollo Client\'s HttpLink), or subscribe over graphql-ws at ws://<this host>/graphql.',
            { reason: 'SUBSCRIPTION_OVER_HTTP', http: { status: 400 } },
          );
        }
      },
    };
  },
};

/** One log line and the metrics of every HTTP operation, whatever its outcome. */
export const operationLogPlugin: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart({ contextValue }) {
    const started = performance.now();
    let type = 'unknown';
    let name: string | null | undefined;
    return {
      async didResolveOperation({ operation, operationName }) {
        type = operation?.operation ?? 'unknown';
        name = operationName;
        nameOperationSpan(traceOf(contextValue), type, name);
      },
      async willSendResponse({ response, request }) {
        const durationMs = performance.now() - started;
        const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
        const codes = [...new Set((errors ?? []).map((e) => String(e.extensions?.code ?? 'INTERNAL_SERVER_ERROR')))];
        const { metrics } = contextValue.services;
        const label = metrics.operationLabel(name ?? request.operationName);
        const outcome = codes.length === 0 ? 'ok' : 'error';
        metrics.operations.inc({ type, name: label, outcome });
        endOperationSpan(traceOf(contextValue), codes);
        metrics.operationDuration.observe({ type, name: label }, durationMs / 1000);
        if (!contextValue.services.log.isLevelEnabled('info')) return;
        contextValue.log.info(
          { operation: name ?? request.operationName ?? null, type, durationMs: Math.round(durationMs * 10) / 10, outcome, errorCodes: codes.length ? codes : undefined, transport: 'http' },
          'operation',
        );
      },
    };
  },
};

/** `extensions.http` is how a thrown error sets the HTTP status; it must not reach the client. */
export function stripHttpExtension<T extends { extensions?: Record<string, unknown> }>(error: T): T {
  if (error.extensions && 'http' in error.extensions) {
    const { http: _http, ...rest } = error.extensions;
    return { ...error, extensions: rest };
  }
  return error;
}

/** Codes of requests refused before execution; BAD_REQUEST (malformed HTTP, CSRF) is not a well-formed request. */
const REQUEST_ERROR = (e: { extensions?: Record<string, unknown> }) =>
  (e.extensions?.code === 'BAD_USER_INPUT' || e.extensions?.code === 'QUERY_TOO_COMPLEX') && e.extensions?.reason !== 'BAD_REQUEST';

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
