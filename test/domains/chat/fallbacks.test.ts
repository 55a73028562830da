import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/env.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { COMPLETION, streamOnce, text, user } from '../../support/chat.js';

const COMPLETION_WITH_ATTEMPTS = COMPLETION.replace('usage {', 'attempts { provider model outcome code } usage {');

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway(
    {
      CHAT_ROUTES: 'fast=glm/glm-4-flash,deepseek/deepseek-flash;kimi=moonshot/moonshot-v1-8k',
      GATEWAY_MAX_UPSTREAM_REQUESTS: '3',
    },
    { chatTokenDelayMs: 1 },
  );
});
afterAll(() => t?.close());
beforeEach(() => {
  t.clearUpstreamRequests();
  t.sandbox.faults.clear();
});

const complete = async (input: Record<string, unknown>) => (await t.query(COMPLETION_WITH_ATTEMPTS, { input })).body;
const stream = (input: Record<string, unknown>) => streamOnce(t, input);
const counts = () =>
  Object.fromEntries(['glm', 'deepseek', 'moonshot'].map((id) => [id, t.upstreamRequests(id).length]));
const GLM_THEN_DEEPSEEK = {
  provider: 'glm',
  model: 'glm-4-flash',
  fallbacks: [{ provider: 'deepseek', model: 'deepseek-flash' }],
  messages: [user('Hi')],
};

describe('fallbacks before the first token', () => {
  it('after a 429 sends exactly one request to each target, and the answer names the target that served it', async () => {
    t.sandbox.faults.push({ upstream: 'glm', times: 3, status: 429, retryAfter: 0 });
    const body = await complete(GLM_THEN_DEEPSEEK);
    expect(body.errors).toBeUndefined();
    expect(counts()).toEqual({ glm: 1, deepseek: 1, moonshot: 0 });
    const answer = body.data!.createChatCompletion;
    expect(answer).toMatchObject({ provider: 'deepseek', model: 'deepseek-flash' });
    expect(answer.attempts).toEqual([
      { provider: 'glm', model: 'glm-4-flash', outcome: 'RATE_LIMITED', code: 'UPSTREAM_RATE_LIMITED' },
      { provider: 'deepseek', model: 'deepseek-flash', outcome: 'SERVED', code: null },
    ]);
    expect(JSON.parse(t.upstreamRequests('deepseek')[0].body)).toMatchObject({
      model: 'deepseek-flash',
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });

  it('a named route streams from its second target after a 429, every chunk saying so', async () => {
    t.sandbox.faults.push({ upstream: 'glm', times: 1, status: 429, retryAfter: 0 });
    const { chunks, errors } = await stream({ provider: 'route:fast', model: 'auto', messages: [user('Hi')] });
    expect(errors).toBeUndefined();
    expect(chunks.length).toBeGreaterThan(3);
    expect(new Set(chunks.map((c) => `${c.provider}/${c.model}`))).toEqual(new Set(['deepseek/deepseek-flash']));
    expect(chunks.at(-1)).toMatchObject({ finishReason: 'STOP' });
    expect(counts()).toEqual({ glm: 1, deepseek: 1, moonshot: 0 });
  });

  it.each([
    ['a 500', { status: 500 }, 'UPSTREAM_ERROR'],
    ['a 503', { status: 503 }, 'UPSTREAM_ERROR'],
    [
      'quota exhaustion (GLM 1113)',
      { status: 429, body: { error: { code: '1113', message: '您的账户已欠费，请充值后重试。' } } },
      'UPSTREAM_QUOTA_EXHAUSTED',
    ],
    ['a dropped connection', { reset: true }, 'UPSTREAM_ERROR'],
  ])('moves on after %s', async (_what, fault, code) => {
    t.sandbox.faults.push({ upstream: 'glm', times: 1, ...fault });
    const body = await complete(GLM_THEN_DEEPSEEK);
    expect(body.data!.createChatCompletion.attempts[0]).toMatchObject({ provider: 'glm', code });
    expect(body.data!.createChatCompletion.provider).toBe('deepseek');
    expect(counts()).toEqual({ glm: 1, deepseek: 1, moonshot: 0 });
  });

  it('moves on when a stream breaks before its first chunk', async () => {
    t.sandbox.faults.push({ upstream: 'glm', times: 1, cutAfterChunks: 0 });
    const { chunks, errors } = await stream(GLM_THEN_DEEPSEEK);
    expect(errors).toBeUndefined();
    expect(chunks[0].provider).toBe('deepseek');
    expect(counts()).toEqual({ glm: 1, deepseek: 1, moonshot: 0 });
  });

  it('never falls back once output has started: a stream cut after 3 chunks ends with its error', async () => {
    t.sandbox.faults.push({ upstream: 'glm', times: 1, cutAfterChunks: 3 });
    const { chunks, errors } = await stream(GLM_THEN_DEEPSEEK);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((c) => c.provider === 'glm')).toBe(true);
    expect(errors![0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'glm' });
    expect(counts()).toEqual({ glm: 1, deepseek: 0, moonshot: 0 });
  });

  it('does not fall back on what another target would refuse too: a 400 ends at the first target', async () => {
    t.sandbox.faults.push({ upstream: 'glm', times: 1, status: 400 });
    const body = await complete(GLM_THEN_DEEPSEEK);
    expect(body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', upstream: 'glm' });
    expect(counts()).toEqual({ glm: 1, deepseek: 0, moonshot: 0 });
  });

  it('when every target fails, answers the last error with every attempt; the last target keeps its retries', async () => {
    t.sandbox.faults.push({ upstream: 'glm', times: 1, status: 429, retryAfter: 0 });
    t.sandbox.faults.push({ upstream: 'deepseek', times: 3, status: 429, retryAfter: 0 });
    const body = await complete(GLM_THEN_DEEPSEEK);
    expect(body.errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_RATE_LIMITED',
      upstream: 'deepseek',
      attempts: [
        { provider: 'glm', model: 'glm-4-flash', outcome: 'rate_limited', code: 'UPSTREAM_RATE_LIMITED' },
        { provider: 'deepseek', model: 'deepseek-flash', outcome: 'rate_limited', code: 'UPSTREAM_RATE_LIMITED' },
      ],
    });
    expect(counts()).toEqual({ glm: 1, deepseek: 3, moonshot: 0 });
  });

  it('logs and counts every attempt', async () => {
    t.sandbox.faults.push({ upstream: 'glm', times: 1, status: 429, retryAfter: 0 });
    const before = t.logs.lines.length;
    await complete(GLM_THEN_DEEPSEEK);
    const lines = t.logs.lines
      .slice(before)
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'chat attempt');
    expect(lines.map((l) => [l.provider, l.outcome, l.attempt, l.of, l.fallback ?? null])).toEqual([
      ['glm', 'rate_limited', 1, 2, true],
      ['deepseek', 'served', 2, 2, null],
    ]);
    const metrics = await (await fetch(`${t.gateway.origin}/metrics`)).text();
    expect(metrics).toMatch(
      /gateway_chat_attempts_total\{provider="glm",model="glm-4-flash",outcome="rate_limited"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /gateway_chat_attempts_total\{provider="deepseek",model="deepseek-flash",outcome="served"\} [1-9]/,
    );
  });
});

describe('targets are checked before anything is sent', () => {
  it.each([
    [
      { provider: 'route:slow', model: 'auto' },
      'Unknown chat route "slow"; CHAT_ROUTES defines route:fast, route:kimi.',
    ],
    [
      { provider: 'route:fast', model: 'glm-4-flash' },
      'the route picks the models (glm/glm-4-flash, deepseek/deepseek-flash); give model "auto"',
    ],
    [
      { provider: 'glm', model: 'glm-4-flash', fallbacks: [{ provider: 'deepseek', model: 'gpt-4' }] },
      'input.fallbacks[0] (deepseek/gpt-4): Provider deepseek has no model "gpt-4"',
    ],
    [
      {
        provider: 'glm',
        model: 'glm-4-flash',
        temperature: 1.5,
        fallbacks: [{ provider: 'deepseek', model: 'deepseek-flash' }],
      },
      "temperature 1.5 is outside glm's range 0..1.",
    ],
    [
      {
        provider: 'glm',
        model: 'glm-4-flash',
        fallbacks: [
          { provider: 'route:kimi', model: 'auto' },
          { provider: 'route:fast', model: 'auto' },
          { provider: 'ark', model: 'doubao-pro' },
          { provider: 'ark', model: 'doubao-lite' },
          { provider: 'moonshot', model: 'moonshot-v1-32k' },
        ],
      },
      'This completion names 7 targets (routes and fallbacks expanded); at most 6 are tried.',
    ],
  ])('%o is BAD_USER_INPUT with no upstream request', async (input, message) => {
    const body = await complete({ messages: [user('Hi')], ...input });
    expect(body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
    expect(body.errors![0].message).toContain(message);
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('the upstream-request budget counts every target: the worst case, not the likely one', async () => {
    const op = `mutation { a: createChatCompletion(input: { provider: "route:fast", model: "auto", messages: [{ role: USER, content: "Hi" }], fallbacks: [{ provider: "deepseek", model: "deepseek-v4-pro" }] }) { content }
      b: createChatCompletion(input: { provider: "deepseek", model: "deepseek-flash", messages: [{ role: USER, content: "Hi" }] }) { content }
      c: createChatCompletion(input: { provider: "moonshot", model: "moonshot-v1-8k", messages: [{ role: USER, content: "Hi" }], fallbacks: [{ provider: "deepseek", model: "deepseek-flash" }] }) { content } }`;
    const { body } = await t.query(op);
    // Likely: one deepseek request (b). Worst case: a's second route target, a's fallback, b and c's fallback.
    expect(body.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      upstream: 'deepseek',
      found: 4,
      max: 3,
    });
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('a route with fallbacks answers from the first target when it is healthy', async () => {
    const body = await complete({
      provider: 'route:kimi',
      model: 'auto',
      messages: [user('Hi')],
      fallbacks: [{ provider: 'glm', model: 'glm-4-flash' }],
    });
    expect(body.data!.createChatCompletion).toMatchObject({ provider: 'moonshot', model: 'moonshot-v1-8k' });
    expect(counts()).toEqual({ glm: 0, deepseek: 0, moonshot: 1 });
  });
});

describe('CHAT_ROUTES', () => {
  const load = (value: string) => () => loadConfig({ CHAT_ROUTES: value });
  it('parses name=provider/model lists', () => {
    expect(
      loadConfig({ CHAT_ROUTES: 'fast=glm/glm-4-flash, deepseek/deepseek-flash ; doubao=ark/ep-2024-x' }).chatRoutes,
    ).toEqual({
      fast: [
        { provider: 'glm', model: 'glm-4-flash' },
        { provider: 'deepseek', model: 'deepseek-flash' },
      ],
      doubao: [{ provider: 'ark', model: 'ep-2024-x' }],
    });
  });
  it.each([
    ['fast', 'entry "fast" must be name=provider/model'],
    ['fast=glm', 'target "glm" of route fast must be provider/model'],
    ['fast=openai/gpt-4', 'route fast names provider "openai"; configured providers are glm, ark, deepseek, moonshot'],
  ])('refuses %s naming the variable', (value, message) => {
    expect(load(value)).toThrow(ConfigError);
    expect(load(value)).toThrow(`CHAT_ROUTES: ${message}`);
  });
});

it('streams text from the served target unchanged', async () => {
  const direct = await stream({ provider: 'deepseek', model: 'deepseek-flash', messages: [user('Hi')] });
  t.sandbox.faults.push({ upstream: 'glm', times: 1, status: 503 });
  const viaFallback = await stream(GLM_THEN_DEEPSEEK);
  expect(text(viaFallback.chunks)).toBe(text(direct.chunks));
});
