import {
  ApolloServer,
  HeaderMap,
  type ApolloServerOptionsWithGateway,
  type ApolloServerPlugin,
  type BaseContext,
} from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { ExecutionResult, GraphQLError, GraphQLSchema } from 'graphql';
import { OperationKey, operationValue, type GatewayContext } from '../../context/request.js';
import type { GatewayServices } from '../../context/services.js';
import { compiledExecute } from '../../execution/compiled.js';
import type { HostedOperation, OperationPipeline } from '../../pipeline/index.js';
import { subscriptionOverHttp } from './classify.js';
import { graphqlStatus, retryAfterOf } from './response.js';

/** The pipeline's operation Apollo runs in, for Apollo's plugin (Apollo copies contexts; this map is shared). */
export const HOSTED_OPERATION = new OperationKey<HostedOperation>('the operation Apollo Server parses');

/**
 * Apollo Server as the adapter for what it is best at (GET, automatic persisted queries, batches, unusual `Accept`
 * headers, its own texts for documents that fail to parse or validate), behind the request classifier
 * (classify.ts): CSRF prevention is decided there, so Apollo's own check is off. Parsing and validation use the
 * pipeline's settings and document cache; the one plugin hands the operation to the pipeline's rules; execution is
 * compiled (execution/compiled.ts).
 */
export async function createApolloAdapter(
  pipeline: OperationPipeline,
  services: GatewayServices,
): Promise<ApolloServer<GatewayContext>> {
  const { config, log } = services;
  const { documents } = pipeline;
  const apollo = new ApolloServer<GatewayContext>({
    gateway: compiledExecution(pipeline.schema),
    // Apollo's own notices (e.g. inline tracing enabled for this subgraph) go to the gateway's log, not the console.
    logger: log,
    introspection: config.introspection,
    includeStacktraceInErrorResponses: config.errorStackTraces,
    // "Did you mean …?" suggestions reveal the schema; production hides them with introspection.
    hideSchemaDetailsFromClientErrors: !documents.suggestions,
    validationRules: [...documents.limitRules],
    parseOptions: documents.parseOptions,
    // One document cache for both paths: Apollo's entries live in the pipeline's, under Apollo's own keys.
    documentStore: documents.keyValueStore(),
    csrfPrevention: false,
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
      pipelinePlugin(),
      statusPlugin,
    ],
  });
  await apollo.start();
  return apollo;
}

/**
 * The one plugin: Apollo resolves the operation, and the pipeline's `admit` rules judge it, its `completed` rules
 * see the result, its formatter formats the errors, and its `finish` rules end it; so HTTP through Apollo runs the
 * rules every other transport runs.
 */
function pipelinePlugin(): ApolloServerPlugin<GatewayContext> {
  return {
    async requestDidStart({ contextValue }) {
      const op = operationValue(contextValue, HOSTED_OPERATION)!;
      return {
        async didResolveOperation({ operation, document, request }) {
          if (!operation) return;
          if (operation.operation === 'subscription') throw subscriptionOverHttp();
          const refusal = await op.admit(document, operation, request.variables, request.operationName);
          if (refusal) throw refusal;
        },
        async responseForOperation() {
          // The response cache's answer, found at admission: Apollo sends it without executing.
          const answer = op.answer;
          return answer
            ? { body: { kind: 'single', singleResult: answer }, http: { status: undefined, headers: new HeaderMap() } }
            : null;
        },
        async didEncounterErrors({ errors }) {
          op.noteErrors(errors);
        },
        async willSendResponse({ response, request }) {
          // An incremental response is still running: the pipeline finishes its operation once its last part is sent.
          if (response.body.kind !== 'single') return;
          const { extensions, cacheControl } = await op.answering(
            response.body.singleResult,
            request.http?.method ?? 'POST',
            request.operationName,
          );
          // Its cost (demand control), as the direct path answers it; a copy, since a cached answer is shared.
          if (extensions !== response.body.singleResult.extensions)
            response.body.singleResult = { ...response.body.singleResult, extensions };
          response.http.headers.set('cache-control', cacheControl);
        },
      };
    },
  };
}

/** GraphQL over HTTP's status rule (response.ts) on Apollo's answers too. */
const statusPlugin: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, request }) {
        if (response.body.kind !== 'single' || response.http.status === undefined) return;
        const modern = request.http?.headers.get('accept')?.includes('application/graphql-response+json') ?? false;
        response.http.status = graphqlStatus(response.http.status, response.body.singleResult.errors, modern);
        const retryAfter = retryAfterOf(response.body.singleResult.errors);
        if (retryAfter !== undefined) response.http.headers.set('retry-after', retryAfter);
      },
    };
  },
};

/** Apollo's gateway interface, as its constructor takes it. */
type GatewayInterface = ApolloServerOptionsWithGateway<BaseContext>['gateway'];

/**
 * Compiled execution (execution/compiled.ts) behind Apollo Server's gateway interface: the supported way to give
 * Apollo 5 another executor while parsing, validation, plugins and HTTP stay Apollo's.
 */
function compiledExecution(schema: GraphQLSchema): GatewayInterface {
  const run = compiledExecute(schema);
  return {
    async load() {
      return {
        schema,
        executor: async ({ document, operationName, context, request }) =>
          withExtensions(
            await run({
              schema,
              document,
              operationName,
              contextValue: context,
              variableValues: request.variables ?? {},
            }),
          ),
      };
    },
    onSchemaLoadOrUpdate(callback) {
      // The schema never changes at run time; Apollo still expects the first notification.
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    async stop() {},
  };
}

/**
 * graphql-jit's error for a resolver's throw has no `extensions` when what was thrown had none (a TypeError), and
 * Apollo's error normalizing reads `extensions.code` and fails: the answer would name Apollo's own TypeError instead
 * of the resolver's error, unlike the direct path. Each such error is copied, fields and prototype, with empty ones
 * (graphql-jit defines its fields read-only, so the error itself cannot take them).
 */
function withExtensions(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.some((e) => e.extensions === undefined)) return result;
  const errors = result.errors.map((e): GraphQLError =>
    e.extensions === undefined
      ? Object.create(Object.getPrototypeOf(e), {
          ...Object.getOwnPropertyDescriptors(e),
          extensions: { value: {}, enumerable: false },
        })
      : e,
  );
  return { ...result, errors };
}
