/** The titles domain's rule (src/domains/titles/quota.ts, `useTitlesQuota`), contributed through its Domain object. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pipelineHarness, type PipelineHarness } from '../../support/pipeline.js';

let h: PipelineHarness;
beforeAll(async () => {
  h = await pipelineHarness({ OMDB_DAILY_QUOTA: '2' });
});
afterAll(() => h.close());

it('refuses at its OMDb fields, before any request, a query that could cross the quota; other fields answer', async () => {
  const result = await h.inProcess.execute({
    query:
      '{ upstreams { id } a: title(imdbId: "tt0078346") { title } b: title(imdbId: "tt0372784") { title } c: title(imdbId: "tt0468569") { title } }',
  });
  expect((result.data as { upstreams: unknown[] }).upstreams.length).toBeGreaterThan(0);
  expect(result.errors?.map((e) => e.path?.[0])).toEqual(['a', 'b', 'c']);
  expect(result.errors?.[0]).toMatchObject({ extensions: { code: 'UPSTREAM_QUOTA_EXHAUSTED', upstream: 'omdb' } });
  expect(result.errors?.[0].message).toContain('2 remain today and this operation can need 3');
  expect(h.sandbox.record.list()).toEqual([]);
});

it('runs one that fits, and reads no quota for an operation without OMDb fields', async () => {
  expect(
    (
      await h.inProcess.execute({
        query: '{ a: title(imdbId: "tt0078346") { title } b: title(imdbId: "tt0078346") { year } }',
      })
    ).errors,
  ).toBeUndefined();
  expect(h.sandbox.record.list()).toHaveLength(1);
  expect((await h.inProcess.execute({ query: '{ upstreams { id } }' })).errors).toBeUndefined();
});
