import {
  getNamedType,
  getVariableValues,
  GraphQLError,
  isInputObjectType,
  Kind,
  typeFromAST,
  type DocumentNode,
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
      const refused = entitiesRefusal(op, limits.maxEntityRepresentations) ?? variablesRefusal(op.variables, maxBytes);
      if (refused) return refused;
      const coerced = coerceVariables(schema, op.operation, op.variables);
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
 * at the first error: a list of 10,000 bad items costs one.
 */
export function coerceVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): Record<string, unknown> | GraphQLError {
  const definitions = operation.variableDefinitions ?? [];
  // Nothing declared: graphql-js would walk nothing and answer `{}` whatever was sent.
  if (!definitions.length) return {};
  const compiled = compiledCoercion(schema, operation);
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
 * (`getVariableValues`) costs microseconds per operation, the generated one tens of nanoseconds. Only for variables
 * of scalars and enums (in lists and non-nulls): those coerce alike in both (the scalar's own `parseValue`, the enum's
 * value), while graphql-jit 0.8.9's input objects differ at the edges (`@oneOf`, an explicit `undefined` field).
 * Anything it refuses is coerced again by graphql-js, whose verdict and words stand; null where it does not apply.
 */
const coercions = new WeakMap<OperationDefinitionNode, CompiledCoercion | null>();
function compiledCoercion(schema: GraphQLSchema, operation: OperationDefinitionNode): CompiledCoercion | null {
  let coercion = coercions.get(operation);
  if (coercion === undefined) {
    const definitions = operation.variableDefinitions ?? [];
    const simple = definitions.every((d) => {
      const type = typeFromAST(schema, d.type);
      return type !== undefined && !isInputObjectType(getNamedType(type));
    });
    try {
      coercion = simple ? compileVariableParsing(schema, definitions) : null;
    } catch {
      coercion = null;
    }
    coercions.set(operation, coercion);
  }
  return coercion;
}

/** BAD_USER_INPUT when `variables` nest deeper than {@link MAX_VARIABLES_DEPTH} or exceed `maxBytes` as JSON (estimated). */
export function variablesRefusal(
  variables: Record<string, unknown> | undefined,
  maxBytes: number,
): GraphQLError | undefined {
  if (!variables) return undefined;
  // Each value then its depth, in one array: a [value, depth] pair per value was most of what this walk allocated.
  const stack: unknown[] = [variables, 1];
  let bytes = 2;
  while (stack.length) {
    const depth = stack.pop() as number;
    const value = stack.pop();
    if (typeof value === 'string') bytes += value.length + 3;
    else if (typeof value !== 'object' || value === null) bytes += 6;
    else {
      if (depth > MAX_VARIABLES_DEPTH) {
        return refusal(
          `Variables nest deeper than ${MAX_VARIABLES_DEPTH} levels of objects and arrays: flatten them (a JSON argument may nest at most 32).`,
        );
      }
      bytes += 2;
      if (Array.isArray(value)) for (const item of value) stack.push(item, depth + 1);
      else {
        for (const key in value) {
          bytes += key.length + 4;
          stack.push((value as Record<string, unknown>)[key], depth + 1);
        }
      }
    }
    if (bytes > maxBytes)
      return refusal(`Variables are larger than ${maxBytes} bytes as JSON: send less in one operation.`);
  }
  return undefined;
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
