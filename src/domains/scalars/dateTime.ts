import { GraphQLScalarType, Kind } from 'graphql';
import { badInput } from '../../errors/codes.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,7})?(Z|[+-]\d{2}:\d{2})$/;

function parse(value: unknown): string {
  if (typeof value !== 'string' || !ISO.test(value) || Number.isNaN(Date.parse(value))) {
    throw badInput(
      `DateTime must be ISO-8601 with an offset such as 2024-05-01T12:00:00Z, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** ISO-8601 timestamps; upstream values pass through as sent (Graph keeps 7 fractional digits) when they are valid. */
export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  serialize(value) {
    if (value instanceof Date) return value.toISOString();
    if (typeof value === 'string') {
      // Graph sends offsets-free stamps in a few places (innerError.date); treat them as UTC rather than fail the field.
      return /[Zz]|[+-]\d{2}:\d{2}$/.test(value) ? value : `${value}Z`;
    }
    throw new TypeError(`DateTime cannot represent ${JSON.stringify(value)}`);
  },
  parseValue: parse,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw badInput('DateTime literals must be strings such as "2024-05-01T12:00:00Z"');
    return parse(ast.value);
  },
});
