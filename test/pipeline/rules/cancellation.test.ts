import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayServices } from '../../../src/context/services.js';
import { createContext } from '../../../src/context/request.js';
import type { Operation } from '../../../src/pipeline/operation.js';
import { useCancellation } from '../../../src/pipeline/rules/cancellation.js';
import { pipelineHarness, type PipelineHarness } from '../../support/pipeline.js';

let h: PipelineHarness;
beforeAll(async () => {
  h = await pipelineHarness({}, { chatTokenDelayMs: 30 });
});
afterAll(() => h.close());

const STREAM =
  'subscription($input: ChatCompletionInput!) { chatCompletionStream(input: $input) { delta { content } } }';
const input = {
  provider: 'glm',
  model: 'glm-4-flash',
  messages: [{ role: 'USER', content: 'What does a GraphQL gateway do?' }],
};

it("a caller's abort ends the stream and aborts its upstream request", async () => {
  const controller = new AbortController();
  const stream = await h.inProcess.subscribe(
    { query: STREAM, variables: { input } },
    { requestId: 'c1', signal: controller.signal },
  );
  if (!(Symbol.asyncIterator in stream)) throw new Error(`not a stream: ${JSON.stringify(stream)}`);
  let events = 0;
  for await (const _event of stream) {
    if (++events === 1) controller.abort();
  }
  expect(events).toBeLessThan(5);
  const until = Date.now() + 3000;
  while (h.sandbox.record.list()[0]?.aborted !== true && Date.now() < until)
    await new Promise((r) => setTimeout(r, 20));
  expect(h.sandbox.record.list().map((r) => [r.upstream, r.aborted])).toEqual([['glm', true]]);
});

describe("the operation's end", () => {
  const ended = (type: string, listen?: () => void) => {
    const controller = new AbortController();
    const context = createContext({} as GatewayServices, { requestId: 'end', signal: controller.signal });
    if (listen) controller.signal.addEventListener('abort', listen);
    useCancellation().finish!({ type, controller, context } as unknown as Operation);
    return { controller, context };
  };

  it('aborts at once what still listens (an upstream request in flight)', () => {
    let heard = 0;
    const { controller } = ended('query', () => heard++);
    expect([controller.signal.aborted, heard]).toEqual([true, 1]);
    expect((controller.signal.reason as DOMException).name).toBe('AbortError');
  });

  it('dispatches nothing when nobody listens, yet whoever reads the signal afterwards finds it aborted', () => {
    const { controller, context } = ended('query');
    expect(controller.signal.aborted).toBe(false);
    expect(context.signal.aborted).toBe(true);
    expect(controller.signal.aborted).toBe(true);
    expect((context.signal.reason as DOMException).message).toBe('The operation finished.');
  });

  it("aborts a subscription's signal at its end whether or not anything listens", () => {
    expect(ended('subscription').controller.signal.aborted).toBe(true);
  });

  it('aborts a signal its context does not own (a transport signal chained elsewhere)', () => {
    const controller = new AbortController();
    const context = createContext({} as GatewayServices, { requestId: 'other', signal: new AbortController().signal });
    useCancellation().finish!({ type: 'query', controller, context } as unknown as Operation);
    expect(controller.signal.aborted).toBe(true);
  });
});
