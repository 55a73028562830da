import { afterAll, beforeAll, expect, it } from 'vitest';
import { capClientString, MAX_CLIENT_STRING } from '../../../src/pipeline/rules/operationLog.js';
import { pipelineHarness, type PipelineHarness } from '../../support/pipeline.js';

let h: PipelineHarness;
beforeAll(async () => {
  h = await pipelineHarness();
});
afterAll(() => h.close());

it('caps client-chosen strings, saying how long they were', () => {
  expect(capClientString('short')).toBe('short');
  const capped = capClientString('x'.repeat(1_000_000));
  expect(capped.length).toBeLessThan(MAX_CLIENT_STRING + 30);
  expect(capped).toContain('(1000000 chars)');
});

it('writes one operation line with outcome and codes, its name and request id capped, and counts it', async () => {
  const name = `N${'x'.repeat(5000)}`;
  await h.inProcess.execute({ query: `query ${name} { upstreams { id } }` }, { requestId: `r-${'y'.repeat(5000)}` });
  await h.inProcess.execute({ query: '{ nope }' }, { requestId: 'r2' });
  const lines = h.logs.json().filter((l) => l.msg === 'operation');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ type: 'query', outcome: 'ok', transport: 'in-process' });
  expect(JSON.stringify(lines[0]).length).toBeLessThan(1000);
  const metrics = await h.services.metrics.registry.metrics();
  expect(metrics).toContain('name="other",outcome="ok"');
});
