import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../../support/gateway.js';
import { wsClient } from '../../support/ws.js';
import { COMPLETION, PROVIDERS, streamAll, user, useChatGateway } from '../../support/chat.js';

const env = useChatGateway();

const complete = async (input: Record<string, unknown>) => {
  const { body } = await env.t.query(COMPLETION, { input });
  return body;
};
const stream = async (input: Record<string, unknown>) => {
  const client = wsClient(env.t.gateway.wsUrl);
  try {
    return await streamAll(client, input);
  } finally {
    await client.dispose();
  }
};

const MODEL = Object.fromEntries(PROVIDERS.map((p) => [p.id, p.model])) as Record<string, string>;

describe('provider errors mapped to contract codes, with the provider id and its own code', () => {
  it.each([
    ['glm', '1002'],
    ['ark', 'AuthenticationError'],
    ['deepseek', 'invalid_request_error'],
    ['moonshot', 'invalid_authentication_error'],
  ])(
    '%s: a rejected key is UPSTREAM_ERROR naming the gateway variable, never UNAUTHENTICATED',
    async (id, upstreamCode) => {
      // A gateway of its own: the refusal is believed for a backoff window, which would refuse the other tests' calls.
      const own = await startTestGateway({}, { chatTokenDelayMs: 0 });
      try {
        own.sandbox.faults.push({ upstream: id as never, times: 1, status: 401 });
        const { body } = await own.query(COMPLETION, {
          input: { provider: id, model: MODEL[id], messages: [user('Hi')] },
        });
        expect(body.errors![0].extensions).toMatchObject({
          code: 'UPSTREAM_ERROR',
          reason: 'GATEWAY_CREDENTIALS_REJECTED',
          upstream: id,
          status: 401,
          upstreamCode,
        });
        expect(body.errors![0].message).toContain(`Fix ${id.toUpperCase()}_API_KEY in the gateway's configuration`);
        expect(body.errors![0].message).not.toMatch(/\*\*\*\*|sandbox/);
      } finally {
        await own.close();
      }
    },
  );

  it.each([
    ['glm', '1302'],
    ['ark', 'RateLimitExceeded.EndpointRPMExceeded'],
    ['deepseek', 'rate_limit_exceeded'],
    ['moonshot', 'rate_limit_reached_error'],
  ])('%s: a 429 that persists through the retries is UPSTREAM_RATE_LIMITED', async (id, upstreamCode) => {
    env.t.sandbox.faults.push({ upstream: id as never, times: 3, status: 429, retryAfter: 0 });
    const body = await complete({ provider: id, model: MODEL[id], messages: [user('Hi')] });
    expect(body.errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_RATE_LIMITED',
      upstream: id,
      status: 429,
      upstreamCode,
      retryAfter: 0,
    });
    expect(body.errors![0].message).toMatch(/retry in 0 s/);
    expect(env.t.upstreamRequests(id)).toHaveLength(3);
  });

  it.each([
    ['glm', { error: { code: '1113', message: '您的账户已欠费，请充值后重试。' } }, '1113'],
    [
      'moonshot',
      { error: { type: 'exceeded_current_quota_error', message: 'You exceeded your current token quota' } },
      'exceeded_current_quota_error',
    ],
  ])(
    '%s: a 429 that means "no balance" is UPSTREAM_QUOTA_EXHAUSTED at once, without retries',
    async (id, body, upstreamCode) => {
      env.t.sandbox.faults.push({ upstream: id as never, times: 3, status: 429, retryAfter: 0, body });
      const answer = await complete({ provider: id, model: MODEL[id], messages: [user('Hi')] });
      expect(answer.errors![0].extensions).toMatchObject({
        code: 'UPSTREAM_QUOTA_EXHAUSTED',
        upstream: id,
        status: 429,
        upstreamCode,
      });
      expect(env.t.upstreamRequests(id)).toHaveLength(1);
    },
  );

  it('deepseek: 402 Insufficient Balance is UPSTREAM_QUOTA_EXHAUSTED', async () => {
    env.t.sandbox.faults.push({ upstream: 'deepseek', times: 1, status: 402 });
    const body = await complete({ provider: 'deepseek', model: 'deepseek-flash', messages: [user('Hi')] });
    expect(body.errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_QUOTA_EXHAUSTED',
      upstream: 'deepseek',
      status: 402,
      upstreamCode: 'unknown_error',
    });
    expect(body.errors![0].message).toContain('Insufficient Balance');
  });

  it('ark: an endpoint that does not exist is BAD_USER_INPUT with Ark code and request id', async () => {
    const body = await complete({ provider: 'ark', model: 'ep-20990101-missing', messages: [user('Hi')] });
    expect(body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      upstream: 'ark',
      status: 404,
      upstreamCode: 'InvalidEndpointOrModel.NotFound',
    });
    expect(body.errors![0].extensions!.upstreamRequestId).toMatch(/^0217\d+[0-9a-f]+$/);
  });

  it('glm: a prompt over the context window (1261) is BAD_USER_INPUT', async () => {
    const body = await complete({ provider: 'glm', model: 'glm-4v-plus', messages: [user('word '.repeat(8_100))] });
    expect(body.errors![0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      upstream: 'glm',
      status: 400,
      upstreamCode: '1261',
    });
    expect(body.errors![0].message).toContain('Prompt exceeds max length');
  });

  it('moonshot: a 500 is not retried (a write may have run) and is UPSTREAM_ERROR with its type', async () => {
    env.t.sandbox.faults.push({ upstream: 'moonshot', times: 1, status: 500 });
    const body = await complete({ provider: 'moonshot', model: 'moonshot-v1-8k', messages: [user('Hi')] });
    expect(body.errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_ERROR',
      upstream: 'moonshot',
      status: 500,
      upstreamCode: 'server_error',
    });
    expect(env.t.upstreamRequests('moonshot')).toHaveLength(1);
  });

  it('glm: a 429 before a stream starts is answered as one result with errors, not a broken socket', async () => {
    env.t.sandbox.faults.push({ upstream: 'glm', times: 3, status: 429, retryAfter: 0 });
    const { chunks, errors } = await stream({ provider: 'glm', model: 'glm-4-flash', messages: [user('Hi')] });
    expect(chunks).toHaveLength(0);
    expect(errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_RATE_LIMITED',
      upstream: 'glm',
      upstreamCode: '1302',
    });
  });
});

describe('errors in the middle of a stream', () => {
  it('glm: an in-band error event ends the subscription with UPSTREAM_ERROR and GLM code, after the chunks before it', async () => {
    const { chunks, errors } = await stream({
      provider: 'glm',
      model: 'glm-4-flash',
      messages: [user('Fail half-way [[error]]')],
    });
    expect(chunks.length).toBeGreaterThan(3);
    expect(errors).toHaveLength(1);
    expect(errors![0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'glm', upstreamCode: '1234' });
    expect(errors![0].message).toMatch(/^The glm stream broke off with an error after \d+ chunks \(1234\)/);
  });

  it('glm: the same failure without streaming is HTTP 500 with code 1234', async () => {
    const body = await complete({ provider: 'glm', model: 'glm-4-flash', messages: [user('Fail [[error]]')] });
    expect(body.errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_ERROR',
      upstream: 'glm',
      status: 500,
      upstreamCode: '1234',
    });
  });
});

describe('finish reasons, the same for every provider', () => {
  it.each([
    ['glm', '[[sensitive]]', 'CONTENT_FILTER'],
    ['glm', '[[network_error]]', 'UPSTREAM_ERROR'],
    ['glm', '[[context]]', 'CONTEXT_WINDOW_EXCEEDED'],
    ['ark', '[[sensitive]]', 'CONTENT_FILTER'],
    ['deepseek', '[[sensitive]]', 'CONTENT_FILTER'],
    ['deepseek', '[[network_error]]', 'UPSTREAM_ERROR'],
    ['moonshot', '[[sensitive]]', 'CONTENT_FILTER'],
  ])('%s %s ends with %s, streamed or not, with usage', async (id, marker, reason) => {
    const input = { provider: id, model: MODEL[id], messages: [user(`Please go on ${marker}`)] };
    const body = await complete(input);
    const { chunks, errors } = await stream(input);
    expect(body.data!.createChatCompletion.choices[0].finishReason).toBe(reason);
    expect(errors).toBeUndefined();
    expect(chunks.at(-1)).toMatchObject({ finishReason: reason, usage: body.data!.createChatCompletion.usage });
  });

  it('maxTokens cuts the answer with LENGTH', async () => {
    const { chunks } = await stream({
      provider: 'deepseek',
      model: 'deepseek-flash',
      messages: [user('Hi')],
      maxTokens: 5,
    });
    expect(chunks.at(-1)).toMatchObject({ finishReason: 'LENGTH', usage: { completionTokens: 5 } });
  });
});
