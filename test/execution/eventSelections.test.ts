import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  GraphQLScalarType,
  parse,
  subscribe,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLResolveInfo,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { compiledSubscribe } from '../../src/execution/compiled.js';
import { eventStream, type EventSink } from '../../src/execution/eventStream.js';

/** Every subscription gets its own source; `send` hands an event to all of them. */
function setup(typeName = 'Word') {
  const sinks = new Set<EventSink<object>>();
  const seen: { args: unknown[]; infos: GraphQLResolveInfo[]; parsed: number } = { args: [], infos: [], parsed: 0 };
  // A custom scalar that counts its parsing: how often the variables are coerced.
  const word = new GraphQLScalarType({
    name: typeName,
    parseValue: (value) => {
      seen.parsed++;
      if (typeof value !== 'string' || !/^[a-z]+$/.test(value)) throw new TypeError(`not a lower-case word: ${value}`);
      return { word: value };
    },
    serialize: (value) => (value as { word: string }).word,
  });
  const schema = makeExecutableSchema({
    typeDefs: `
      scalar ${typeName}
      enum Tone { LOUD QUIET }
      input Ask { words: [${typeName}!]!, tone: Tone = QUIET, repeat: Int = 1 }
      type Query { ok: Boolean }
      type Subscription { echoes(ask: Ask!): Echo! }
      type Echo { n: Int!, said: String!, tone: String!, shout(suffix: String): String!, extra: String }`,
    resolvers: {
      [typeName]: word,
      Tone: { LOUD: 'loud!', QUIET: 'quiet.' },
      Subscription: {
        echoes: {
          subscribe: () => eventStream<object>((sink) => void sinks.add(sink)),
          resolve: (event: { n: number }, args: unknown, _ctx: unknown, info: GraphQLResolveInfo) => {
            seen.args.push(args);
            seen.infos.push(info);
            return { n: event.n, args };
          },
        },
      },
      Echo: {
        said: ({ args }: { args: { ask: { words: { word: string }[]; repeat: number } } }) =>
          args.ask.words.map((w) => w.word.repeat(args.ask.repeat)).join(' '),
        tone: ({ args }: { args: { ask: { tone: string } } }) => args.ask.tone,
        shout: ({ n }: { n: number }, { suffix }: { suffix?: string }) => `${n}${suffix ?? '?'}`,
        extra: () => 'extra',
      },
    },
  });
  const send = (n: number) => {
    for (const sink of sinks) void sink.push({ n });
  };
  return { schema, seen, send, sinks };
}

const ECHOES = `subscription Echoes($ask: Ask!, $suffix: String = "!", $withExtra: Boolean!) {
  echoes(ask: $ask) { n said tone shout(suffix: $suffix) extra @include(if: $withExtra) }
}`;

async function firstEvents(
  run: (args: ExecutionArgs, coerced?: Record<string, unknown>) => ReturnType<typeof subscribe>,
  setupOf: ReturnType<typeof setup>,
  variableValues: Record<string, unknown>,
  events = 3,
  coerced?: Record<string, unknown>,
): Promise<ExecutionResult[] | ExecutionResult> {
  const args = { schema: setupOf.schema, document: parse(ECHOES), variableValues };
  // graphql-js's subscribe refuses a second argument.
  const stream = await (coerced ? run(args, coerced) : run(args));
  if (!(Symbol.asyncIterator in stream)) return JSON.parse(JSON.stringify(stream)) as ExecutionResult;
  const iterator = stream as AsyncGenerator<ExecutionResult>;
  const results: ExecutionResult[] = [];
  for (let n = 1; n <= events; n++) {
    const next = iterator.next();
    setupOf.send(n);
    results.push((await next).value as ExecutionResult);
  }
  await iterator.return(undefined);
  // As a transport sends them (graphql-jit's errors and graphql-js's differ only in fields JSON leaves out).
  return JSON.parse(JSON.stringify(results)) as ExecutionResult[];
}

describe('subscription variables coerced once', () => {
  const variables = { ask: { words: ['tea', 'time'], tone: 'LOUD', repeat: 2 }, withExtra: true };

  it('gives every event the same results as graphql-js, defaults, enums, custom scalars and @include included', async () => {
    const compiled = setup();
    const reference = setup();
    const got = await firstEvents(compiledSubscribe(compiled.schema), compiled, variables);
    const want = await firstEvents(subscribe, reference, variables);
    expect(got).toEqual(want);
    expect((got as ExecutionResult[])[2]).toEqual({
      data: { echoes: { n: 3, said: 'teatea timetime', tone: 'loud!', shout: '3!', extra: 'extra' } },
    });
    // The root field's resolver got the coerced arguments, as graphql-js gives them.
    expect(compiled.seen.args).toEqual(reference.seen.args);
    const without = await firstEvents(compiledSubscribe(compiled.schema), compiled, {
      ask: { words: ['tea'] },
      suffix: null,
      withExtra: false,
    });
    expect((without as ExecutionResult[])[0]).toEqual({
      data: { echoes: { n: 1, said: 'tea', tone: 'quiet.', shout: '1?' } },
    });
  });

  it('coerces the variables when the subscription starts, not again for each event', async () => {
    const compiled = setup();
    await firstEvents(compiledSubscribe(compiled.schema), compiled, variables, 1);
    const afterOne = compiled.seen.parsed;
    const later = setup();
    await firstEvents(compiledSubscribe(later.schema), later, variables, 20);
    // Two words, parsed by createSourceEventStream and once more for the per-event selection: however many events.
    expect(afterOne).toBe(4);
    expect(later.seen.parsed).toBe(afterOne);
    // Given them coerced already (the pipeline's operationInputs rule did), it parses none itself: neither to open
    // the source stream (sourceStream.ts) nor for an event.
    const given = setup();
    const coerced = {
      ask: { words: [{ word: 'tea' }, { word: 'time' }], tone: 'loud!', repeat: 2 },
      suffix: '!',
      withExtra: true,
    };
    const results = await firstEvents(compiledSubscribe(given.schema), given, variables, 20, coerced);
    expect(given.seen.parsed).toBe(0);
    expect((results as ExecutionResult[])[19]).toEqual({
      data: { echoes: { n: 20, said: 'teatea timetime', tone: 'loud!', shout: '20!', extra: 'extra' } },
    });
  });

  it('shows resolvers the schema and operation they were served, not the compiled stand-ins', async () => {
    const compiled = setup();
    await firstEvents(compiledSubscribe(compiled.schema), compiled, variables, 1);
    const info = compiled.seen.infos[0];
    expect(info.schema).toBe(compiled.schema);
    expect(info.schema.getType('GatewayPreCoercedVariable')).toBeUndefined();
    expect(info.operation.variableDefinitions?.map((d) => d.type.kind)).toEqual([
      'NonNullType',
      'NamedType',
      'NonNullType',
    ]);
    expect(info.variableValues.ask).toEqual({ words: [{ word: 'tea' }, { word: 'time' }], tone: 'loud!', repeat: 2 });
  });

  it('refuses bad variables as graphql-js does, before any event', async () => {
    for (const bad of [
      { ask: { words: ['Tea'] }, withExtra: true },
      { ask: { words: 'tea', tone: 'SHRILL' }, withExtra: true },
      { ask: { words: ['tea'], repeat: 2 ** 40 }, withExtra: true },
      { ask: { words: ['tea'] } },
      { ask: { words: ['tea'], extraField: 1 }, withExtra: true },
      { ask: null, withExtra: true },
    ]) {
      const compiled = setup();
      const reference = setup();
      const got = await firstEvents(compiledSubscribe(compiled.schema), compiled, bad);
      expect(got).toEqual(await firstEvents(subscribe, reference, bad));
      expect((got as ExecutionResult).errors?.length).toBeGreaterThan(0);
      expect(compiled.sinks.size).toBe(0);
    }
  });

  it('runs a schema that already has a type named like the stand-in scalar on graphql-js, unchanged', async () => {
    const compiled = setup('GatewayPreCoercedVariable');
    const reference = setup('GatewayPreCoercedVariable');
    const got = await firstEvents(compiledSubscribe(compiled.schema), compiled, variables);
    expect(got).toEqual(await firstEvents(subscribe, reference, variables));
  });
});
