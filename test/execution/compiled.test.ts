import { makeExecutableSchema } from '@graphql-tools/schema';
import { GraphQLScalarType, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { compiledExecute } from '../../src/execution/compiled.js';

const schema = makeExecutableSchema({
  typeDefs: `scalar Day
    type Query { now: String, later(ms: Int!): String, day(on: Day!): String }`,
  resolvers: {
    Day: new GraphQLScalarType({
      name: 'Day',
      parseValue: (value) => {
        if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value))
          throw new TypeError(`Day must be a calendar day such as 2026-11-28, not ${JSON.stringify(value)}`);
        return value;
      },
    }),
    Query: {
      now: () => 'now',
      later: (_root, { ms }: { ms: number }) => new Promise((resolve) => setTimeout(() => resolve(`after ${ms}`), ms)),
      day: (_root, { on }: { on: string }) => on,
    },
  },
});
const run = compiledExecute(schema);

describe('compiledExecute', () => {
  it('answers a selection that resolves at once at once, and hands on the promise of one that waits', async () => {
    expect(run({ schema, document: parse('{ now }') })).toEqual({ data: { now: 'now' } });
    const waiting = run({ schema, document: parse('{ now later(ms: 5) }') });
    expect(waiting).toBeInstanceOf(Promise);
    await expect(waiting).resolves.toEqual({ data: { now: 'now', later: 'after 5' } });
  });

  it("words a variable that fails to coerce as graphql-js does, with the scalar's own reason", async () => {
    const result = await run({
      schema,
      document: parse('query ($on: Day!) { day(on: $on) }'),
      variableValues: { on: 'tomorrow' },
    });
    expect(result.data).toBeUndefined();
    expect(result.errors?.[0]?.message).toContain('Day must be a calendar day such as 2026-11-28, not "tomorrow"');
  });

  it('runs an operation graphql-jit cannot compile on graphql-js, naming the missing operation', async () => {
    const result = await run({ schema, document: parse('query A { now }'), operationName: 'B' });
    expect(result.errors?.[0]?.message).toBe('Unknown operation named "B".');
  });
});
