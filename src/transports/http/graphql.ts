import { HeaderMap } from '@apollo/server';
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setOperationValue } from '../../context/request.js';
import type { GatewayServices } from '../../context/services.js';
import { ErrorCode } from '../../errors/codes.js';
import { runInTrace } from '../../observability/tracing.js';
import type { AdmittedOperation, Operation, OperationPipeline } from '../../pipeline/index.js';
import { cacheControlHeader } from '../../pipeline/rules/responseCache.js';
import { createApolloAdapter, HTTP_OPERATION } from './apollo.js';
import type { ClientResolver } from '../clientIdentity.js';
import { abortWhenGone, httpOperationInit } from './operationInit.js';
import { subscriptionOverHttp, type GraphqlHttpRoute } from './classify.js';
import { asGraphqlError, formatForResponse, resultStatus, sendApolloResponse, sendResult } from './response.js';

type DirectRoute = Extract<GraphqlHttpRoute, { kind: 'direct' }>;
type ApolloRoute = Extract<GraphqlHttpRoute, { kind: 'apollo' }>;

/**
 * GraphQL over HTTP (POST and GET) on `/graphql`, for the two routes the classifier (classify.ts) gives it:
 * - `direct`: the request most clients send (a JSON POST of a known, valid document). The pipeline admits and runs it
 *   as on every other transport, and the answer, refusals and errors included, is written by response.ts as Apollo
 *   Server would write it, without Apollo's per-request work (its header map, SHA-256 and document-store lookup, two
 *   `Accept` negotiations, ten plugin hooks).
 * - `apollo`: GET, automatic persisted queries, batches, unusual `Accept` headers, documents that do not parse or
 *   validate: Apollo Server (apollo.ts) with the pipeline's rules in its plugin, its answer written by response.ts.
 */
export async function createGraphqlHttp(options: { pipeline: OperationPipeline; services: GatewayServices; clients: ClientResolver }): Promise<{
  direct(req: IncomingMessage, res: ServerResponse, requestId: string, route: DirectRoute): Promise<void>;
  apollo(req: IncomingMessage, res: ServerResponse, requestId: string, route: ApolloRoute): Promise<void>;
  stop(): Promise<void>;
}> {
  const { pipeline, services, clients } = options;
  const adapter = await createApolloAdapter(pipeline, services);
  const stackTraces = services.config.errorStackTraces;

  /** Errors of the operation answered as Apollo answers them (status from the errors, else `fallback`). */
  function answerErrors(req: IncomingMessage, res: ServerResponse, op: Operation, errors: readonly GraphQLError[], fallback: number, contentType: string): void {
    const formatted = formatForResponse(errors, { format: pipeline.format, op, stackTraces });
    sendResult(req, res, formatted.status ?? fallback, { errors: formatted.errors }, { contentType, cacheControl: cacheControlHeader(op, 'POST', true) });
  }

  return {
    stop: () => adapter.stop(),

    async direct(req, res, requestId, route) {
      const op = pipeline.begin(httpOperationInit(req, requestId, 'http', clients));
      abortWhenGone(op, res);
      const { payload, document, operation, contentType } = route;
      try {
        await runInTrace(op.trace, async () => {
          if (operation.operation === 'subscription') {
            if (payload.operationName) op.name = payload.operationName;
            return answerErrors(req, res, op, [subscriptionOverHttp()], 500, contentType);
          }
          const admission = pipeline.admitResolved(op, document, operation, payload.variables, payload.operationName);
          // Most admissions decide at once; only a rule that reads shared state (a quota, a cached answer) is awaited.
          const refusal = admission instanceof Promise ? await admission : admission;
          if (refusal) return answerErrors(req, res, op, [refusal], 500, contentType);
          let result: ExecutionResult;
          try {
            result = (await pipeline.run(op as AdmittedOperation, { incremental: false })) as ExecutionResult;
          } catch (thrown) {
            return answerErrors(req, res, op, [asGraphqlError(thrown)], 500, contentType);
          }
          const formatted = result.errors?.length ? formatForResponse(result.errors, { format: pipeline.format, op, stackTraces }) : undefined;
          const extensions = pipeline.answerExtensions(op, result);
          sendResult(req, res, resultStatus(result, formatted?.status), { ...result, errors: formatted?.errors, extensions }, { contentType, cacheControl: cacheControlHeader(op, 'POST', !!formatted) });
        });
      } finally {
        pipeline.finish(op);
      }
    },

    async apollo(req, res, requestId, route) {
      const headers = new HeaderMap();
      for (const [key, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
      }
      const op = pipeline.begin(httpOperationInit(req, requestId, 'http', clients));
      abortWhenGone(op, res);
      setOperationValue(op.context, HTTP_OPERATION, op);
      try {
        const response = await runInTrace(op.trace, () =>
          adapter.executeHTTPGraphQLRequest({ httpGraphQLRequest: { method: route.method, headers, search: route.search, body: route.body }, context: async () => op.context }),
        );
        await sendApolloResponse(res, response);
      } finally {
        // A request Apollo refused before any plugin saw it (a malformed body, a method) is a request error.
        if (!op.finished) {
          if (res.statusCode >= 400) op.errorCodes.add(ErrorCode.BadUserInput);
          pipeline.finish(op);
        }
      }
    },
  };
}
