import type { ChatUsageRow, ChatUsageStore, TokenCounts } from './store.js';

/**
 * Usage in this process's memory: exact for one replica, per replica when several run without Redis. Keeps the
 * last `keepDays` days that saw traffic, so a long-running gateway does not grow without bound.
 */
export class InProcessChatUsageStore implements ChatUsageStore {
  private readonly days = new Map<string, Map<string, ChatUsageRow>>();

  /** @param keepDays days kept, newest first. @default 62 */
  constructor(private readonly keepDays = 62) {}

  async add(day: string, provider: string, model: string, usage: TokenCounts): Promise<void> {
    let rows = this.days.get(day);
    if (!rows) {
      rows = new Map();
      this.days.set(day, rows);
      this.forgetOldDays();
    }
    const key = `${provider}\u0000${model}`;
    let row = rows.get(key);
    if (!row) {
      row = { day, provider, model, promptTokens: 0, completionTokens: 0, totalTokens: 0, reasoningTokens: 0, requests: 0 };
      rows.set(key, row);
    }
    row.promptTokens += usage.promptTokens;
    row.completionTokens += usage.completionTokens;
    row.totalTokens += usage.totalTokens;
    row.reasoningTokens += usage.reasoningTokens;
    row.requests += 1;
  }

  async list(day: string): Promise<ChatUsageRow[]> {
    const rows = [...(this.days.get(day)?.values() ?? [])].map((r) => ({ ...r }));
    return rows.sort((a, b) => a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model));
  }

  async totalFor(day: string, provider: string): Promise<number> {
    let total = 0;
    for (const row of this.days.get(day)?.values() ?? []) if (row.provider === provider) total += row.totalTokens;
    return total;
  }

  private forgetOldDays(): void {
    const days = [...this.days.keys()].sort();
    for (const day of days.slice(0, Math.max(0, days.length - this.keepDays))) this.days.delete(day);
  }
}
