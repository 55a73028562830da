import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyCheck } from '../../../src/pipeline/rules/apiKey.js';
import { pipelineHarness, type PipelineHarness } from '../../support/pipeline.js';

describe('apiKey rule', () => {
  it('lets everyone in without GATEWAY_API_KEYS, and only listed keys with them', () => {
    expect(createApiKeyCheck([])).toBeUndefined();
    const check = createApiKeyCheck(['key-one-1234567890', 'key-two-5678901234'])!;
    expect([
      check('key-one-1234567890'),
      check('key-two-5678901234'),
      check('key-one-123456789'),
      check(undefined),
      check(''),
    ]).toEqual([true, true, false, false, false]);
  });

  describe('at the in-process entry point', () => {
    let h: PipelineHarness;
    beforeAll(async () => {
      h = await pipelineHarness({ GATEWAY_API_KEYS: 'key-one-1234567890' });
    });
    afterAll(() => h.close());

    it('refuses a missing or wrong key with UNAUTHENTICATED and never repeats it', async () => {
      for (const apiKey of [undefined, 'wrong-key-9999']) {
        const result = await h.inProcess.execute({ query: '{ upstreams { id } }' }, { requestId: 'r1', apiKey });
        expect(result.errors?.[0].extensions?.code).toBe('UNAUTHENTICATED');
        expect(JSON.stringify(result)).not.toContain('wrong-key');
      }
      const ok = await h.inProcess.execute(
        { query: '{ upstreams { id } }' },
        { requestId: 'r2', apiKey: 'key-one-1234567890' },
      );
      expect(ok.errors).toBeUndefined();
    });
  });
});
