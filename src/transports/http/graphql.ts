import { HeaderMap } from '@apollo/server';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setOperationValue } from '../../context/request.js';
import type { GatewayServices } from '../../context/services.js';
import type { Answer, OperationPipeline } from '../../pipeline/index.js';
import { createApolloAdapter, HOSTED_OPERATION } from './apollo.js';
import type { ClientResolver } from '../clientIdentity.js';
import { abortWhenGone, httpCaller } from './httpCaller.js';
import { subscriptionOverHttp, type GraphqlHttpRoute } from './classify.js';
import { resultStatus, sendApolloResponse, sendResult } from './response.js';

type DirectRoute = Extract<GraphqlHttpRoute, { kind: 'direct' }>;
type ApolloRoute = Extract<GraphqlHttpRoute, { kind: 'apollo' }>;

/** GraphQL over HTTP answers no subscription: the streaming protocols serve them (classify.ts routes those). */
const noSubscription = (type: string) => (type === 'subscription' ? subscriptionOverHttp() : undefined);

/** An answer of the entry for the direct route, written as GraphQL over HTTP. */
function sendAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  contentType: string,
  answer: Answer,
): void {
  if (answer.kind === 'refused')
    return sendResult(
      req,
      res,
      answer.status ?? 500,
      { errors: answer.errors },
      { contentType, cacheControl: 'no-store', requestId },
    );
  if (answer.kind !== 'result') throw new Error('a whole result was asked for');
  const head = { contentType, cacheControl: answer.cacheControl, requestId };
  sendResult(req, res, resultStatus(answer.result, answer.status), answer.result, head);
}

/**
 * GraphQL over HTTP (POST and GET) on `/graphql`, for the two routes the classifier (classify.ts) gives it:
 * - `direct`: the request most clients send (a JSON POST of a known, valid document): the pipeline's entry runs it
 *   as on every other transport and answers it as GraphQL over HTTP; response.ts writes it.
 * - `apollo`: GET, automatic persisted queries, batches, unusual `Accept` headers, documents that do not parse or
 *   validate: Apollo Server (apollo.ts) inside the pipeline's `hosted` operation, its answer written by response.ts.
 */
export async function createGraphqlHttp(options: {
  pipeline: OperationPipeline;
  services: GatewayServices;
  clients: ClientResolver;
}): Promise<{
  /** Answers the request; a failure (the entry's, or writing its answer) goes to `failed`. */
  direct(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    route: DirectRoute,
    failed: (error: unknown) => void,
  ): void;
  apollo(req: IncomingMessage, res: ServerResponse, requestId: string, route: ApolloRoute): Promise<void>;
  stop(): Promise<void>;
}> {
  const { pipeline, services, clients } = options;
  const adapter = await createApolloAdapter(pipeline, services);
  const http = { method: 'POST' };

  return {
    stop: () => adapter.stop(),

    direct(req, res, requestId, route, failed) {
      // Not an async function: the entry's promise and one reaction that writes its answer or hands on its failure.
      pipeline
        .execute(route, httpCaller(req, requestId, 'http', clients), {
          controller: abortWhenGone(res),
          incremental: false,
          http,
          refuse: noSubscription,
        })
        .then((answer) => {
          try {
            sendAnswer(req, res, requestId, route.contentType, answer);
          } catch (error) {
            failed(error);
          }
        }, failed);
    },

    async apollo(req, res, requestId, route) {
      const headers = new HeaderMap();
      for (const [key, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
      }
      await pipeline.hosted(httpCaller(req, requestId, 'http', clients), abortWhenGone(res), async (op) => {
        setOperationValue(op.context, HOSTED_OPERATION, op);
        const response = await adapter.executeHTTPGraphQLRequest({
          httpGraphQLRequest: { method: route.method, headers, search: route.search, body: route.body },
          context: async () => op.context,
        });
        // A request Apollo refused before any plugin saw it (a malformed body, a method) is a request error.
        if ((response.status ?? 200) >= 400) op.refusedEarly();
        await sendApolloResponse(res, response);
      });
    },
  };
}
