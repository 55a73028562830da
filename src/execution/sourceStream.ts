import {
  defaultFieldResolver,
  GraphQLError,
  getArgumentValues,
  Kind,
  locatedError,
  type ExecutionArgs,
  type ExecutionResult,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { collectFields } from 'graphql/execution/collectFields.js';
import { buildResolveInfo, getFieldDef, type ExecutionContext } from 'graphql/execution/execute.js';
import { isAsyncIterable } from 'graphql/jsutils/isAsyncIterable.js';
import { inspect } from 'graphql/jsutils/inspect.js';
import { addPath, pathToArray, type Path } from 'graphql/jsutils/Path.js';
import { VariablesMemo } from '../planning/memo.js';

/*
 * A subscription's source stream opened with variables the caller has coerced already: graphql-js's
 * `createSourceEventStream` without its `buildExecutionContext`, which coerces every variable again (for a chat stream
 * the whole chat input: ≈ 7 KB of garbage per stream start, `coerceInputValueImpl` and `coerceVariableValues`, and the
 * copy is held by the resolver's `info` while the stream waits for its first chunk). The rest is graphql-js's own
 * `executeSubscription` (graphql 16.15, src/execution/subscribe.ts) with graphql-js's own parts (collectFields,
 * getFieldDef, buildResolveInfo, getArgumentValues, locatedError), so a resolver sees the same arguments and `info`,
 * and a failure reads as graphql-js words it. The operation passed validation, so its one root field is known.
 */

/** What opening a document's source stream needs of the document alone, found once per document (see {@link planOf}). */
interface SourcePlan {
  readonly operation: OperationDefinitionNode;
  readonly fragments: Record<string, FragmentDefinitionNode>;
  readonly rootType: GraphQLObjectType;
  readonly fieldNodes: readonly FieldNode[];
  readonly fieldDef: GraphQLField<unknown, unknown> | undefined;
  readonly path: Path;
}

/**
 * Each cached document's plan, per schema: kept for the document alone when finding it read no variable (no
 * `@skip`/`@include(if: $v)` at the root: planning/memo.ts `watched`), else per variable values. A chat stream's start
 * found the operation, its fragments, its root field and its definition anew each time.
 */
const plans = new WeakMap<GraphQLSchema, VariablesMemo<DocumentNode, SourcePlan>>();

/**
 * graphql-js `createSourceEventStream(args)` with `variables` as `args.variableValues` coerced (by the pipeline's
 * operationInputs rule, with graphql-js's `getVariableValues`): the resolver's event stream, or `{errors}` when the
 * subscribe resolver failed with (or returned) an error.
 */
export async function sourceStream(
  args: ExecutionArgs,
  variables: Record<string, unknown>,
): Promise<AsyncIterable<unknown> | ExecutionResult> {
  const { schema, rootValue, contextValue } = args;
  const { operation, fragments, rootType, fieldNodes, fieldDef, path } = planOf(args, variables);
  if (!fieldDef)
    return {
      errors: [
        new GraphQLError(`The subscription field "${fieldNodes[0].name.value}" is not defined.`, { nodes: fieldNodes }),
      ],
    };
  // What buildResolveInfo reads of graphql-js's execution context.
  const context = {
    schema,
    fragments,
    rootValue,
    contextValue,
    operation,
    variableValues: variables,
  } as ExecutionContext;
  let stream: unknown;
  try {
    const info = buildResolveInfo(context, fieldDef, fieldNodes as FieldNode[], rootType, path);
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

/** The document's plan for the named operation, from the memo when its making is known not to depend on `variables`. */
function planOf(args: ExecutionArgs, variables: Record<string, unknown>): SourcePlan {
  let memo = plans.get(args.schema);
  if (!memo) plans.set(args.schema, (memo = new VariablesMemo(16)));
  return memo.watched(args.document, variables, makePlan, args, args.operationName ?? '');
}

/** Finds the operation, its fragments and its one root field (collectFields reads `variables` for `@skip`/`@include`). */
function makePlan(args: ExecutionArgs, variables: Record<string, unknown> | undefined): SourcePlan {
  const { schema, document, operationName } = args;
  let operation: OperationDefinitionNode | undefined;
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null);
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
    else if (
      definition.kind === Kind.OPERATION_DEFINITION &&
      (operationName == null ? operation === undefined : definition.name?.value === operationName)
    )
      operation = definition;
  }
  const rootType = schema.getSubscriptionType();
  if (!operation || !rootType) throw new Error('sourceStream: a validated subscription was expected');
  const [[responseName, fieldNodes]] = collectFields(
    schema,
    fragments,
    variables ?? {},
    rootType,
    operation.selectionSet,
  );
  return {
    operation,
    fragments,
    rootType,
    fieldNodes,
    fieldDef: getFieldDef(schema, rootType, fieldNodes[0]) ?? undefined,
    path: addPath(undefined, responseName, rootType.name),
  };
}
