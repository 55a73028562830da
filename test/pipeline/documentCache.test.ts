import { buildSchema, type DocumentNode, type GraphQLError, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DocumentCache } from '../../src/pipeline/documentCache.js';

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
