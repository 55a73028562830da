import { describe, expect, it } from 'vitest';
import { InProcessChatUsageStore } from '../../src/domains/chat/usage/inProcessStore.js';
import { utcDay, type ChatUsageStore } from '../../src/domains/chat/usage/store.js';

/**
 * One suite for every ChatUsageStore implementation. The Redis implementation joins this list (with a fresh key
 * prefix per test) so that both keep the same books.
 */
const IMPLEMENTATIONS: Array<[string, () => Promise<ChatUsageStore>]> = [['in-process', async () => new InProcessChatUsageStore()]];

const usage = (prompt: number, completion: number, reasoning = 0) => ({ promptTokens: prompt, completionTokens: completion, totalTokens: prompt + completion, reasoningTokens: reasoning });

describe.each(IMPLEMENTATIONS)('ChatUsageStore (%s)', (_name, create) => {
  it('sums tokens and counts requests per provider and model of one day', async () => {
    const store = await create();
    await store.add('2025-03-01', 'glm', 'glm-4-flash', usage(10, 20));
    await store.add('2025-03-01', 'glm', 'glm-4-flash', usage(5, 7, 3));
    await store.add('2025-03-01', 'deepseek', 'deepseek-chat', usage(1, 2));
    expect(await store.list('2025-03-01')).toEqual([
      { day: '2025-03-01', provider: 'deepseek', model: 'deepseek-chat', promptTokens: 1, completionTokens: 2, totalTokens: 3, reasoningTokens: 0, requests: 1 },
      { day: '2025-03-01', provider: 'glm', model: 'glm-4-flash', promptTokens: 15, completionTokens: 27, totalTokens: 42, reasoningTokens: 3, requests: 2 },
    ]);
  });

  it('keeps days apart: a new UTC day starts from zero', async () => {
    const store = await create();
    await store.add('2025-03-01', 'glm', 'glm-4-flash', usage(10, 20));
    await store.add('2025-03-02', 'glm', 'glm-4-flash', usage(1, 1));
    expect(await store.totalFor('2025-03-01', 'glm')).toBe(30);
    expect(await store.totalFor('2025-03-02', 'glm')).toBe(2);
    expect(await store.list('2025-03-03')).toEqual([]);
  });

  it('totals one provider over all its models, and nothing of the others', async () => {
    const store = await create();
    await store.add('2025-03-01', 'glm', 'glm-4-flash', usage(10, 20));
    await store.add('2025-03-01', 'glm', 'embedding-3', usage(100, 0));
    await store.add('2025-03-01', 'ark', 'doubao-pro', usage(1000, 1000));
    expect(await store.totalFor('2025-03-01', 'glm')).toBe(130);
    expect(await store.totalFor('2025-03-01', 'moonshot')).toBe(0);
  });

  it('counts concurrent additions exactly', async () => {
    const store = await create();
    await Promise.all(Array.from({ length: 200 }, () => store.add('2025-03-01', 'glm', 'glm-4-flash', usage(1, 1))));
    expect(await store.list('2025-03-01')).toMatchObject([{ totalTokens: 400, requests: 200 }]);
  });
});

describe('InProcessChatUsageStore', () => {
  it('forgets the oldest days past the ones it keeps', async () => {
    const store = new InProcessChatUsageStore(2);
    for (const day of ['2025-03-01', '2025-03-02', '2025-03-03']) await store.add(day, 'glm', 'glm-4-flash', usage(1, 1));
    expect(await store.list('2025-03-01')).toEqual([]);
    expect(await store.totalFor('2025-03-03', 'glm')).toBe(2);
  });

  it('names UTC days, not local ones', () => {
    expect(utcDay(Date.parse('2025-03-01T23:59:59.999Z'))).toBe('2025-03-01');
    expect(utcDay(Date.parse('2025-03-02T00:00:00+08:00'))).toBe('2025-03-01');
  });
});
