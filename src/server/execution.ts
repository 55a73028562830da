import type { ApolloServerOptionsWithGateway, BaseContext } from '@apollo/server';
import { execute, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/** Apollo's gateway interface, as its constructor takes it. */
type GatewayInterface = ApolloServerOptionsWithGateway<BaseContext>['gateway'];

/**
 * Compiled execution of cached documents (graphql-jit), behind Apollo Server's gateway interface: the supported way
 * to give Apollo 5 another executor while parsing, validation (limit rules included), plugins and HTTP stay Apollo's.
 * Apollo's document store hands back the same `DocumentNode` for the same query text, so each document (and
 * operation name) is compiled once, on its first run, and kept while Apollo keeps the document; a request then costs
 * one call of the generated function instead of graphql-js walking the document again. An operation graphql-jit
 * cannot compile runs on graphql-js `execute`, unchanged.
 *
 * One known difference: graphql-jit 0.8.9 pushes the null of a list item whose promise rejects onto the end of the
 * list instead of its index, so a resolver must not return a list of promises that can reject (the one that did,
 * `_entities`, settles its list in schema.ts; an Error item is an item error in both executors).
 */
export function compiledExecution(schema: GraphQLSchema): GatewayInterface {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  const compiledFor = (document: DocumentNode, operationName: string | null): CompiledQuery | null => {
    let byName = compiled.get(document);
    if (!byName) compiled.set(document, (byName = new Map()));
    const key = operationName ?? '';
    let query = byName.get(key);
    if (query === undefined) {
      const result = compileQuery(schema, document, operationName ?? undefined);
      query = isCompiledQuery(result) ? result : null;
      byName.set(key, query);
    }
    return query;
  };

  return {
    async load() {
      return {
        schema,
        executor: async ({ document, operationName, context, request }) => {
          const query = compiledFor(document, operationName);
          const variables = request.variables ?? {};
          const run = () => execute({ schema, document, operationName, contextValue: context, variableValues: variables });
          if (!query) return run();
          const result = (await query.query(undefined, context, variables)) as ExecutionResult;
          // No data at all means the variables failed to coerce, before any resolver ran; graphql-js names the
          // custom scalar's reason ("Date must be a calendar day …") where graphql-jit says only "Expected type".
          return result.data === undefined && result.errors?.length ? run() : result;
        },
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
