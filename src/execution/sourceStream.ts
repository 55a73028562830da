import {
  defaultFieldResolver,
  GraphQLError,
  getArgumentValues,
  Kind,
  locatedError,
  type ExecutionArgs,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
} from 'graphql';
import { collectFields } from 'graphql/execution/collectFields.js';
import { buildResolveInfo, getFieldDef, type ExecutionContext } from 'graphql/execution/execute.js';
import { isAsyncIterable } from 'graphql/jsutils/isAsyncIterable.js';
import { inspect } from 'graphql/jsutils/inspect.js';
import { addPath, pathToArray } from 'graphql/jsutils/Path.js';

/*
 * A subscription's source stream opened with variables the caller has coerced already: graphql-js's
 * `createSourceEventStream` without its `buildExecutionContext`, which coerces every variable again (for a chat stream
 * the whole chat input: ≈ 7 KB of garbage per stream start, `coerceInputValueImpl` and `coerceVariableValues`, and the
 * copy is held by the resolver's `info` while the stream waits for its first chunk). The rest is graphql-js's own
 * `executeSubscription` (graphql 16.15, src/execution/subscribe.ts) with graphql-js's own parts (collectFields,
 * getFieldDef, buildResolveInfo, getArgumentValues, locatedError), so a resolver sees the same arguments and `info`,
 * and a failure reads as graphql-js words it. The operation passed validation, so its one root field is known.
 */

/**
 * graphql-js `createSourceEventStream(args)` with `variables` as `args.variableValues` coerced (by the pipeline's
 * operationInputs rule, with graphql-js's `getVariableValues`): the resolver's event stream, or `{errors}` when the
 * subscribe resolver failed with (or returned) an error.
 */
export async function sourceStream(
  args: ExecutionArgs,
  variables: Record<string, unknown>,
): Promise<AsyncIterable<unknown> | ExecutionResult> {
  const { schema, document, rootValue, contextValue } = args;
  let operation: OperationDefinitionNode | undefined;
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null);
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
    else if (
      definition.kind === Kind.OPERATION_DEFINITION &&
      (args.operationName == null ? operation === undefined : definition.name?.value === args.operationName)
    )
      operation = definition;
  }
  const rootType = schema.getSubscriptionType();
  if (!operation || !rootType) throw new Error('sourceStream: a validated subscription was expected');
  // What buildResolveInfo reads of graphql-js's execution context.
  const context = {
    schema,
    fragments,
    rootValue,
    contextValue,
    operation,
    variableValues: variables,
  } as ExecutionContext;
  const [[responseName, fieldNodes]] = collectFields(schema, fragments, variables, rootType, operation.selectionSet);
  const fieldDef = getFieldDef(schema, rootType, fieldNodes[0]);
  if (!fieldDef)
    return {
      errors: [
        new GraphQLError(`The subscription field "${fieldNodes[0].name.value}" is not defined.`, { nodes: fieldNodes }),
      ],
    };
  const path = addPath(undefined, responseName, rootType.name);
  let stream: unknown;
  try {
    const info = buildResolveInfo(context, fieldDef, fieldNodes, rootType, path);
    const fieldArgs = getArgumentValues(fieldDef, fieldNodes[0], variables);
    const resolve = fieldDef.subscribe ?? args.subscribeFieldResolver ?? defaultFieldResolver;
    stream = await resolve(rootValue, fieldArgs, contextValue, info);
    if (stream instanceof Error) throw stream;
  } catch (error) {
    return { errors: [locatedError(error, fieldNodes, pathToArray(path))] };
  }
  if (!isAsyncIterable(stream))
    throw new Error(`Subscription field must return Async Iterable. Received: ${inspect(stream)}.`);
  return stream;
}
