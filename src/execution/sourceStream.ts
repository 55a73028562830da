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
  type SelectionSetNode,
} from 'graphql';
import { collectFields } from 'graphql/execution/collectFields.js';
import { buildResolveInfo, getFieldDef, type ExecutionContext } from 'graphql/execution/execute.js';
import { isAsyncIterable } from 'graphql/jsutils/isAsyncIterable.js';
import { inspect } from 'graphql/jsutils/inspect.js';
import { addPath, pathToArray, type Path } from 'graphql/jsutils/Path.js';

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
  readonly schema: GraphQLSchema;
  readonly operationName: string | null | undefined;
  readonly operation: OperationDefinitionNode;
  readonly fragments: Record<string, FragmentDefinitionNode>;
  readonly rootType: GraphQLObjectType;
  readonly fieldNodes: readonly FieldNode[];
  readonly fieldDef: GraphQLField<unknown, unknown> | undefined;
  readonly path: Path;
}

/**
 * The plan of each cached document whose root selections hold no directive (so none of them depends on the
 * variables: `@skip`/`@include` are the only ones collectFields reads), for the operation named as it was last.
 * A chat stream's start found the operation, its fragments, its root field and its definition anew each time.
 */
const plans = new WeakMap<DocumentNode, SourcePlan>();

/**
 * graphql-js `createSourceEventStream(args)` with `variables` as `args.variableValues` coerced (by the pipeline's
 * operationInputs rule, with graphql-js's `getVariableValues`): the resolver's event stream, or `{errors}` when the
 * subscribe resolver failed with (or returned) an error.
 */
export async function sourceStream(
  args: ExecutionArgs,
  variables: Record<string, unknown>,
): Promise<AsyncIterable<unknown> | ExecutionResult> {
  const { rootValue, contextValue } = args;
  const { schema, operation, fragments, rootType, fieldNodes, fieldDef, path } = planOf(args, variables);
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

/** The document's plan: kept when no root selection has a directive, else made for these variables. */
function planOf(args: ExecutionArgs, variables: Record<string, unknown>): SourcePlan {
  const { schema, document, operationName } = args;
  const kept = plans.get(document);
  if (kept && kept.schema === schema && kept.operationName === operationName) return kept;
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
  const [[responseName, fieldNodes]] = collectFields(schema, fragments, variables, rootType, operation.selectionSet);
  const plan: SourcePlan = {
    schema,
    operationName,
    operation,
    fragments,
    rootType,
    fieldNodes,
    fieldDef: getFieldDef(schema, rootType, fieldNodes[0]) ?? undefined,
    path: addPath(undefined, responseName, rootType.name),
  };
  if (!directiveAtRoot(operation.selectionSet, fragments, 0)) plans.set(document, plan);
  return plan;
}

/** Whether a selection collectFields reads at the root (through fragments) has a directive. */
function directiveAtRoot(
  set: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  depth: number,
): boolean {
  for (const selection of set.selections) {
    if (selection.directives?.length || depth > 16) return true;
    if (selection.kind === Kind.FIELD) continue;
    const inner =
      selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : fragments[selection.name.value]?.selectionSet;
    if (inner && directiveAtRoot(inner, fragments, depth + 1)) return true;
  }
  return false;
}
