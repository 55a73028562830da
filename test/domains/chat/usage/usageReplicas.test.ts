import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplicas, type ReplicaCluster } from '../../../support/replicas.js';
import { COMPLETION, user } from '../../../support/chat.js';

/**
 * Chat usage and daily token budgets on three gateway processes sharing one Redis: the books are the cluster's, so a
 * budget holds for all replicas together and `chatUsage` answers the same on each.
 */
const BUDGET = 300;
const USAGE = `query Usage { chatUsage { provider model promptTokens completionTokens totalTokens reasoningTokens requests } }`;
let cluster: ReplicaCluster;

beforeAll(async () => {
  cluster = await startReplicas({ count: 3, env: { GLM_DAILY_TOKEN_BUDGET: String(BUDGET) } });
}, 120_000);
afterAll(() => cluster?.close(), 60_000);

/** Chat calls only: each live replica also reads every provider's GET /models at start-up. */
const completions = (requests: Array<{ url: string }>) => requests.filter((r) => r.url.endsWith('/chat/completions'));
const complete = (replica: number, text: string) =>
  cluster.query(replica, COMPLETION, { input: { provider: 'glm', model: 'glm-4-flash', messages: [user(text)] } });

describe('daily token budgets across replicas sharing Redis', () => {
  it('refuses on every replica with UPSTREAM_QUOTA_EXHAUSTED and no upstream request once the cluster has spent the budget', async () => {
    const served: Array<{ replica: number; totalTokens: number; promptTokens: number; completionTokens: number }> = [];
    let refusedAt = -1;
    // Completions in turn over the three replicas, until one is refused (bounded: each costs tokens).
    for (let i = 0; i < 30 && refusedAt < 0; i++) {
      const { body } = await complete(i % 3, `Question ${i}: what is a budget?`);
      if (body.errors) {
        expect(body.errors[0].extensions).toMatchObject({
          code: 'UPSTREAM_QUOTA_EXHAUSTED',
          upstream: 'glm',
          upstreamCode: 'DAILY_TOKEN_BUDGET',
        });
        refusedAt = i;
      } else served.push({ replica: i % 3, ...body.data.createChatCompletion.usage });
    }
    const spent = served.reduce((sum, s) => sum + s.totalTokens, 0);
    // Refused exactly when the cluster's total reached the budget: before the last served one it was below.
    expect(refusedAt).toBe(served.length);
    expect(spent).toBeGreaterThanOrEqual(BUDGET);
    expect(spent - served.at(-1)!.totalTokens).toBeLessThan(BUDGET);
    expect(new Set(served.map((s) => s.replica)).size).toBe(3);
    expect(completions(cluster.upstreamRequests('glm'))).toHaveLength(served.length);

    for (const replica of [0, 1, 2]) {
      const { body } = await complete(replica, 'One more?');
      expect(body.errors![0].extensions).toMatchObject({ code: 'UPSTREAM_QUOTA_EXHAUSTED', upstream: 'glm' });
      expect(body.errors![0].message).toContain(`GLM_DAILY_TOKEN_BUDGET=${BUDGET}) is spent: ${spent} tokens today`);
    }
    expect(completions(cluster.upstreamRequests('glm'))).toHaveLength(served.length);

    // Another provider is not held by glm's budget.
    const other = await cluster.query(1, COMPLETION, {
      input: { provider: 'deepseek', model: 'deepseek-flash', reasoning: { enabled: false }, messages: [user('Hi')] },
    });
    expect(other.body.errors).toBeUndefined();
    const deepseek = other.body.data.createChatCompletion.usage;

    const sum = (key: 'promptTokens' | 'completionTokens') => served.reduce((total, s) => total + s[key], 0);
    const expected = [
      { provider: 'deepseek', model: 'deepseek-flash', ...deepseek, reasoningTokens: 0, requests: 1 },
      {
        provider: 'glm',
        model: 'glm-4-flash',
        promptTokens: sum('promptTokens'),
        completionTokens: sum('completionTokens'),
        totalTokens: spent,
        reasoningTokens: 0,
        requests: served.length,
      },
    ];
    for (const replica of [0, 1, 2]) {
      const { body } = await cluster.query(replica, USAGE);
      expect(body.data.chatUsage).toEqual(expected);
    }
  }, 120_000);
});
