import { GraphQLScalarType, valueFromASTUntyped } from 'graphql';
import { badInput } from '../../errors.js';

function object(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badInput(`JSONObject must be a JSON object such as {"type": "object"}, got ${JSON.stringify(value)?.slice(0, 60)}`);
  }
  return value as Record<string, unknown>;
}

/** A JSON object as a value (tool parameter schemas), so callers need not escape JSON inside a string. */
export const JSONObjectScalar = new GraphQLScalarType({
  name: 'JSONObject',
  serialize: object,
  parseValue: object,
  parseLiteral: (ast, variables) => object(valueFromASTUntyped(ast, variables)),
});
