import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useDocumentLimits } from '../../../src/pipeline/rules/documentLimits.js';
import { DEFAULT_LIMITS } from '../../../src/config/limits.js';
import { pipelineHarness, type PipelineHarness } from '../../support/pipeline.js';

describe('documentLimits rule', () => {
  it('refuses a document longer than GATEWAY_MAX_DOCUMENT_BYTES before parsing, naming limit and size', () => {
    const rule = useDocumentLimits({ limits: { ...DEFAULT_LIMITS, maxDocumentBytes: 10 } });
    const refused = rule.prepare!({ query: '{ upstreams { id } }' });
    expect(refused).toMatchObject({
      extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'GATEWAY_MAX_DOCUMENT_BYTES', max: 10, found: 20 },
    });
    const payload = { query: '{ a }' };
    expect(rule.prepare!(payload)).toBe(payload);
  });

  describe('through the pipeline', () => {
    let h: PipelineHarness;
    beforeAll(async () => {
      h = await pipelineHarness({ GATEWAY_MAX_DEPTH: '2' });
    });
    afterAll(() => h.close());

    it('refuses an operation deeper than GATEWAY_MAX_DEPTH with no upstream request', async () => {
      const result = await h.inProcess.execute({
        query: '{ title(imdbId: "tt0078346") { series { series { title } } } }',
      });
      expect(result.errors?.[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'GATEWAY_MAX_DEPTH' });
      expect(h.sandbox.record.list()).toEqual([]);
    });
  });
});
