import { describe, expect, it } from 'vitest';
import { CountersChatUsageStore } from '../../../../src/domains/chat/usage/countersStore.js';
import { utcDay, type ChatUsageStore } from '../../../../src/domains/chat/usage/store.js';
import { MemoryState } from '../../../../src/state/index.js';
import { useRedisStates } from '../../../support/sharedState.js';

const redis = useRedisStates();

/** The chat books on a Redis shared state under a fresh key prefix (an empty Redis, in effect). */
async function inRedis(): Promise<ChatUsageStore> {
  const [state] = await redis.states(1);
  return new CountersChatUsageStore(state.dailyCounters('chat-usage'));
}

/** One suite for the books in process and in Redis: both keep the same books. */
const IMPLEMENTATIONS: Array<[string, () => Promise<ChatUsageStore>]> = [
  ['in process', async () => new CountersChatUsageStore(new MemoryState().dailyCounters('chat-usage'))],
  ['redis', inRedis],
];

const usage = (prompt: number, completion: number, reasoning = 0, cached = 0) => ({
  promptTokens: prompt,
  completionTokens: completion,
  totalTokens: prompt + completion,
  reasoningTokens: reasoning,
  cachedPromptTokens: cached,
});

describe.each(IMPLEMENTATIONS)('ChatUsageStore (%s)', (_name, create) => {
  it('sums tokens and counts requests per provider and model of one day', async () => {
    const store = await create();
    await store.add('2025-03-01', 'glm', 'glm-4-flash', usage(10, 20));
    await store.add('2025-03-01', 'glm', 'glm-4-flash', usage(5, 7, 3));
    await store.add('2025-03-01', 'deepseek', 'deepseek-flash', usage(1, 2));
    expect(await store.list('2025-03-01')).toEqual([
      {
        day: '2025-03-01',
        provider: 'deepseek',
        model: 'deepseek-flash',
        promptTokens: 1,
        completionTokens: 2,
        totalTokens: 3,
        reasoningTokens: 0,
        cachedPromptTokens: 0,
        requests: 1,
      },
      {
        day: '2025-03-01',
        provider: 'glm',
        model: 'glm-4-flash',
        promptTokens: 15,
        completionTokens: 27,
        totalTokens: 42,
        reasoningTokens: 3,
        cachedPromptTokens: 0,
        requests: 2,
      },
    ]);
  });

  it('keeps days apart: a new UTC day starts from zero', async () => {
    const store = await create();
    await store.add('2025-03-01', 'glm', 'glm-4-flash', usage(10, 20));
    await store.add('2025-03-02', 'glm', 'glm-4-flash', usage(1, 1));
    expect(await store.totalFor('2025-03-01', 'glm', 1)).toBe(30);
    expect(await store.totalFor('2025-03-02', 'glm', 1)).toBe(2);
    expect(await store.list('2025-03-03')).toEqual([]);
  });

  it('totals one provider over all its models, and nothing of the others', async () => {
    const store = await create();
    await store.add('2025-03-01', 'glm', 'glm-4-flash', usage(10, 20));
    await store.add('2025-03-01', 'glm', 'embedding-3', usage(100, 0));
    await store.add('2025-03-01', 'ark', 'doubao-pro', usage(1000, 1000));
    expect(await store.totalFor('2025-03-01', 'glm', 1)).toBe(130);
    expect(await store.totalFor('2025-03-01', 'moonshot', 1)).toBe(0);
  });

  it('keeps models whose ids hold slashes and hashes apart from their provider', async () => {
    const store = await create();
    await store.add('2025-03-01', 'ark', 'ep-2024/abc#1', usage(2, 3));
    expect(await store.list('2025-03-01')).toEqual([
      {
        day: '2025-03-01',
        provider: 'ark',
        model: 'ep-2024/abc#1',
        promptTokens: 2,
        completionTokens: 3,
        totalTokens: 5,
        reasoningTokens: 0,
        cachedPromptTokens: 0,
        requests: 1,
      },
    ]);
    expect(await store.totalFor('2025-03-01', 'ark', 1)).toBe(5);
  });

  it('keeps cached prompt tokens, and counts each at the weight asked against a budget', async () => {
    const store = await create();
    await store.add('2025-03-01', 'deepseek', 'deepseek-flash', usage(1000, 10, 0, 900));
    expect(await store.list('2025-03-01')).toMatchObject([
      { promptTokens: 1000, cachedPromptTokens: 900, totalTokens: 1010 },
    ]);
    // 100 uncached prompt tokens, 10 completion tokens, 900 cached at 0.1.
    expect(await store.totalFor('2025-03-01', 'deepseek', 0.1)).toBe(200);
    expect(await store.totalFor('2025-03-01', 'deepseek', 1)).toBe(1010);
  });

  it('counts concurrent additions exactly', async () => {
    const store = await create();
    await Promise.all(Array.from({ length: 200 }, () => store.add('2025-03-01', 'glm', 'glm-4-flash', usage(1, 1))));
    expect(await store.list('2025-03-01')).toMatchObject([{ totalTokens: 400, requests: 200 }]);
  });
});

describe('utcDay', () => {
  it('names UTC days, not local ones', () => {
    expect(utcDay(Date.parse('2025-03-01T23:59:59.999Z'))).toBe('2025-03-01');
    expect(utcDay(Date.parse('2025-03-02T00:00:00+08:00'))).toBe('2025-03-01');
  });

  it('keeps the day it named last only within that day: each edge, before 1970, and back again', () => {
    const days = [
      '2025-03-01T00:00:00.000Z',
      '2025-03-01T23:59:59.999Z',
      '2025-03-02T00:00:00.000Z',
      '2025-02-28T23:59:59.999Z',
      '1969-12-31T23:59:59.999Z',
      '1969-12-31T00:00:00.000Z',
      '1970-01-01T00:00:00.000Z',
      '2025-03-01T12:00:00.000Z',
    ];
    expect(days.map((at) => utcDay(Date.parse(at)))).toEqual(days.map((at) => at.slice(0, 10)));
  });
});
