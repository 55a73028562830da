import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  createSourceEventStream,
  getVariableValues,
  parse,
  type ExecutionArgs,
  type GraphQLResolveInfo,
  type OperationDefinitionNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { sourceStream } from '../../src/execution/sourceStream.js';

/** A subscription root whose subscribe resolver records what it was given, and answers as `answer` says. */
function setup(answer: (args: Record<string, unknown>) => unknown = () => (async function* () {})()) {
  const seen: { args: Record<string, unknown>[]; infos: GraphQLResolveInfo[] } = { args: [], infos: [] };
  const schema = makeExecutableSchema({
    typeDefs: `
      input Ask { words: [String!]!, repeat: Int = 1 }
      type Query { ok: Boolean }
      type Subscription { echoes(ask: Ask!, loud: Boolean = false): String, plain: String }`,
    resolvers: {
      Subscription: {
        echoes: {
          subscribe: (_root: unknown, args: Record<string, unknown>, _ctx: unknown, info: GraphQLResolveInfo) => {
            seen.args.push(args);
            seen.infos.push(info);
            return answer(args);
          },
        },
      },
    },
  });
  return { schema, seen };
}

/** Both openings of one subscription: graphql-js's, and sourceStream's with graphql-js's own coercion of the variables. */
async function both(query: string, variableValues: Record<string, unknown>, answer?: Parameters<typeof setup>[0]) {
  // One schema for both: its type objects are in `info`.
  const { schema, seen } = setup(answer);
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === 'OperationDefinition') as OperationDefinitionNode;
  const { coerced } = getVariableValues(schema, operation.variableDefinitions ?? [], variableValues);
  const args: ExecutionArgs = {
    schema,
    document,
    variableValues,
    contextValue: { who: 'ctx' },
    rootValue: { root: true },
  };
  const settle = (p: Promise<unknown>) =>
    p.then(
      (value) => ({ value: Symbol.asyncIterator in (value as object) ? 'stream' : JSON.parse(JSON.stringify(value)) }),
      (error: Error) => ({ thrown: error.message }),
    );
  return {
    ours: await settle(sourceStream(args, coerced!)),
    theirs: await settle(createSourceEventStream(args)),
    /** What the resolver got: sourceStream's call first, then graphql-js's. */
    seen,
  };
}

const ECHOES = `fragment E on Subscription { said: echoes(ask: $ask, loud: true) }
subscription Echoes($ask: Ask!) { ...E }`;

describe('sourceStream: a subscription opened with variables coerced once', () => {
  it('gives the subscribe resolver the arguments and info graphql-js gives it, fragments and literals included', async () => {
    const { ours, theirs, seen } = await both(ECHOES, { ask: { words: ['tea'] } });
    expect(ours).toEqual({ value: 'stream' });
    expect(theirs).toEqual(ours);
    expect(seen.args).toEqual([
      { ask: { words: ['tea'], repeat: 1 }, loud: true },
      { ask: { words: ['tea'], repeat: 1 }, loud: true },
    ]);
    const pick = (info: GraphQLResolveInfo) => ({
      ...info,
      schema: undefined,
      path: [info.path.key, info.path.typename, info.path.prev],
    });
    expect(pick(seen.infos[0])).toEqual(pick(seen.infos[1]));
    expect(seen.infos[0].schema).toBe(seen.infos[1].schema);
    expect(seen.infos[0].fieldName).toBe('echoes');
    expect(seen.infos[0].path.key).toBe('said');
  });

  it('takes the values it is given as they are: no second coercion', async () => {
    const { schema, seen } = setup();
    const coerced = { ask: { words: ['as given'], repeat: 7 } };
    await sourceStream({ schema, document: parse(ECHOES), variableValues: { ask: { words: ['raw'] } } }, coerced);
    expect(seen.args[0].ask).toBe(coerced.ask);
    expect(seen.infos[0].variableValues).toBe(coerced);
  });

  it('reports a failing resolver as graphql-js does: one located error, the path and the message', async () => {
    for (const answer of [
      () => {
        throw new Error('upstream said no');
      },
      () => Promise.reject(new Error('later no')),
      () => new Error('returned, not thrown'),
    ]) {
      const { ours, theirs } = await both(ECHOES, { ask: { words: ['tea'] } }, answer);
      expect(ours).toEqual(theirs);
      expect((ours as { value: { errors: { path: string[] }[] } }).value.errors[0].path).toEqual(['said']);
    }
  });

  it('throws as graphql-js does when the resolver returns no async iterable', async () => {
    const { ours, theirs } = await both(ECHOES, { ask: { words: ['tea'] } }, () => ({ not: 'a stream' }));
    expect(ours).toEqual(theirs);
    expect(ours).toEqual({ thrown: expect.stringContaining('Subscription field must return Async Iterable') });
  });

  it('falls back to the root value for a field without a subscribe resolver, as graphql-js does', async () => {
    const { ours, theirs } = await both('subscription { plain }', {});
    expect(ours).toEqual(theirs);
  });

  it('opens one document again with other variables as graphql-js would: its plan is kept, its @skip/@include read anew', async () => {
    const { schema, seen } = setup();
    const kept = parse(ECHOES);
    for (const words of [['one'], ['two']]) {
      const coerced = { ask: { words, repeat: 1 } };
      await sourceStream({ schema, document: kept, variableValues: coerced }, coerced);
    }
    expect(seen.args.map((a) => a.ask)).toEqual([
      { words: ['one'], repeat: 1 },
      { words: ['two'], repeat: 1 },
    ]);
    expect(seen.infos[0].variableValues).not.toBe(seen.infos[1].variableValues);
    // The plan is the document's: the second start found the first one's root field nodes, not new ones.
    expect(seen.infos[1].fieldNodes).toBe(seen.infos[0].fieldNodes);
    // Which root field runs depends on $first: the same document, each time as its variables say.
    const skipping = parse(`subscription ($first: Boolean!, $ask: Ask!) {
      first: echoes(ask: $ask) @include(if: $first)
      second: echoes(ask: $ask, loud: true) @skip(if: $first)
    }`);
    const names: string[] = [];
    for (const first of [true, false, true]) {
      const coerced = { first, ask: { words: ['w'], repeat: 1 } };
      await sourceStream({ schema, document: skipping, variableValues: coerced }, coerced);
      names.push(seen.infos.at(-1)!.path.key as string);
    }
    expect(names).toEqual(['first', 'second', 'first']);
  });
});
