import type { DailyCounters } from '../../../state/index.js';
import type { ChatUsageRow, ChatUsageStore, TokenCounts } from './store.js';

/** The counters of one provider and model on one day (names kept short: they are Redis hash fields). */
const COUNTERS = ['prompt', 'completion', 'reasoning', 'total', 'requests', 'cached'] as const;

/**
 * Usage as daily counters of the shared state (`chat-usage`, entry `<provider>/<model>`): in this process without
 * `REDIS_URL`, in Redis with it, so every replica adds to one day's books and checks one budget. Provider ids hold
 * no `/` (config), so the first one splits an entry back; model ids may hold more.
 */
export class CountersChatUsageStore implements ChatUsageStore {
  constructor(private readonly counters: DailyCounters) {}

  add(day: string, provider: string, model: string, usage: TokenCounts): Promise<void> {
    return this.counters.add(day, `${provider}/${model}`, {
      prompt: usage.promptTokens,
      completion: usage.completionTokens,
      reasoning: usage.reasoningTokens,
      total: usage.totalTokens,
      requests: 1,
      cached: usage.cachedPromptTokens,
    });
  }

  async list(day: string): Promise<ChatUsageRow[]> {
    const rows: ChatUsageRow[] = [];
    for (const [entry, c] of await this.counters.read(day)) {
      const at = entry.indexOf('/');
      const [prompt, completion, reasoning, total, requests, cached] = COUNTERS.map((name) => c[name] ?? 0);
      rows.push({
        day,
        provider: entry.slice(0, at),
        model: entry.slice(at + 1),
        promptTokens: prompt,
        completionTokens: completion,
        totalTokens: total,
        reasoningTokens: reasoning,
        cachedPromptTokens: cached,
        requests,
      });
    }
    return rows.sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model));
  }

  async totalFor(day: string, provider: string, cachedWeight: number): Promise<number> {
    let total = 0;
    for (const [entry, c] of await this.counters.read(day, { forLimit: true })) {
      if (entry.startsWith(`${provider}/`)) total += (c.total ?? 0) - (1 - cachedWeight) * (c.cached ?? 0);
    }
    return Math.round(total);
  }
}
