import { ApolloServer, HeaderMap, type HTTPGraphQLRequest } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginInlineTraceDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { GraphQLError } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, ErrorCode, refusalStatus } from '../../errors/codes.js';
import { runInTrace } from '../../observability/tracing.js';
import { abortWhenGone } from '../../pipeline/rules/cancellation.js';
import { createDirectExecution, type DirectOperation } from './direct.js';
import { httpOperationInit } from './operationInit.js';
import type { OperationPayload, OperationPipeline } from '../../pipeline/index.js';
import type { GatewayContext } from '../../context/request.js';
import type { GatewayServices } from '../../context/services.js';
import { legacyJsonStatusPlugin, pipelinePlugin } from './apollo.js';
import { compiledExecution } from '../../execution/compiled.js';
import { acceptsIncrementalDelivery, createIncrementalResponder } from './incremental.js';
import { mentionsIncrementalDirective } from '../../execution/incremental.js';
import { MAX_BODY_BYTES, readBody } from './body.js';
import { sendJson } from './response.js';

/** The operation each HTTP request's context belongs to (Apollo copies contexts, so it is an own property). */
const OPERATION = Symbol('operation');
type HttpContext = GatewayContext & { [OPERATION]?: DirectOperation };

/**
 * GraphQL over HTTP (POST and GET) on `/graphql`: Apollo Server is the protocol adapter (APQ, CSRF prevention,
 * content negotiation, the status rules), the operation pipeline applies the rules every transport shares, and
 * execution is compiled per cached document (execution.ts).
 */
export async function createGraphqlHandler(options: { pipeline: OperationPipeline; services: GatewayServices; direct?: boolean }): Promise<{
  serve(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void>;
  stop(): Promise<void>;
}> {
  const { pipeline, services } = options;
  const { config, log } = services;
  const apollo = new ApolloServer<GatewayContext>({
    // An operation the direct path executed with errors: Apollo formats the result it hands over.
    gateway: compiledExecution(pipeline.schema, (context) => (context as HttpContext)[OPERATION]?.handedOver),
    // Apollo's own notices (e.g. inline tracing enabled for this subgraph) go to the gateway's log, not the console.
    logger: log,
    introspection: config.introspection,
    includeStacktraceInErrorResponses: !config.production,
    // "Did you mean …?" suggestions reveal the schema; production hides them with introspection.
    hideSchemaDetailsFromClientErrors: !config.introspection,
    validationRules: [...pipeline.limitRules],
    parseOptions: { maxTokens: config.limits.maxTokens },
    // Automatic persisted queries stay on unless only the manifest's operations may run (the pipeline resolves those).
    persistedQueries: pipeline.persistedOnly ? false : undefined,
    stopOnTerminationSignals: false,
    // Quiet: the plugin's didEncounterErrors logs masked upstream errors with the operation's request id.
    formatError: (formatted) => pipeline.format([formatted], undefined, true)[0],
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      // @cacheControl is read statically (pipeline/rules/cachePolicy.ts); the plugin would hook every field resolve.
      ApolloServerPluginCacheControlDisabled(),
      // Federated inline traces (ftv1) are built from field hooks that compiled execution does not call.
      ApolloServerPluginInlineTraceDisabled(),
      pipelinePlugin(pipeline, (context) => (context as HttpContext)[OPERATION]!),
      legacyJsonStatusPlugin,
    ],
  });
  await apollo.start();
  const incremental = createIncrementalResponder(pipeline, services);
  const direct = options.direct === false ? undefined : createDirectExecution(pipeline);

  return {
    stop: () => apollo.stop(),
    async serve(req, res, requestId) {
      const method = (req.method ?? 'GET').toUpperCase();
      let body: unknown;
      if (method === 'POST') {
        const raw = await readBody(req, MAX_BODY_BYTES);
        if (raw === undefined) return refuse(res, badRequest(`Request body larger than ${MAX_BODY_BYTES} bytes: send a smaller operation.`, 413));
        if ((req.headers['content-type'] ?? '').includes('json')) {
          try {
            body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined;
          } catch {
            return refuse(res, badRequest('Request body is not valid JSON: send a JSON object with "query" (and optional "variables", "operationName").'));
          }
        } else body = raw.toString('utf8');
      }
      const url = req.url ?? '/graphql';
      const q = url.indexOf('?');
      let search = q === -1 ? '' : url.slice(q);
      // The pipeline's `prepare` rules (persisted operations, document size) see the payload before Apollo parses it.
      const params = method === 'POST' ? undefined : new URLSearchParams(search);
      const fields = params ? Object.fromEntries(params) : body;
      let op: DirectOperation | undefined;
      if (fields && typeof fields === 'object' && !Array.isArray(fields)) {
        const prepared = pipeline.prepare(fields as OperationPayload);
        if (prepared instanceof GraphQLError) return refuse(res, prepared);
        // `@defer`/`@stream` for a client that takes parts: the pipeline runs it (Apollo 5 on graphql 16 cannot).
        if (acceptsIncrementalDelivery(req) && mentionsIncrementalDirective(prepared.query)) {
          return incremental.serve(req, res, requestId, prepared as Record<string, unknown>);
        }
        if (prepared !== fields) {
          if (params) search = `?${asSearch(prepared)}`;
          else body = prepared;
        }
        // A JSON POST of a known document: the pipeline runs it without Apollo's per-request work (directExecution.ts).
        if (direct && !params) {
          const outcome = await direct.serve(req, res, requestId, prepared as Record<string, unknown>);
          if (outcome === 'sent') return;
          op = outcome;
        }
      }

      const headers = new HeaderMap();
      for (const [key, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
      }
      if (!op) {
        op = pipeline.begin(httpOperationInit(req, requestId, 'http'));
        abortWhenGone(op, res);
      }
      (op.context as HttpContext)[OPERATION] = op;
      const httpGraphQLRequest: HTTPGraphQLRequest = { method, headers, search, body };
      try {
        const result = await runInTrace(op.trace, () =>
          apollo.executeHTTPGraphQLRequest({
            httpGraphQLRequest,
            context: async () => op.context,
          }),
        );
        for (const [key, value] of result.headers) res.setHeader(key, value);
        res.statusCode = result.status ?? 200;
        if (result.body.kind === 'complete') {
          res.end(result.body.string);
          return;
        }
        for await (const chunk of result.body.asyncIterator) res.write(chunk);
        res.end();
      } finally {
        // An incremental response after its last part; or a request Apollo refused before any plugin saw it (CSRF, a
        // malformed body, a method), which is a request error.
        if (!op.finished) {
          if (res.statusCode >= 400) op.errorCodes.add(ErrorCode.BadUserInput);
          pipeline.finish(op);
        }
      }
    },
  };

  function refuse(res: ServerResponse, error: GraphQLError): void {
    sendJson(res, refusalStatus(error), { errors: pipeline.format([error]) });
  }
}

/** GET parameters of a prepared payload (variables and extensions as JSON, as a GET carries them). */
function asSearch(payload: OperationPayload): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(payload)) {
    if (value === undefined || value === null) continue;
    params.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return params;
}
