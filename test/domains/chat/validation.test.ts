import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { wsClient } from '../../support/ws.js';
import { COMPLETION, WEATHER_TOOL, streamAll, user } from '../../support/chat.js';

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({ DEEPSEEK_RPM: '2', CHAT_RATE_LIMIT_WAIT_MS: '100' }, { chatTokenDelayMs: 1 });
});
afterAll(() => t.close());
beforeEach(() => t.clearUpstreamRequests());

const base = { provider: 'glm', model: 'glm-4-flash', messages: [user('Hi')] };

describe('bad input is refused with BAD_USER_INPUT before any upstream call', () => {
  it.each([
    [
      'an unknown provider, listing the known ones',
      { provider: 'openai' },
      /Unknown chat provider "openai"; use one of glm, ark, deepseek, moonshot\./,
    ],
    [
      'a model the provider does not offer, listing its models',
      { model: 'gpt-4o' },
      /Provider glm has no model "gpt-4o"; use one of glm-5\.3, glm-5\.3-flash, glm-5\.2, glm-5\.1, glm-5, glm-4\.7, .*glm-4v-plus\./,
    ],
    [
      'an Ark name that is neither configured nor an endpoint id',
      { provider: 'ark', model: 'doubao-max' },
      /Provider ark has no model "doubao-max"; use one of doubao-pro, doubao-lite, doubao-vision, doubao-seed-1-6-251015, doubao-seed-2-0-lite-260428, .*doubao-seed-2-0-code-preview-260215 \(or an inference endpoint id ep-…\)/,
    ],
    [
      'a retired DeepSeek model, naming its successor',
      { provider: 'deepseek', model: 'deepseek-chat' },
      /deepseek retired model "deepseek-chat" on 2026-07-24; use deepseek-flash instead, with reasoning: \{enabled: false\} for the same behaviour\./,
    ],
    [
      'a retired Kimi model, naming its successor',
      { provider: 'moonshot', model: 'kimi-latest' },
      /moonshot retired model "kimi-latest" on 2026; use kimi-k3 instead, which always reasons \(leave reasoning\.enabled out, and use toolChoice AUTO\)\./,
    ],
    [
      'reasoning on a model that never reasons',
      { reasoning: { enabled: true } },
      /glm model glm-4-flash does not reason; leave reasoning out, or pick a model whose reasoning is not NONE/,
    ],
    [
      'reasoning off on a model that always reasons',
      { provider: 'moonshot', model: 'kimi-k3', reasoning: { enabled: false } },
      /moonshot model kimi-k3 always reasons; leave reasoning\.enabled out/,
    ],
    [
      'an effort with reasoning off',
      { provider: 'deepseek', model: 'deepseek-flash', reasoning: { enabled: false, effort: 'MAX' } },
      /reasoning\.effort MAX with reasoning\.enabled false/,
    ],
    [
      'an effort the model does not take',
      { provider: 'moonshot', model: 'kimi-k2.6', reasoning: { effort: 'HIGH' } },
      /moonshot model kimi-k2\.6 takes no reasoning effort/,
    ],
    [
      'a forced tool choice with reasoning asked for, on DeepSeek',
      {
        provider: 'deepseek',
        model: 'deepseek-flash',
        reasoning: { enabled: true },
        tools: [WEATHER_TOOL],
        toolChoice: { mode: 'REQUIRED' },
      },
      /deepseek refuses toolChoice REQUIRED while reasoning; set reasoning\.enabled false \(or leave reasoning out: the gateway then turns it off for this call\), or use toolChoice AUTO\./,
    ],
    [
      'a forced tool choice on a model that always reasons',
      { provider: 'moonshot', model: 'kimi-k3', tools: [WEATHER_TOOL], toolChoice: { name: 'get_weather' } },
      /moonshot refuses a toolChoice naming a tool while reasoning, and kimi-k3 always reasons/,
    ],
    [
      'a tool-call turn sent back without its reasoning while reasoning, on DeepSeek',
      {
        provider: 'deepseek',
        model: 'deepseek-flash',
        tools: [WEATHER_TOOL],
        messages: [
          user('Weather?'),
          { role: 'ASSISTANT', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{}' }] },
          { role: 'TOOL', toolCallId: 'c1', content: '{}' },
        ],
      },
      /input\.messages\[1\] is an ASSISTANT turn with toolCalls but no reasoningContent; deepseek needs each such turn sent back with the reasoningContent it came with while reasoning/,
    ],
    [
      'reasoningContent on a USER message',
      { messages: [{ role: 'USER', content: 'Hi', reasoningContent: 'hmm' }] },
      /messages\[0\] is a USER message with reasoningContent; only ASSISTANT turns carry the reasoning they came with\./,
    ],
    [
      'a temperature on a model that fixes it',
      { provider: 'moonshot', model: 'kimi-k2.6', temperature: 0.3 },
      /moonshot model kimi-k2\.6 fixes temperature itself and refuses any other; leave temperature out\./,
    ],
    [
      'JSON output on a model without it',
      { model: 'glm-4v-plus', responseFormat: { type: 'JSON_OBJECT' } },
      /glm model glm-4v-plus has no JSON output/,
    ],
    [
      'JSON object mode on DeepSeek without the word json',
      { provider: 'deepseek', model: 'deepseek-flash', responseFormat: { type: 'JSON_OBJECT' } },
      /deepseek's JSON output needs the word "json" in a SYSTEM or USER message/,
    ],
    [
      'a JSON schema that is not an object',
      { responseFormat: { type: 'JSON_SCHEMA', schema: [1, 2] } },
      /responseFormat JSON_SCHEMA needs schema: a JSON Schema object/,
    ],
    [
      'a schema with JSON_OBJECT',
      { responseFormat: { type: 'JSON_OBJECT', schema: { type: 'object' } } },
      /responseFormat JSON_OBJECT takes no schema; use type JSON_SCHEMA/,
    ],
    [
      'a DeepSeek user id with a space',
      { provider: 'deepseek', model: 'deepseek-flash', user: 'user 42' },
      /user "user 42" is not an id deepseek takes: letters, digits, _ and - only\./,
    ],
    ['empty messages', { messages: [] }, /messages is empty/],
    [
      'a tool message without toolCallId',
      { messages: [user('Hi'), { role: 'TOOL', content: '42' }] },
      /messages\[1\] is a TOOL message without toolCallId/,
    ],
    ['a message without content', { messages: [{ role: 'USER' }] }, /messages\[0\] has no content/],
    [
      'content and parts together',
      { messages: [{ role: 'USER', content: 'a', parts: [{ type: 'TEXT', text: 'b' }] }] },
      /has both content and parts/,
    ],
    [
      'an image for a model without vision',
      { messages: [{ role: 'USER', parts: [{ type: 'IMAGE_URL', imageUrl: 'https://example.com/cat.png' }] }] },
      /messages\[0\]\.parts\[0\] is an image, but glm model glm-4-flash does not accept images; pick a vision model\./,
    ],
    [
      'an image URL that is not one',
      { model: 'glm-4v-plus', messages: [{ role: 'USER', parts: [{ type: 'IMAGE_URL', imageUrl: 'ftp://x' }] }] },
      /imageUrl must be an http\(s\) URL/,
    ],
    ['temperature above GLM 1', { temperature: 1.5 }, /temperature 1\.5 is outside glm's range 0\.\.1\./],
    [
      'temperature above Moonshot 1',
      { provider: 'moonshot', model: 'moonshot-v1-8k', temperature: 1.2 },
      /temperature 1\.2 is outside moonshot's range 0\.\.1\./,
    ],
    [
      'temperature above DeepSeek 2',
      { provider: 'deepseek', model: 'deepseek-flash', temperature: 2.5 },
      /temperature 2\.5 is outside deepseek's range 0\.\.2\./,
    ],
    [
      'temperature below 0 on Ark',
      { provider: 'ark', model: 'doubao-pro', temperature: -0.1 },
      /temperature -0\.1 is outside ark's range 0\.\.2\./,
    ],
    ['topP above 1', { topP: 1.1 }, /topP 1\.1 is outside 0\.\.1\./],
    ['maxTokens below 1', { maxTokens: 0 }, /maxTokens 0 must be at least 1\./],
    [
      'maxTokens above the model limit',
      { provider: 'glm', model: 'glm-4-flash', maxTokens: 5000 },
      /maxTokens 5000 is above glm-4-flash's limit of 4095\./,
    ],
    ['two stop words on GLM', { stop: ['a', 'b'] }, /stop has 2 sequences; glm takes at most 1\./],
    [
      'a tool choice GLM does not know',
      { tools: [WEATHER_TOOL], toolChoice: { mode: 'REQUIRED' } },
      /toolChoice REQUIRED is not supported by glm; it takes NONE, AUTO\./,
    ],
    [
      'a tool choice naming a missing tool',
      { provider: 'deepseek', model: 'deepseek-flash', tools: [WEATHER_TOOL], toolChoice: { name: 'nope' } },
      /toolChoice names "nope", which is not one of tools \(get_weather\)/,
    ],
    [
      'a tool choice without tools',
      { provider: 'deepseek', model: 'deepseek-flash', toolChoice: { mode: 'AUTO' } },
      /toolChoice AUTO needs tools/,
    ],
    [
      'a tool with a bad name',
      { tools: [{ name: 'get weather' }] },
      /tools\[0\]\.name "get weather" must be 1\.\.64 letters/,
    ],
    ['a GLM user id under 6 characters', { user: 'bob' }, /user "bob" must be 6\.\.128 characters for glm\./],
  ])('%s', async (_what, patch, message) => {
    const input = { ...base, ...patch };
    const { body } = await t.query(COMPLETION, { input });
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
    expect(body.errors![0].message).toMatch(message);

    const client = wsClient(t.gateway.wsUrl);
    const streamed = await streamAll(client, input);
    await client.dispose();
    expect(streamed.chunks).toHaveLength(0);
    expect(streamed.errors![0].extensions.code).toBe('BAD_USER_INPUT');
    expect(t.upstreamRequests()).toHaveLength(0);
  });
});

describe('the client-side rate limiter', () => {
  it('refuses past DEEPSEEK_RPM with UPSTREAM_RATE_LIMITED saying when to retry, without calling upstream', async () => {
    const input = { provider: 'deepseek', model: 'deepseek-flash', messages: [user('Count me')] };
    const first = await t.query(COMPLETION, { input });
    const client = wsClient(t.gateway.wsUrl);
    const second = await streamAll(client, input);
    const third = await streamAll(client, input);
    await client.dispose();
    const fourth = await t.query(COMPLETION, { input });

    expect(first.body.errors).toBeUndefined();
    expect(second.errors).toBeUndefined();
    for (const errors of [third.errors!, fourth.body.errors!]) {
      expect(errors[0].extensions).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', upstream: 'deepseek' });
      expect(errors[0].extensions!.retryAfter).toBeGreaterThan(50);
      expect(errors[0].message).toMatch(
        /^The gateway sends at most 2 requests per minute to deepseek \(DEEPSEEK_RPM\) and has sent that many in the last minute; retry in \d+ s\.$/,
      );
    }
    expect(t.upstreamRequests('deepseek')).toHaveLength(2);
  });

  it("follows Kimi's X-RateLimit headers: once they say none is left, refuses until the reset without calling upstream", async () => {
    await fetch(`${t.sandbox.origin}/_sandbox/config`, {
      method: 'POST',
      body: JSON.stringify({ chatRpm: { moonshot: 2 } }),
    });
    try {
      const input = { provider: 'moonshot', model: 'moonshot-v1-8k', messages: [user('Count me')] };
      // The first answer says one is left, the second none: the third is not sent.
      for (const n of [1, 2]) expect((await t.query(COMPLETION, { input })).body.errors, `call ${n}`).toBeUndefined();
      const third = await t.query(COMPLETION, { input });
      expect(third.body.errors![0].extensions).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', upstream: 'moonshot' });
      expect(third.body.errors![0].message).toMatch(
        /^The moonshot service said \(X-RateLimit-Remaining: 0\) that it takes no more requests from this gateway for \d+ s; retry then\.$/,
      );
      expect(t.upstreamRequests('moonshot')).toHaveLength(2);
    } finally {
      await fetch(`${t.sandbox.origin}/_sandbox/config`, {
        method: 'POST',
        body: JSON.stringify({ chatRpm: { moonshot: 0 } }),
      });
    }
  });
});
