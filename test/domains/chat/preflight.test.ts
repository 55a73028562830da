import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SAFETY_MARGIN, estimatePromptTokens } from '../../../src/domains/chat/contextWindow.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { COMPLETION, user } from '../../support/chat.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ ARK_CONTEXT_WINDOWS: 'ep-20250101-custom=1000' });
});
afterAll(() => t?.close());
beforeEach(() => t.clearUpstreamRequests());

const complete = async (input: Record<string, unknown>) => (await t.query(COMPLETION, { input })).body;

describe('context-window preflight', () => {
  it('refuses a prompt over the window as BAD_USER_INPUT naming model, estimate and window, with no upstream request', async () => {
    const body = await complete({
      provider: 'moonshot',
      model: 'moonshot-v1-8k',
      messages: [user('word '.repeat(10_000))],
    });
    const error = body.errors![0];
    expect(error.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      provider: 'moonshot',
      model: 'moonshot-v1-8k',
      contextWindow: 8192,
      estimatedTokens: 10_004,
    });
    expect(error.message).toBe(
      "The prompt is about 10004 tokens, more than moonshot model moonshot-v1-8k's context window of 8192 tokens; shorten the messages or pick a model with a larger window.",
    );
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('counts maxTokens into the window', async () => {
    const body = await complete({
      provider: 'moonshot',
      model: 'moonshot-v1-8k',
      maxTokens: 8000,
      messages: [user('word '.repeat(1_000))],
    });
    expect(body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      estimatedTokens: 1_004,
      maxTokens: 8000,
      contextWindow: 8192,
    });
    expect(body.errors![0].message).toContain('plus maxTokens 8000');
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('refuses when any fallback target cannot fit, before the first is called', async () => {
    const body = await complete({
      provider: 'moonshot',
      model: 'moonshot-v1-128k',
      fallbacks: [{ provider: 'moonshot', model: 'moonshot-v1-8k' }],
      messages: [user('word '.repeat(10_000))],
    });
    expect(body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', model: 'moonshot-v1-8k' });
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('sends a borderline prompt: within the safety margin the provider decides', async () => {
    // 8,498 o200k tokens: over 8,192, but not once the 10 % margin is taken off; the sandbox counts it too long.
    const body = await complete({
      provider: 'moonshot',
      model: 'moonshot-v1-8k',
      messages: [user('word '.repeat(8_497))],
    });
    expect(body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', upstream: 'moonshot', status: 400 });
    expect(t.upstreamRequests('moonshot')).toHaveLength(1);
  });

  it('estimates Chinese and English text with a real tokenizer, not by characters', async () => {
    const request = (content: string) => ({ model: 'm', messages: [{ role: 'user' as const, content }] });
    expect(await estimatePromptTokens(request('Hello world'))).toBe(2 + 3);
    const chinese = await estimatePromptTokens(request('你好，今天天气怎么样？'));
    expect(chinese).toBeGreaterThan(3 + 4);
    expect(chinese).toBeLessThan(3 + 11);
    expect(SAFETY_MARGIN).toBe(0.1);
  });

  it('uses a window from <ID>_CONTEXT_WINDOWS for a raw Ark endpoint id, and skips models with no known window', async () => {
    const tooLong = { messages: [user('word '.repeat(2_000))] };
    const configured = await complete({ provider: 'ark', model: 'ep-20250101-custom', ...tooLong });
    expect(configured.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      model: 'ep-20250101-custom',
      contextWindow: 1000,
    });
    expect(t.upstreamRequests()).toHaveLength(0);
    // An endpoint id nobody gave a window for goes to the provider, which answers for itself.
    const unknown = await complete({ provider: 'ark', model: 'ep-20990101-missing', ...tooLong });
    expect(unknown.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      upstream: 'ark',
      upstreamCode: 'InvalidEndpointOrModel.NotFound',
    });
    expect(t.upstreamRequests('ark')).toHaveLength(1);
  });
});
