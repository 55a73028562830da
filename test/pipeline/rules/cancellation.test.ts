import { afterAll, beforeAll, expect, it } from 'vitest';
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
