import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_VARIABLES_DEPTH, variablesRefusal } from '../../src/pipeline/rules/operationInputs.js';
import { pipelineHarness, type PipelineHarness } from './support.js';

/** `{"v": [[…]]}` with `depth` levels in all, built without recursion. */
function nested(depth: number): Record<string, unknown> {
  let value: unknown = [];
  for (let i = 2; i < depth; i++) value = [value];
  return { v: value };
}

describe('variablesRefusal', () => {
  it(`lets variables nest ${MAX_VARIABLES_DEPTH} levels and refuses one more, without recursion at any depth`, () => {
    expect(variablesRefusal(nested(MAX_VARIABLES_DEPTH), 1 << 20)).toBeUndefined();
    expect(variablesRefusal(nested(MAX_VARIABLES_DEPTH + 1), 1 << 20)?.extensions).toEqual({ code: 'BAD_USER_INPUT', argument: 'variables', http: { status: 400 } });
    expect(variablesRefusal(nested(1_000_000), 1 << 20)?.message).toBe('Variables nest deeper than 64 levels of objects and arrays: flatten them (a JSON argument may nest at most 32).');
  });

  it('refuses variables larger than the limit as JSON, counting strings, keys and values', () => {
    expect(variablesRefusal({ text: 'x'.repeat(900) }, 1000)).toBeUndefined();
    expect(variablesRefusal({ text: 'x'.repeat(1000) }, 1000)?.message).toBe('Variables are larger than 1000 bytes as JSON: send less in one operation.');
    expect(variablesRefusal({ list: new Array(200).fill(0) }, 1000)).toBeDefined();
  });
});

describe('the operationInputs rule', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await pipelineHarness({ MAX_ENTITY_REPRESENTATIONS: '3', GATEWAY_WS_MAX_MESSAGE_BYTES: '2000' });
  });
  afterAll(() => h.close());

  const titles = (n: number) => Array.from({ length: n }, () => ({ __typename: 'Title', imdbId: 'tt0078346' }));

  it('counts _entities representations in a variable, in a literal and through fragments, all fields together, before any upstream request', async () => {
    h.sandbox.record.clear();
    const viaVariable = await h.inProcess.execute({ query: 'query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }', variables: { r: titles(4) } });
    expect(viaVariable.errors?.[0]).toMatchObject({ extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'MAX_ENTITY_REPRESENTATIONS', max: 3, found: 4 } });
    expect(viaVariable.errors?.[0].message).toBe('_entities carries 4 representations; MAX_ENTITY_REPRESENTATIONS allows 3 per operation: send them in batches of at most 3, or raise MAX_ENTITY_REPRESENTATIONS.');
    const literal = `{ ... F a: _entities(representations: [{ __typename: "Title", imdbId: "tt0078346" }, { __typename: "Title", imdbId: "tt0078346" }]) { __typename } }
      fragment F on Query { b: _entities(representations: [{ __typename: "Title", imdbId: "tt0078346" }, { __typename: "Title", imdbId: "tt0078346" }]) { __typename } }`;
    expect((await h.inProcess.execute({ query: literal })).errors?.[0].extensions).toMatchObject({ found: 4 });
    expect(h.sandbox.record.list()).toEqual([]);
    const fits = await h.inProcess.execute({ query: 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Title { title } } }', variables: { r: titles(3) } });
    expect(fits.errors).toBeUndefined();
  });

  it('refuses variables past GATEWAY_WS_MAX_MESSAGE_BYTES, the largest operation a transport takes', async () => {
    const r = await h.inProcess.execute({ query: '{ upstreams { id } }', variables: { unused: 'x'.repeat(3000) } });
    expect(r.errors?.[0].extensions).toEqual({ code: 'BAD_USER_INPUT', argument: 'variables' });
  });

  it('refuses @stream(initialCount:) given a negative or null variable, or such a default', async () => {
    const query = 'query ($n: Int) { searchTitles(query: "alien") { items @stream(initialCount: $n) { imdbId } } }';
    for (const n of [-1, null]) {
      const r = await h.inProcess.execute({ query, variables: { n } });
      expect(r.errors?.[0]).toMatchObject({ message: `@stream(initialCount: ${n}) must be 0 or more: the number of items sent before the rest stream.`, extensions: { code: 'BAD_USER_INPUT', argument: 'n' } });
    }
    const byDefault = await h.inProcess.execute({ query: 'query ($n: Int = -2) { searchTitles(query: "alien") { items @stream(initialCount: $n) { imdbId } } }' });
    expect(byDefault.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect((await h.inProcess.execute({ query, variables: { n: 1 } })).errors).toBeUndefined();
  });
});
