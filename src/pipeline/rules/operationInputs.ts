import {
  getNamedType,
  getVariableValues,
  GraphQLError,
  isInputObjectType,
  Kind,
  typeFromAST,
  type DocumentNode,
  type GraphQLInputObjectType,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  type VariableDefinitionNode,
} from 'graphql';
import { createRequire } from 'node:module';
import type { OperationLimits } from '../../config/limits.js';
import { ErrorCode } from '../../errors/codes.js';
import { incrementalArgumentsError } from '../../execution/deferStream.js';
import type { AdmittedOperation, PipelineRule } from '../operation.js';

/**
 * Levels of objects and arrays the variables may nest, the variables object counting as 1: a JSON argument may nest
 * 32 (domains/chat/jsonObject.ts), and the input objects around one need a few more.
 */
export const MAX_VARIABLES_DEPTH = 64;

/**
 * The inputs of an operation that validation cannot see, checked first at admission, before any other rule reads
 * them (the response cache's key, the budget's estimate, the cost) and before execution:
 * - `_entities` carries at most MAX_ENTITY_REPRESENTATIONS representations, refused whole before any upstream
 *   request: 10,000 references would otherwise cost the budget's search, the quota's walk and an answer of megabytes;
 * - its variables, declared or not, nest at most {@link MAX_VARIABLES_DEPTH} levels and hold at most `maxBytes` as
 *   JSON (the largest message a transport takes), checked by one walk without recursion: a value nested 100,000
 *   levels deep is refused, not a stack overflow in whatever recursed over it first;
 * - its variables coerce to the operation's variable types ({@link coerceVariables}): a missing, null or mistyped
 *   variable is the client's mistake (BAD_USER_INPUT), for a mutation or subscription as for a query, where a rule
 *   reading an argument from it would otherwise throw (INTERNAL_SERVER_ERROR). The coerced values replace
 *   `op.variables`, so every later rule reads what execution will see;
 * - `@stream(initialCount: $n)` is not negative (the literal case is a validation rule, execution/deferStream.ts).
 */
export function useOperationInputs(options: {
  schema: GraphQLSchema;
  limits: Pick<OperationLimits, 'maxEntityRepresentations'>;
  maxVariablesBytes: number;
}): PipelineRule {
  const { schema, limits, maxVariablesBytes: maxBytes } = options;
  return {
    name: 'operationInputs',
    admit(op) {
      // The representations' count reads one array's length: before the walk, so a flood of them costs nothing more.
      const refused = entitiesRefusal(op, limits.maxEntityRepresentations);
      if (refused) return refused;
      const scanned = scanVariables(op.variables, maxBytes);
      if (scanned instanceof GraphQLError) return scanned;
      const coerced = coerceVariables(schema, op.operation, op.variables, scanned);
      if (coerced instanceof GraphQLError) return coerced;
      op.variables = coerced;
      return incrementalArgumentsError(op.document, op.operation, coerced);
    },
  };
}

/**
 * The variables coerced to the operation's variable types as graphql-js coerces them for execution (defaults
 * applied, each scalar parsed, undeclared ones left out), or the refusal of the first that does not coerce, in
 * graphql-js's words (`Variable "$id" of required type "ID!" was not provided.`, as a query's answer said before):
 * BAD_USER_INPUT with HTTP 400, the status GraphQL over HTTP gives a request error (transports/http/response.ts
 * turns it into 200 for a client that accepts only `application/json`, as for every request error). Coercion stops
 * at the first error: a list of 10,000 bad items costs one. `irregular`: whether `variables` may hold a value only
 * graphql-js coerces as it should ({@link scanVariables}: an empty array, an in-process caller's `undefined`).
 */
export function coerceVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
  irregular = true,
): Record<string, unknown> | GraphQLError {
  const definitions = operation.variableDefinitions ?? [];
  // Nothing declared: graphql-js would walk nothing and answer `{}` whatever was sent.
  if (!definitions.length) return {};
  const compiled = irregular ? null : compiledCoercion(schema, operation);
  if (compiled) {
    const fast = compiled(variables ?? {});
    if (!fast.errors) return fast.coerced;
  }
  const result = getVariableValues(schema, definitions, variables ?? {}, { maxErrors: 1 });
  if (!result.errors) return result.coerced;
  const first = result.errors[0];
  // graphql-js keeps the scalar's own error (its stack, its extensions) as the cause: kept, the code set.
  return new GraphQLError(first.message, {
    nodes: first.nodes,
    originalError: first.originalError ?? first,
    extensions: { ...first.extensions, code: ErrorCode.BadUserInput, http: { status: 400 } },
  });
}

/** graphql-jit's generated coercion of one operation's variables (CommonJS only: its ES build's deep paths do not resolve). */
type CompiledCoercion = (
  input: Record<string, unknown>,
) => { errors: readonly GraphQLError[]; coerced: undefined } | { errors: undefined; coerced: Record<string, unknown> };
const { compileVariableParsing } = createRequire(import.meta.url)('graphql-jit/dist/variables.js') as {
  compileVariableParsing(schema: GraphQLSchema, definitions: readonly VariableDefinitionNode[]): CompiledCoercion;
};

/**
 * Each operation's variables coerced by generated code, made once per cached document: graphql-js's generic walk
 * (`getVariableValues`) costs microseconds per operation and makes a list of fields per input object, a path per
 * value and its own result (5.5 KB for a chat stream's input), the generated one tens of nanoseconds and the result.
 * Scalars and enums coerce alike in both (the scalar's own `parseValue`, the enum's value), and so do input objects
 * (the same fields in the same order, defaults and nulls alike, an unknown field refused; graphql-js's objects have
 * no prototype, graphql-jit's Object's) except at edges graphql-jit 0.8.9 does not know: `@oneOf`; an explicit
 * `undefined` field (left out by graphql-js, null for graphql-jit) or an object's inherited fields (read by graphql-js
 * only), which only an in-process caller can send; an empty array where an input object is expected (an empty object
 * to graphql-jit): the variables are scanned for those ({@link scanVariables}). Anything it refuses is coerced again
 * by graphql-js, whose verdict and words stand; null where it does not apply.
 */
const coercions = new WeakMap<OperationDefinitionNode, CompiledCoercion | null>();
function compiledCoercion(schema: GraphQLSchema, operation: OperationDefinitionNode): CompiledCoercion | null {
  let coercion = coercions.get(operation);
  if (coercion === undefined) {
    const definitions = operation.variableDefinitions ?? [];
    const alike = definitions.every((d) => {
      const type = typeFromAST(schema, d.type);
      return type !== undefined && generatedAlike(getNamedType(type), new Set());
    });
    try {
      coercion = alike ? compileVariableParsing(schema, definitions) : null;
    } catch {
      coercion = null;
    }
    coercions.set(operation, coercion);
  }
  return coercion;
}

/**
 * Whether graphql-jit's generated coercion of `type` is graphql-js's: a scalar's or enum's always; an input object's
 * when neither it nor any input object in its fields is `@oneOf` (graphql-jit does not check it) or holds itself
 * (graphql-jit's generator would not end).
 */
function generatedAlike(type: GraphQLNamedType, within: Set<GraphQLInputObjectType>): boolean {
  if (!isInputObjectType(type)) return true;
  if (type.isOneOf || within.has(type)) return false;
  within.add(type);
  for (const field of Object.values(type.getFields()))
    if (!generatedAlike(getNamedType(field.type), within)) return false;
  within.delete(type);
  return true;
}

/** BAD_USER_INPUT when `variables` nest deeper than {@link MAX_VARIABLES_DEPTH} or exceed `maxBytes` as JSON (estimated). */
export function variablesRefusal(
  variables: Record<string, unknown> | undefined,
  maxBytes: number,
): GraphQLError | undefined {
  const scanned = scanVariables(variables, maxBytes);
  return scanned instanceof GraphQLError ? scanned : undefined;
}

/**
 * {@link variablesRefusal}'s walk, which also tells whether the variables hold a value that graphql-jit's generated
 * coercion may read otherwise than graphql-js, for {@link coerceVariables} to leave to graphql-js: what JSON cannot
 * send (an explicit `undefined` below the top, an object neither plain nor an array: an upload, a class's instance),
 * or an empty array (an input object to graphql-jit where one is expected, refused by graphql-js). Its refusal, else
 * that.
 */
export function scanVariables(
  variables: Record<string, unknown> | undefined,
  maxBytes: number,
): GraphQLError | boolean {
  if (!variables) return false;
  // Each value then its depth, in one array: a [value, depth] pair per value was most of what this walk allocated.
  const stack: unknown[] = [variables, 1];
  let bytes = 2;
  let irregular = false;
  while (stack.length) {
    const depth = stack.pop() as number;
    const value = stack.pop();
    if (typeof value === 'string') bytes += value.length + 3;
    else if (typeof value !== 'object' || value === null) {
      bytes += 6;
      if (value === undefined && depth > 2) irregular = true;
    } else {
      if (depth > MAX_VARIABLES_DEPTH) {
        return refusal(
          `Variables nest deeper than ${MAX_VARIABLES_DEPTH} levels of objects and arrays: flatten them (a JSON argument may nest at most 32).`,
        );
      }
      bytes += 2;
      if (Array.isArray(value)) {
        if (!value.length) irregular = true;
        for (const item of value) stack.push(item, depth + 1);
      } else {
        const proto = Object.getPrototypeOf(value) as unknown;
        if (proto !== Object.prototype && proto !== null) irregular = true;
        for (const key in value) {
          bytes += key.length + 4;
          stack.push((value as Record<string, unknown>)[key], depth + 1);
        }
      }
    }
    if (bytes > maxBytes)
      return refusal(`Variables are larger than ${maxBytes} bytes as JSON: send less in one operation.`);
  }
  return irregular;
}

function refusal(message: string): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: ErrorCode.BadUserInput, argument: 'variables', http: { status: 400 } },
  });
}

/** Each operation's `_entities` fields (at its root, through fragments); most operations have none. */
const entityFields = new WeakMap<OperationDefinitionNode, readonly ValueNode[]>();

/** QUERY_TOO_COMPLEX when the operation's `_entities` fields carry more than `max` representations together. */
function entitiesRefusal(op: AdmittedOperation, max: number): GraphQLError | undefined {
  let fields = entityFields.get(op.operation);
  if (!fields)
    entityFields.set(
      op.operation,
      (fields =
        op.operation.operation === 'query' ? representationArguments(op.document, op.operation.selectionSet) : []),
    );
  if (!fields.length) return undefined;
  let found = 0;
  for (const value of fields) {
    const list = value.kind === Kind.VARIABLE ? op.variables?.[value.name.value] : undefined;
    found += value.kind === Kind.LIST ? value.values.length : Array.isArray(list) ? list.length : 0;
  }
  if (found <= max) return undefined;
  return new GraphQLError(
    `_entities carries ${found} representations; MAX_ENTITY_REPRESENTATIONS allows ${max} per operation: send them in batches of at most ${max}, or raise MAX_ENTITY_REPRESENTATIONS.`,
    {
      extensions: {
        code: ErrorCode.QueryTooComplex,
        limit: 'MAX_ENTITY_REPRESENTATIONS',
        max,
        found,
        http: { status: 400 },
      },
    },
  );
}

/** The `representations` argument of every `_entities` field at the root of an operation. */
function representationArguments(
  document: DocumentNode,
  selectionSet: SelectionSetNode,
  seen = new Set<string>(),
): ValueNode[] {
  const values: ValueNode[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const value =
        selection.name.value === '_entities'
          ? selection.arguments?.find((a) => a.name.value === 'representations')?.value
          : undefined;
      if (value) values.push(value);
    } else if (selection.kind === Kind.INLINE_FRAGMENT)
      values.push(...representationArguments(document, selection.selectionSet, seen));
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = document.definitions.find(
        (d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value,
      );
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION)
        values.push(...representationArguments(document, fragment.selectionSet, seen));
    }
  }
  return values;
}
