import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../support/gateway.js';
import { PROVIDERS, user } from '../../../support/chat.js';

const ASK = `mutation Complete($input: ChatCompletionInput!) {
  createChatCompletion(input: $input) { usage { promptTokens completionTokens totalTokens cachedPromptTokens } }
}`;
const USAGE = `query Usage { chatUsage { provider model promptTokens cachedPromptTokens totalTokens } }`;

/** A long shared context, then a question: the context repeats, the question does not. */
const CONTEXT = `Service handbook. ${'The gateway keeps a cache of upstream answers and retries politely. '.repeat(60)}`;
const conversation = (question: string) => [{ role: 'SYSTEM', content: CONTEXT }, user(question)];

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway(
    { CHAT_CACHED_TOKEN_WEIGHT: '0.1', DEEPSEEK_DAILY_TOKEN_BUDGET: '1000000' },
    { chatTokenDelayMs: 0 },
  );
});
afterAll(() => t.close());

describe.each(PROVIDERS)('cached prompt tokens on $id', ({ id, model }) => {
  it('reports none the first time and the repeated prefix the second, in whole cache blocks', async () => {
    const first = (
      await t.query(ASK, {
        input: {
          provider: id,
          model: model === 'moonshot-v1-8k' ? 'moonshot-v1-32k' : model,
          messages: conversation('First question?'),
        },
      })
    ).body.data!.createChatCompletion.usage;
    const second = (
      await t.query(ASK, {
        input: {
          provider: id,
          model: model === 'moonshot-v1-8k' ? 'moonshot-v1-32k' : model,
          messages: conversation('Second question?'),
        },
      })
    ).body.data!.createChatCompletion.usage;
    expect(first.cachedPromptTokens).toBe(0);
    const block = id === 'moonshot' ? 256 : 64;
    expect(second.cachedPromptTokens).toBeGreaterThan(0);
    expect(second.cachedPromptTokens % block).toBe(0);
    expect(second.cachedPromptTokens).toBeLessThanOrEqual(second.promptTokens);
  });
});

describe('cached tokens in the books', () => {
  it('are kept per provider and model in chatUsage and Prometheus', async () => {
    const { body } = await t.query(USAGE);
    const deepseek = (body.data!.chatUsage as Array<Record<string, any>>).find((r) => r.provider === 'deepseek')!;
    expect(deepseek.cachedPromptTokens).toBeGreaterThan(0);
    const metrics = await (await fetch(`${t.gateway.origin}/metrics`)).text();
    expect(metrics).toContain(
      `gateway_chat_tokens_total{provider="deepseek",model="deepseek-flash",kind="cached"} ${deepseek.cachedPromptTokens}`,
    );
  });

  it('count CHAT_CACHED_TOKEN_WEIGHT each against the daily budget: the same two calls leave room at 0.1 and none at 1', async () => {
    const { body } = await t.query(USAGE);
    const { totalTokens, cachedPromptTokens } = (body.data!.chatUsage as Array<Record<string, any>>).find(
      (r) => r.provider === 'deepseek',
    )!;
    const weighted = Math.round(totalTokens - 0.9 * cachedPromptTokens);
    // A fresh sandbox answers the same two calls with the same tokens; the budget sits between the two counts.
    const budget = String(weighted + 1);
    for (const [weight, third] of [
      ['0.1', 'served'],
      ['1', 'refused'],
    ] as const) {
      const g = await startTestGateway({ CHAT_CACHED_TOKEN_WEIGHT: weight, DEEPSEEK_DAILY_TOKEN_BUDGET: budget });
      try {
        for (const q of ['First question?', 'Second question?'])
          expect(
            (
              await g.query(ASK, {
                input: { provider: 'deepseek', model: 'deepseek-flash', messages: conversation(q) },
              })
            ).body.errors,
          ).toBeUndefined();
        const last = await g.query(ASK, {
          input: { provider: 'deepseek', model: 'deepseek-flash', messages: conversation('Third?') },
        });
        if (third === 'served') expect(last.body.errors).toBeUndefined();
        else
          expect(last.body.errors![0].message).toContain(
            `is spent: ${totalTokens} tokens today (UTC, cached prompt tokens at CHAT_CACHED_TOKEN_WEIGHT=1)`,
          );
      } finally {
        await g.close();
      }
    }
  });
});
