import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { perOperation } from '../../src/execution/perOperation.js';

describe('perOperation', () => {
  it('builds once per document and operation name, a null result included, and apart for another name or document', () => {
    const calls: Array<string | null> = [];
    const built = perOperation((_document, name) => {
      calls.push(name);
      return name === 'B' ? null : { name };
    });
    const document = parse('query A { __typename } query B { __typename }');
    const a = built(document, 'A');
    expect(built(document, 'A')).toBe(a);
    expect(built(document, 'B')).toBeNull();
    expect(built(document, 'B')).toBeNull();
    expect(built(document, null)).not.toBe(a);
    // The same text parsed again is another document: the caches that parse decide what is shared.
    expect(built(parse('query A { __typename } query B { __typename }'), 'A')).not.toBe(a);
    expect(calls).toEqual(['A', 'B', null, 'A']);
  });
});
