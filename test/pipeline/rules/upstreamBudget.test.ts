import { afterAll, beforeAll, expect, it } from 'vitest';
import { pipelineHarness, type PipelineHarness } from '../../support/pipeline.js';

let h: PipelineHarness;
beforeAll(async () => {
  h = await pipelineHarness({ GATEWAY_MAX_UPSTREAM_REQUESTS: '2' });
});
afterAll(() => h.close());

const lookups = (ids: string[]) => `{ ${ids.map((id, i) => `t${i}: title(imdbId: "${id}") { title }`).join(' ')} }`;

it('refuses, before any request, an operation whose estimate for one upstream exceeds the budget', async () => {
  const result = await h.inProcess.execute({ query: lookups(['tt0078346', 'tt0372784', 'tt0468569']) });
  expect(result.errors?.[0].extensions).toMatchObject({
    code: 'QUERY_TOO_COMPLEX',
    limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS',
    max: 2,
    found: 3,
    upstream: 'omdb',
  });
  expect(result.errors?.[0].extensions).not.toHaveProperty('http');
  expect(h.sandbox.record.list()).toEqual([]);
});

it('runs an operation within the budget with exactly its requests', async () => {
  const result = await h.inProcess.execute({ query: lookups(['tt0078346', 'tt0372784']) });
  expect(result.errors).toBeUndefined();
  expect(h.sandbox.record.list().map((r) => r.upstream)).toEqual(['omdb', 'omdb']);
});
