import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSchema } from '../../../src/schema/build.js';
import { coerceVariables, MAX_VARIABLES_DEPTH, variablesRefusal } from '../../../src/pipeline/rules/operationInputs.js';
import { getVariableValues, parse, type OperationDefinitionNode } from 'graphql';
import { pipelineHarness, type PipelineHarness } from '../../support/pipeline.js';

/** `{"v": [[…]]}` with `depth` levels in all, built without recursion. */
function nested(depth: number): Record<string, unknown> {
  let value: unknown = [];
  for (let i = 2; i < depth; i++) value = [value];
  return { v: value };
}

describe('variablesRefusal', () => {
  it(`lets variables nest ${MAX_VARIABLES_DEPTH} levels and refuses one more, without recursion at any depth`, () => {
    expect(variablesRefusal(nested(MAX_VARIABLES_DEPTH), 1 << 20)).toBeUndefined();
    expect(variablesRefusal(nested(MAX_VARIABLES_DEPTH + 1), 1 << 20)?.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      argument: 'variables',
      http: { status: 400 },
    });
    expect(variablesRefusal(nested(1_000_000), 1 << 20)?.message).toBe(
      'Variables nest deeper than 64 levels of objects and arrays: flatten them (a JSON argument may nest at most 32).',
    );
  });

  it('refuses variables larger than the limit as JSON, counting strings, keys and values', () => {
    expect(variablesRefusal({ text: 'x'.repeat(900) }, 1000)).toBeUndefined();
    expect(variablesRefusal({ text: 'x'.repeat(1000) }, 1000)?.message).toBe(
      'Variables are larger than 1000 bytes as JSON: send less in one operation.',
    );
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
    const viaVariable = await h.inProcess.execute({
      query: 'query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }',
      variables: { r: titles(4) },
    });
    expect(viaVariable.errors?.[0]).toMatchObject({
      extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'MAX_ENTITY_REPRESENTATIONS', max: 3, found: 4 },
    });
    expect(viaVariable.errors?.[0].message).toBe(
      '_entities carries 4 representations; MAX_ENTITY_REPRESENTATIONS allows 3 per operation: send them in batches of at most 3, or raise MAX_ENTITY_REPRESENTATIONS.',
    );
    const literal = `{ ... F a: _entities(representations: [{ __typename: "Title", imdbId: "tt0078346" }, { __typename: "Title", imdbId: "tt0078346" }]) { __typename } }
      fragment F on Query { b: _entities(representations: [{ __typename: "Title", imdbId: "tt0078346" }, { __typename: "Title", imdbId: "tt0078346" }]) { __typename } }`;
    expect((await h.inProcess.execute({ query: literal })).errors?.[0].extensions).toMatchObject({ found: 4 });
    expect(h.sandbox.record.list()).toEqual([]);
    const fits = await h.inProcess.execute({
      query: 'query ($r: [_Any!]!) { _entities(representations: $r) { ... on Title { title } } }',
      variables: { r: titles(3) },
    });
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
      expect(r.errors?.[0]).toMatchObject({
        message: `@stream(initialCount: ${n}) must be 0 or more: the number of items sent before the rest stream.`,
        extensions: { code: 'BAD_USER_INPUT', argument: 'n' },
      });
    }
    const byDefault = await h.inProcess.execute({
      query: 'query ($n: Int = -2) { searchTitles(query: "alien") { items @stream(initialCount: $n) { imdbId } } }',
    });
    expect(byDefault.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect((await h.inProcess.execute({ query, variables: { n: 1 } })).errors).toBeUndefined();
  });
});

describe('coerceVariables', () => {
  const operation = (text: string) => parse(text).definitions[0] as OperationDefinitionNode;

  it('coerces as execution would (defaults applied, undeclared left out) and refuses the first that does not, in graphql-js words, BAD_USER_INPUT with 400', async () => {
    const schema = await buildSchema();
    const op = operation(
      'query ($id: ID!, $plot: PlotLength = FULL, $n: Int) { title(imdbId: $id, plot: $plot) { title } }',
    );
    expect(coerceVariables(schema, op, { id: 7, extra: 'ignored' })).toEqual({ id: '7', plot: 'FULL' });
    const missing = coerceVariables(schema, op, {}) as Error & { extensions: unknown };
    expect(missing.message).toBe('Variable "$id" of required type "ID!" was not provided.');
    expect(missing.extensions).toEqual({ code: 'BAD_USER_INPUT', http: { status: 400 } });
    expect((coerceVariables(schema, op, { id: 'tt1', n: 'five', plot: 'NOPE' }) as Error).message).toMatch(
      /^Variable "\$plot" got invalid value "NOPE"; Value "NOPE" does not exist in "PlotLength" enum/,
    );
  });

  it('coerces scalars, custom scalars, enums and lists (by generated code, once per document) exactly as graphql-js does, and refuses in its words', async () => {
    const schema = await buildSchema();
    const op = operation(
      'query ($d: Date, $t: DateTime, $s: [ServiceHealthStatus!], $f: Float = 1.5, $b: Boolean!, $i: Int, $ids: [ID]) { __typename }',
    );
    const inputs: Array<Record<string, unknown>> = [
      { b: true },
      {
        b: false,
        d: '2026-11-28',
        t: '2026-11-28T08:00:00Z',
        s: ['serviceOperational'],
        f: 2,
        i: -3,
        ids: [1, 'x', null],
      },
      { b: true, s: 'serviceDegradation', ids: 7, d: null, f: null },
      { b: true, d: '2026-02-30' },
      { b: true, t: 'yesterday' },
      { b: true, s: ['NOPE'] },
      { b: true, i: 2 ** 31 },
      { b: true, i: 1.5 },
      { b: true, f: 'many' },
      { b: 'yes' },
      { b: null },
      { b: true, ids: [{}] },
    ];
    for (const input of inputs) {
      const expected = getVariableValues(schema, op.variableDefinitions!, input, { maxErrors: 1 });
      const got = coerceVariables(schema, op, input);
      if (expected.errors) expect((got as Error).message, JSON.stringify(input)).toBe(expected.errors[0].message);
      else expect(got, JSON.stringify(input)).toEqual(expected.coerced);
    }
  });

  it('stops at the first error: a list of many bad items costs one', async () => {
    const schema = await buildSchema();
    const op = operation('query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }');
    const refused = coerceVariables(schema, op, { r: Array.from({ length: 10_000 }, () => null) }) as Error;
    expect(refused.message).toBe(
      'Variable "$r" got invalid value null at "r[0]"; Expected non-nullable type "_Any!" not to be null.',
    );
  });
});

describe('variables that do not coerce, for every kind of operation', () => {
  let h: PipelineHarness;
  beforeAll(async () => {
    h = await pipelineHarness();
  });
  afterAll(() => h.close());

  it('a mutation and a subscription missing, null or mistyped variables are BAD_USER_INPUT before any rule reads an argument, nothing logged as failed and nothing sent upstream', async () => {
    h.sandbox.record.clear();
    const logged = h.logs.lines.length;
    const mutation = 'mutation ($id: ID!) { deleteChatDocument(id: $id) }';
    const subscription =
      'subscription ($input: ChatCompletionInput!) { chatCompletionStream(input: $input) { delta { content } } }';
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [mutation, {}, 'Variable "$id" of required type "ID!" was not provided.'],
      [mutation, { id: null }, 'Variable "$id" of non-null type "ID!" must not be null.'],
      [mutation, { id: { a: 1 } }, 'Variable "$id" got invalid value { a: 1 }; ID cannot represent value: { a: 1 }'],
      [subscription, {}, 'Variable "$input" of required type "ChatCompletionInput!" was not provided.'],
      [
        subscription,
        { input: { provider: 'deepseek', messages: [] } },
        'Variable "$input" got invalid value { provider: "deepseek", messages: [] }; Field "model" of required type "String!" was not provided.',
      ],
    ];
    for (const [query, variables, message] of cases) {
      const run = query.startsWith('subscription')
        ? h.inProcess.subscribe({ query, variables })
        : h.inProcess.execute({ query, variables });
      const result = (await run) as { errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };
      expect(result.errors?.[0]).toMatchObject({ message, extensions: { code: 'BAD_USER_INPUT' } });
    }
    expect(h.logs.lines.slice(logged).filter((l) => l.includes('rule failed'))).toEqual([]);
    expect(h.sandbox.record.list()).toEqual([]);
  });
});
