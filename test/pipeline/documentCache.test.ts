import { buildSchema, getOperationAST, type DocumentNode, type GraphQLError, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DocumentCache, operationOf } from '../../src/pipeline/documentCache.js';

const schema = buildSchema('type Query { a: Int, b: Int }');
const cache = () => new DocumentCache(schema, { limitRules: [], maxTokens: 1000, introspection: true });

describe('DocumentCache', () => {
  it('keeps a valid text parsed once, and its request errors by text', () => {
    const c = cache();
    const first = c.checked('{ a }');
    expect(c.checked('{ a }')).toBe(first);
    expect(c.valid('{ a }')).toBe(true);
    const errors = c.checked('{ nope }') as GraphQLError[];
    expect(errors[0].message).toMatch(/Cannot query field "nope"/);
    expect(c.valid('{ nope }')).toBe(false);
  });

  it("gives a text in Apollo's key space neither Apollo's document nor a way to overwrite it (hostile)", async () => {
    const c = cache();
    const store = c.keyValueStore();
    const apollos = parse('{ b }');
    await store.set('abc123', apollos);
    const sent = '\u0000apollo:abc123';
    // The text fails to parse as itself, as any text with U+0000 outside a string does.
    const result = c.checked(sent) as GraphQLError[];
    expect(Array.isArray(result)).toBe(true);
    expect(result[0].message).toMatch(/Syntax Error/);
    expect(c.valid(sent)).toBe(false);
    // Apollo still finds its own document under its key.
    expect((await store.get('abc123')) as DocumentNode).toBe(apollos);
  });
});

describe('operationOf', () => {
  it('finds the operation a request names as getOperationAST does, kept per document', () => {
    const one = parse('query A { a }');
    const anonymous = parse('{ a }');
    const several = parse('query A { a } query B { b }');
    const cases: Array<[DocumentNode, string | null | undefined]> = [
      [one, undefined],
      [one, null],
      [one, ''],
      [one, 'A'],
      [one, 'B'],
      [anonymous, undefined],
      [anonymous, 'A'],
      [several, undefined],
      [several, 'A'],
      [several, 'B'],
      [several, 'C'],
    ];
    // Twice: the second round answers from what the first kept.
    for (let round = 0; round < 2; round++)
      for (const [document, name] of cases)
        expect(operationOf(document, name)).toBe(getOperationAST(document, name) ?? undefined);
  });
});
