import { afterAll, beforeAll, expect, it } from 'vitest';
import { pipelineHarness, type PipelineHarness } from '../../support/pipeline.js';

let h: PipelineHarness;
beforeAll(async () => {
  h = await pipelineHarness();
});
afterAll(() => h.close());

async function all(stream: Awaited<ReturnType<PipelineHarness['inProcess']['subscribe']>>): Promise<number> {
  if (!(Symbol.asyncIterator in stream)) throw new Error(`not a stream: ${JSON.stringify(stream)}`);
  let n = 0;
  for await (const _ of stream) n++;
  return n;
}

it('lets a running stream finish within the grace, aborts one that outlives it, and refuses new operations meanwhile', async () => {
  const short = all(await h.inProcess.subscribe({ query: 'subscription { serverTime(intervalMs: 20, count: 5) }' }));
  const long = all(await h.inProcess.subscribe({ query: 'subscription { serverTime(intervalMs: 20, count: 10000) }' }));
  const drained = h.pipeline.drain(400);
  const refused = await h.inProcess.execute({ query: '{ upstreams { id } }' });
  expect(refused.errors?.[0].extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR', reason: 'SHUTTING_DOWN' });
  expect(await short).toBe(5);
  const cut = await long;
  expect(cut).toBeGreaterThan(5);
  expect(cut).toBeLessThan(10000);
  expect(await drained).toEqual({ finished: 1, aborted: 1 });
});
