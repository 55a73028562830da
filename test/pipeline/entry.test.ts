import { GraphQLError } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationPipeline } from '../../src/pipeline/core.js';
import type { Operation, PipelineRule } from '../../src/pipeline/operation.js';
import { Shutdown } from '../../src/pipeline/rules/shutdown.js';
import { pipelineHarness, pipelineWithRules, type PipelineHarness } from '../support/pipeline.js';

/**
 * The pipeline's one entry (src/pipeline/core.ts, `execute`) pairs begin and finish itself: whatever a transport does
 * with the answer (returns a stream twice, never reads it, aborts it, reads it to its end), each operation finishes
 * exactly once, and one that never began finishes nothing.
 */
describe('the entry', () => {
  let h: PipelineHarness;
  let pipeline: OperationPipeline;
  const begun: Operation[] = [];
  const finished: Operation[] = [];
  const counting: PipelineRule = {
    name: 'counting',
    begin: (op) => void begun.push(op),
    finish: (op) => void finished.push(op),
  };
  const caller = (requestId: string) => ({ requestId, transport: 'in-process' as const });
  const TICKS = 'subscription { serverTime(intervalMs: 10, count: 3) }';

  beforeAll(async () => {
    h = await pipelineHarness();
    const shutdown = new Shutdown();
    pipeline = pipelineWithRules(h, [counting], shutdown);
  });
  afterAll(() => h.close());

  const finishes = (requestId: string) => finished.filter((op) => op.context.requestId === requestId).length;

  it('finishes a result, a refusal after it began, and nothing for a request that never began', async () => {
    expect((await pipeline.execute({ query: '{ upstreams { id } }' }, caller('one'))).kind).toBe('result');
    expect(finishes('one')).toBe(1);
    const refused = await pipeline.execute({ query: TICKS }, caller('refused'), {
      refuse: (type) => (type === 'subscription' ? new GraphQLError('no') : undefined),
    });
    expect(refused.kind).toBe('refused');
    expect(finishes('refused')).toBe(1);
    expect((await pipeline.execute({ query: '{ nope' }, caller('unparsed'))).kind).toBe('refused');
    expect(begun.some((op) => op.context.requestId === 'unparsed')).toBe(false);
  });

  it('finishes once whether admission waits or not, and rejects (never throws) when a stage fails, still finishing once', async () => {
    const shutdown = new Shutdown();
    const stages: PipelineRule = {
      name: 'stages',
      // Waits for requests named `wait-…`, decides at once for the others.
      admit: (op) => (op.context.requestId.startsWith('wait') ? Promise.resolve(undefined) : undefined),
      answered: (op) => {
        if (op.context.requestId.endsWith('bad-answer')) throw new Error('answered broke');
        return undefined;
      },
    };
    const staged = pipelineWithRules(h, [counting, stages], shutdown);
    for (const id of ['now', 'wait']) {
      expect((await staged.execute({ query: '{ upstreams { id } }' }, caller(id))).kind).toBe('result');
      expect(finishes(id)).toBe(1);
    }
    for (const id of ['now-bad-answer', 'wait-bad-answer']) {
      await expect(staged.execute({ query: '{ upstreams { id } }' }, caller(id))).rejects.toThrow('answered broke');
      expect(finishes(id)).toBe(1);
    }
    // A transport's own refusal that throws: a rejected answer, not a throw in the caller's frame.
    let answer: Promise<unknown> | undefined;
    expect(() => {
      answer = staged.execute({ query: '{ upstreams { id } }' }, caller('refuse-threw'), {
        refuse: () => {
          throw new Error('refuse broke');
        },
      });
    }).not.toThrow();
    await expect(answer).rejects.toThrow('refuse broke');
    expect(finishes('refuse-threw')).toBe(1);
  });

  it('finishes a stream read to its end once, however often it is returned afterwards', async () => {
    const answer = await pipeline.execute({ query: TICKS }, caller('read'));
    if (answer.kind !== 'stream') throw new Error(`expected a stream, got ${answer.kind}`);
    const events = [];
    for await (const event of answer.results) events.push(event);
    expect(events).toHaveLength(3);
    await answer.results.return();
    await answer.results.return();
    expect(finishes('read')).toBe(1);
  });

  it('finishes a stream returned twice before its end, or aborted before anyone read it, once', async () => {
    const answer = await pipeline.execute({ query: TICKS }, caller('returned'));
    if (answer.kind !== 'stream') throw new Error('expected a stream');
    await answer.results.next();
    await Promise.all([answer.results.return(), answer.results.return()]);
    expect(await answer.results.next()).toEqual({ value: undefined, done: true });
    expect(finishes('returned')).toBe(1);

    const gone = new AbortController();
    const lazy = await pipeline.execute({ query: TICKS }, caller('unread'), { signal: gone.signal, stream: true });
    if (lazy.kind !== 'stream') throw new Error('expected a stream');
    gone.abort();
    gone.abort();
    expect(finishes('unread')).toBe(1);
    expect(await lazy.results.next()).toEqual({ value: undefined, done: true });
    expect(finishes('unread')).toBe(1);
  });

  it('lets a transport that ends the stream itself finish it after the source is done, once', async () => {
    const answer = await pipeline.execute({ query: '{ upstreams { id } }' }, caller('held'), {
      stream: true,
      endedByReturn: true,
    });
    if (answer.kind !== 'stream') throw new Error('expected a stream');
    expect((await answer.results.next()).done).toBe(false);
    expect((await answer.results.next()).done).toBe(true);
    expect(finishes('held')).toBe(0);
    await answer.results.return();
    await answer.results.return();
    expect(finishes('held')).toBe(1);
  });

  it('pushes a stream to a consumer (consume): each result, then complete; one returned early is not told, and each finishes once', async () => {
    const consumer = () => {
      const got = { results: [] as unknown[], completed: 0 };
      return { got, next: (r: unknown) => void got.results.push(r), complete: () => void got.completed++ };
    };
    const query = consumer();
    const one = await pipeline.execute({ query: '{ upstreams { id } }' }, caller('pushed query'), {
      stream: true,
      endedByReturn: true,
    });
    if (one.kind !== 'stream') throw new Error('expected a stream');
    one.results.consume(query);
    await expect.poll(() => query.got.completed, { timeout: 10_000 }).toBe(1);
    expect(query.got.results).toHaveLength(1);
    expect(finishes('pushed query')).toBe(0);
    await one.results.return();
    expect(finishes('pushed query')).toBe(1);

    // A subscription whose results no transport shares: it rests on its event stream and is woken for each.
    const ticks = consumer();
    const sub = await pipeline.execute({ query: TICKS }, caller('pushed ticks'), {
      stream: true,
      endedByReturn: true,
      shared: () => false,
    });
    if (sub.kind !== 'stream') throw new Error('expected a stream');
    sub.results.consume(ticks);
    await expect.poll(() => ticks.got.completed, { timeout: 10_000 }).toBe(1);
    expect(ticks.got.results).toHaveLength(3);
    await sub.results.return();
    expect(finishes('pushed ticks')).toBe(1);

    const early = consumer();
    const slow = 'subscription { serverTime(intervalMs: 500, count: 3) }';
    const left = await pipeline.execute({ query: slow }, caller('pushed and left'), {
      stream: true,
      shared: () => false,
    });
    if (left.kind !== 'stream') throw new Error('expected a stream');
    left.results.consume(early);
    await expect.poll(() => early.got.results.length, { timeout: 10_000 }).toBe(1);
    await left.results.return();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(early.got).toEqual({ results: [expect.anything()], completed: 0 });
    expect(finishes('pushed and left')).toBe(1);
  });
});
