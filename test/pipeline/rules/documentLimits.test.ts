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

  it('scans the nesting of a text the document cache does not hold as valid, and only its length otherwise', () => {
    const rule = useDocumentLimits({ limits: { ...DEFAULT_LIMITS, maxDocumentBytes: 2000 } });
    const deep = { query: `{ a(x: ${'['.repeat(300)}${']'.repeat(300)}) }` };
    const asked: string[] = [];
    const known = (valid: boolean) => ({ valid: (query: string) => (asked.push(query), valid) });
    expect(rule.prepare!(deep, known(false))).toMatchObject({
      extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'document nesting', max: 256 },
    });
    // A cached valid text was refused or passed when it was first prepared; its length is still the limit's.
    expect(rule.prepare!(deep, known(true))).toBe(deep);
    expect(asked).toEqual([deep.query, deep.query]);
    const long = { query: `{ a }${' '.repeat(2000)}` };
    expect(rule.prepare!(long, known(true))).toMatchObject({ extensions: { limit: 'GATEWAY_MAX_DOCUMENT_BYTES' } });
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

    it('refuses a document nesting too deep on every request, not only the first (it is never cached as valid)', async () => {
      const query = `{ upstreams(x: ${'['.repeat(300)}${']'.repeat(300)}) { id } }`;
      for (let i = 0; i < 2; i++) {
        const result = await h.inProcess.execute({ query });
        expect(result.errors?.[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'document nesting' });
      }
      expect(h.pipeline.documents.valid(query)).toBe(false);
      expect(h.pipeline.documents.valid('{ upstreams { id } }')).toBe(false);
      await h.inProcess.execute({ query: '{ upstreams { id } }' });
      expect(h.pipeline.documents.valid('{ upstreams { id } }')).toBe(true);
    });
  });
});
