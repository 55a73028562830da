import { GraphQLScalarType, Kind } from 'graphql';
import { badInput } from '../../errors/codes.js';

function parse(value: unknown): string {
  const ok =
    typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}$/.test(value) &&
    new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
  if (!ok) throw badInput(`Date must be a calendar day YYYY-MM-DD such as 2024-05-01, got ${JSON.stringify(value)}`);
  return value as string;
}

/** A calendar day, `YYYY-MM-DD`; an impossible day (2024-02-30) is refused rather than rolled over. */
export const DateScalar = new GraphQLScalarType({
  name: 'Date',
  serialize: (value) => {
    if (value instanceof Date) return value.toISOString().slice(0, 10);
    return parse(value);
  },
  parseValue: parse,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw badInput('Date literals must be strings such as "2024-05-01"');
    return parse(ast.value);
  },
});
