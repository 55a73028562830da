import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  isSpecifiedScalarType,
  typeFromAST,
  valueFromAST,
  type GraphQLEnumType,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';

/** A JSON Schema object, as MCP tool definitions and chat providers' function tools take it. */
export type JsonSchema = Record<string, unknown>;

/** The schema's scalars as JSON Schema (the same for inputs and answers); anything not named here is a string. */
export const SCALARS: Readonly<Record<string, JsonSchema>> = {
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  String: { type: 'string' },
  ID: { type: 'string' },
  DateTime: { type: 'string', format: 'date-time' },
  Date: { type: 'string', format: 'date' },
  JSONObject: { type: 'object' },
};

/**
 * The JSON Schema of an operation's variables, from the GraphQL schema: one property per variable, required when
 * its type is non-null and it has no default; input objects, enums and lists spelled out, input objects to a depth
 * of {@link MAX_DEPTH} (deeper levels, which only recursive inputs reach, accept any object).
 */
export function variablesSchema(schema: GraphQLSchema, operation: OperationDefinitionNode): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type as never) as GraphQLInputType | undefined;
    if (!type) continue; // validation has already refused an unknown type
    const property = typeSchema(type, 0);
    if (definition.defaultValue) {
      const value = valueFromAST(definition.defaultValue, type);
      if (value !== undefined) property.default = value;
    } else if (isNonNullType(type)) required.push(name);
    properties[name] = property;
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

const MAX_DEPTH = 5;

/**
 * The enum values a caller may send: UNKNOWN_FUTURE_VALUE (CONTRACT.md section 3) only describes an upstream value
 * this gateway does not know yet, and every domain refuses it as input.
 */
function sendableValues(type: GraphQLEnumType): string[] {
  return type
    .getValues()
    .map((v) => v.name)
    .filter((name) => name !== UNKNOWN_FUTURE_VALUE);
}

const UNKNOWN_FUTURE_VALUE = 'UNKNOWN_FUTURE_VALUE';

function typeSchema(type: GraphQLInputType, depth: number): JsonSchema {
  if (isNonNullType(type)) return typeSchema(type.ofType, depth);
  if (isListType(type)) return { type: 'array', items: typeSchema(type.ofType as GraphQLInputType, depth) };
  const named = getNamedType(type);
  // The built-in scalars' descriptions explain GraphQL, not the argument.
  const description = named.description && !isSpecifiedScalarType(named) ? { description: named.description } : {};
  if (isEnumType(named)) return { type: 'string', enum: sendableValues(named), ...description };
  if (isScalarType(named)) return { ...(SCALARS[named.name] ?? { type: 'string' }), ...description };
  if (isInputObjectType(named)) {
    if (depth >= MAX_DEPTH) return { type: 'object', ...description };
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const field of Object.values(named.getFields())) {
      const property = typeSchema(field.type, depth + 1);
      if (field.description) property.description = field.description;
      if (field.defaultValue !== undefined) property.default = field.defaultValue;
      else if (isNonNullType(field.type)) required.push(field.name);
      properties[field.name] = property;
    }
    return {
      type: 'object',
      properties,
      ...(required.length ? { required } : {}),
      additionalProperties: false,
      ...description,
    };
  }
  return {};
}
