import { makeExecutableSchema } from '@graphql-tools/schema';
import { parse, type DocumentNode, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { compiledSubscribe } from '../../src/execution/compiled.js';
import { eventStream, type EventSink } from '../../src/execution/eventStream.js';
import { sharedResultJson, shareEvent } from '../../src/execution/sharedEvents.js';

interface Ctx {
  caller: string;
}

/** A source that hands every subscriber the events it is given, as one object each (as the live feed does). */
function broadcaster() {
  const sinks = new Set<EventSink<object>>();
  return {
    subscribe: () => eventStream<object>((sink) => void sinks.add(sink)),
    send: (event: object) => {
      for (const sink of sinks) void sink.push(event);
    },
    get subscribers() {
      return sinks.size;
    },
  };
}

function setup() {
  const source = broadcaster();
  const calls: string[] = [];
  const schema = makeExecutableSchema({
    typeDefs: `
      type Query { ok: Boolean }
      type Subscription { ticks: Tick }
      type Tick { n: Int, caller: String, label(prefix: String): String, broken: String }`,
    resolvers: {
      Subscription: { ticks: { subscribe: () => source.subscribe(), resolve: (event: { n: number }) => event } },
      Tick: {
        // Whose context the selection ran in: a subscriber's, or the one the source gave with a shared event.
        caller: (_tick: unknown, _args: unknown, ctx: Ctx) => {
          calls.push(ctx.caller);
          return ctx.caller;
        },
        label: (tick: { n: number }, { prefix }: { prefix?: string }) => `${prefix ?? ''}${tick.n}`,
        broken: () => {
          throw new Error('no value');
        },
      },
    },
  });
  const subscribe = compiledSubscribe(schema);
  // As the pipeline's document cache does: one DocumentNode per query text, compiled once.
  const documents = new Map<string, DocumentNode>();
  const open = async (query: string, caller: string, variableValues?: Record<string, unknown>) => {
    let document = documents.get(query);
    if (!document) documents.set(query, (document = parse(query)));
    const stream = await subscribe({ schema, document, contextValue: { caller }, variableValues });
    if (!(Symbol.asyncIterator in stream)) throw new Error(JSON.stringify(stream));
    return stream as AsyncGenerator<ExecutionResult>;
  };
  return { source, calls, open };
}

const TICKS = 'subscription ($prefix: String) { ticks { n caller label(prefix: $prefix) } }';
const started = async (source: { subscribers: number }, count: number) => {
  while (source.subscribers < count) await new Promise((r) => setTimeout(r, 1));
};

describe('shared subscription events', () => {
  it('executes a shared event once for every subscriber of the same document and variables, in the context the source gave, and serialises that result once', async () => {
    const { source, calls, open } = setup();
    const [alice, bob] = await Promise.all([
      open(TICKS, 'alice', { prefix: '#' }),
      open(TICKS, 'bob', { prefix: '#' }),
    ]);
    await started(source, 2);
    source.send(shareEvent({ n: 1 }, { caller: 'source' }));
    const [a, b] = await Promise.all([alice.next(), bob.next()]);
    // One result object for both, made in the source's context: neither subscriber's context reached it.
    expect(a.value).toBe(b.value);
    expect(a.value).toEqual({ data: { ticks: { n: 1, caller: 'source', label: '#1' } } });
    expect(calls).toEqual(['source']);
    const json = sharedResultJson(a.value as ExecutionResult);
    expect(json).toBe(JSON.stringify(a.value));
    expect(sharedResultJson(b.value as ExecutionResult)).toBe(json);
  });

  it('executes once per distinct document or variables, never sharing one subscriber group’s result with another', async () => {
    const { source, calls, open } = setup();
    const subs = await Promise.all([
      open(TICKS, 'alice', { prefix: '#' }),
      open(TICKS, 'bob', { prefix: 'n=' }),
      open('subscription { ticks { n } }', 'carol'),
    ]);
    await started(source, 3);
    source.send(shareEvent({ n: 7 }, { caller: 'source' }));
    const results = (await Promise.all(subs.map((s) => s.next()))).map((r) => r.value);
    expect(results).toEqual([
      { data: { ticks: { n: 7, caller: 'source', label: '#7' } } },
      { data: { ticks: { n: 7, caller: 'source', label: 'n=7' } } },
      { data: { ticks: { n: 7 } } },
    ]);
    expect(calls).toEqual(['source', 'source']);
  });

  it('keeps the sharing on the event itself: a copy of a shared event runs per subscriber, as an event never shared does', async () => {
    const { source, calls, open } = setup();
    const [alice, bob] = await Promise.all([open(TICKS, 'alice'), open(TICKS, 'bob')]);
    await started(source, 2);
    const event = shareEvent({ n: 4 }, { caller: 'source' });
    // Not enumerable: a spread (or the event's JSON) does not carry its executions.
    expect(Object.keys(event)).toEqual(['n']);
    source.send({ ...event });
    const [a, b] = await Promise.all([alice.next(), bob.next()]);
    expect(a.value).not.toBe(b.value);
    expect(calls.sort()).toEqual(['alice', 'bob']);
  });

  it('runs an event the source did not share once per subscriber, each in its own context, and leaves its serialisation to the transport', async () => {
    const { source, calls, open } = setup();
    const [alice, bob] = await Promise.all([open(TICKS, 'alice'), open(TICKS, 'bob')]);
    await started(source, 2);
    source.send({ n: 2 });
    const [a, b] = await Promise.all([alice.next(), bob.next()]);
    expect(a.value).toEqual({ data: { ticks: { n: 2, caller: 'alice', label: '2' } } });
    expect(b.value).toEqual({ data: { ticks: { n: 2, caller: 'bob', label: '2' } } });
    expect(calls.sort()).toEqual(['alice', 'bob']);
    expect(sharedResultJson(a.value as ExecutionResult)).toBeUndefined();
  });

  it('shares a result with errors but gives it no shared text: each operation formats its errors itself', async () => {
    const { source, open } = setup();
    const [alice, bob] = await Promise.all([
      open('subscription { ticks { n broken } }', 'alice'),
      open('subscription { ticks { n broken } }', 'bob'),
    ]);
    await started(source, 2);
    source.send(shareEvent({ n: 3 }, { caller: 'source' }));
    const [a, b] = await Promise.all([alice.next(), bob.next()]);
    expect(a.value).toBe(b.value);
    expect((a.value as ExecutionResult).errors?.map((e) => e.message)).toEqual(['no value']);
    expect(sharedResultJson(a.value as ExecutionResult)).toBeUndefined();
  });
});
