import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../support/gateway.js';
import { wsClient } from '../../../support/ws.js';
import { COMPLETION, streamOnce, user } from '../../../support/chat.js';

const USAGE = `query Usage($day: Date) { chatUsage(day: $day) { day provider model promptTokens completionTokens totalTokens reasoningTokens requests } }`;
const today = () => new Date().toISOString().slice(0, 10);

const stream = streamOnce;

describe('token accounting per provider, model and UTC day', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({}, { chatTokenDelayMs: 0 });
  });
  afterAll(() => t?.close());

  it('counts completions streamed or not, reasoning tokens included, in chatUsage and Prometheus', async () => {
    expect((await t.query(USAGE)).body.data!.chatUsage).toEqual([]);
    const whole = (
      await t.query(COMPLETION.replace('totalTokens }', 'totalTokens reasoningTokens }'), {
        input: { provider: 'deepseek', model: 'deepseek-flash', messages: [user('Why?')] },
      })
    ).body.data!.createChatCompletion.usage;
    expect(whole.reasoningTokens).toBeGreaterThan(0);
    const streamed = (await stream(t, { provider: 'glm', model: 'glm-4-flash', messages: [user('Hi')] })).chunks.at(
      -1,
    )!.usage!;
    const again = (
      await stream(t, { provider: 'glm', model: 'glm-4-flash', messages: [user('Hello there')] })
    ).chunks.at(-1)!.usage!;

    const rows = (await t.query(USAGE, { day: today() })).body.data!.chatUsage;
    expect(rows).toEqual([
      { day: today(), provider: 'deepseek', model: 'deepseek-flash', ...whole, requests: 1 },
      {
        day: today(),
        provider: 'glm',
        model: 'glm-4-flash',
        promptTokens: streamed.promptTokens + again.promptTokens,
        completionTokens: streamed.completionTokens + again.completionTokens,
        totalTokens: streamed.totalTokens + again.totalTokens,
        reasoningTokens: 0,
        requests: 2,
      },
    ]);
    const metrics = await (await fetch(`${t.gateway.origin}/metrics`)).text();
    expect(metrics).toContain(
      `gateway_chat_tokens_total{provider="glm",model="glm-4-flash",kind="completion"} ${streamed.completionTokens + again.completionTokens}`,
    );
    expect(metrics).toContain(
      `gateway_chat_tokens_total{provider="deepseek",model="deepseek-flash",kind="reasoning"} ${whole.reasoningTokens}`,
    );
  });

  it('lists nothing for another day, and refuses a day that is not one', async () => {
    expect((await t.query(USAGE, { day: '2020-01-01' })).body.data!.chatUsage).toEqual([]);
    const { body } = await t.query(USAGE, { day: '2025-02-30' });
    expect(body.errors![0].extensions!.code).toBe('BAD_USER_INPUT');
    expect(body.errors![0].message).toContain('Date must be a calendar day YYYY-MM-DD');
  });

  it('counts a stream the client left early by the chunks it received', async () => {
    const before = (await t.query(USAGE)).body.data!.chatUsage.find(
      (r: { provider: string }) => r.provider === 'moonshot',
    );
    expect(before).toBeUndefined();
    const client = wsClient(t.gateway.wsUrl);
    await new Promise<void>((resolve) => {
      let seen = 0;
      const stop = client.subscribe(
        {
          query:
            'subscription($input: ChatCompletionInput!) { chatCompletionStream(input: $input) { delta { content } } }',
          variables: { input: { provider: 'moonshot', model: 'moonshot-v1-8k', messages: [user('Hi')] } },
        },
        {
          next: () => {
            if (++seen === 3) {
              stop();
              resolve();
            }
          },
          error: () => resolve(),
          complete: () => resolve(),
        },
      );
    });
    await client.dispose();
    let row: { requests: number; completionTokens: number } | undefined;
    for (let i = 0; i < 100 && !row; i++) {
      row = (await t.query(USAGE)).body.data!.chatUsage.find((r: { provider: string }) => r.provider === 'moonshot');
      if (!row) await new Promise((r) => setTimeout(r, 20));
    }
    expect(row).toMatchObject({ requests: 1 });
    expect(row!.completionTokens).toBeGreaterThanOrEqual(3);
  });
});

describe('daily token budgets', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(
      { DEEPSEEK_DAILY_TOKEN_BUDGET: '20', CHAT_ROUTES: 'cheap=deepseek/deepseek-flash,glm/glm-4-flash' },
      { chatTokenDelayMs: 0 },
    );
  });
  afterAll(() => t?.close());

  it('lets a stream that crosses the budget finish, counts the overrun, then refuses before sending', async () => {
    const first = await stream(t, {
      provider: 'deepseek',
      model: 'deepseek-flash',
      messages: [user('Tell me a story')],
    });
    expect(first.errors).toBeUndefined();
    const spent = first.chunks.at(-1)!.usage!.totalTokens;
    expect(spent).toBeGreaterThan(20);
    expect(first.chunks.at(-1)!.finishReason).toBe('STOP');
    expect((await t.query(USAGE)).body.data!.chatUsage).toMatchObject([
      { provider: 'deepseek', totalTokens: spent, requests: 1 },
    ]);

    t.clearUpstreamRequests();
    const { body } = await t.query(COMPLETION, {
      input: { provider: 'deepseek', model: 'deepseek-flash', messages: [user('Hi')] },
    });
    expect(body.errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_QUOTA_EXHAUSTED',
      upstream: 'deepseek',
      upstreamCode: 'DAILY_TOKEN_BUDGET',
    });
    expect(body.errors![0].message).toContain(
      `daily token budget for deepseek (DEEPSEEK_DAILY_TOKEN_BUDGET=20) is spent: ${spent} tokens today`,
    );
    const refused = await stream(t, { provider: 'deepseek', model: 'deepseek-flash', messages: [user('Hi')] });
    expect(refused.chunks).toHaveLength(0);
    expect(refused.errors![0].extensions).toMatchObject({ code: 'UPSTREAM_QUOTA_EXHAUSTED' });
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('a route moves on to its next target once a provider budget is spent, without calling the spent one', async () => {
    t.clearUpstreamRequests();
    const { body } = await t.query(COMPLETION.replace('usage {', 'attempts { provider outcome } usage {'), {
      input: { provider: 'route:cheap', model: 'auto', messages: [user('Hi')] },
    });
    expect(body.data!.createChatCompletion).toMatchObject({
      provider: 'glm',
      attempts: [
        { provider: 'deepseek', outcome: 'BUDGET_EXHAUSTED' },
        { provider: 'glm', outcome: 'SERVED' },
      ],
    });
    expect(t.upstreamRequests().map((r) => r.upstream)).toEqual(['glm']);
  });
});
