/**
 * Token accounting per provider, model and UTC day: what `chatUsage` lists, what `<ID>_DAILY_TOKEN_BUDGET` is checked
 * against, and what replicas share. `CountersChatUsageStore` keeps it in the shared state's daily counters (in
 * process, or Redis when `REDIS_URL` is set); test/domains/chat/usage/store.test.ts runs one suite over both.
 */

/** Tokens of one completion (or one embeddings / image call), as the provider reported them. */
export interface TokenCounts {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Of `completionTokens`, the reasoning ones; 0 where the provider does not say. */
  reasoningTokens: number;
  /** Of `promptTokens`, those served from the provider's cache; 0 where it does not say. */
  cachedPromptTokens: number;
}

/** One provider and model on one day: summed tokens and the number of calls counted. */
export interface ChatUsageRow extends TokenCounts {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  provider: string;
  model: string;
  requests: number;
}

export interface ChatUsageStore {
  /** Adds one call's tokens (and one request) to the day's row of `provider` and `model`. */
  add(day: string, provider: string, model: string, usage: TokenCounts): Promise<void>;
  /** The day's rows, ordered by provider then model. */
  list(day: string): Promise<ChatUsageRow[]>;
  /**
   * The day's tokens of `provider`, all models, as its daily budget counts them: each cached prompt token counts
   * `cachedWeight` (CHAT_CACHED_TOKEN_WEIGHT), every other token 1.
   */
  totalFor(day: string, provider: string, cachedWeight: number): Promise<number>;
}

const DAY_MS = 86_400_000;
/** The last day asked for, kept: every chat stream's end asks for today's (a Date and two strings each time). */
let day = { from: 0, to: 0, text: '' };

/** The UTC day of `ms` as `YYYY-MM-DD`. */
export function utcDay(ms: number = Date.now()): string {
  if (ms >= day.from && ms < day.to) return day.text;
  const from = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
  day = { from, to: from + DAY_MS, text: new Date(ms).toISOString().slice(0, 10) };
  return day.text;
}
