import { Counter } from 'prom-client';
import { ErrorCode, upstreamError } from '../../../errors/codes.js';
import type { GatewayServices } from '../../../context/services.js';
import { CountersChatUsageStore } from './countersStore.js';
import { utcDay, type ChatUsageRow, type ChatUsageStore, type TokenCounts } from './store.js';

/** Whose log a line goes to: the request context, whose logger (made on first use) carries its requestId. */
type LoggingCaller = { readonly log: GatewayServices['log'] };
/** How one attempt at one target ended: the `outcome` label of `gateway_chat_attempts_total`. */
/** The `upstreamCode` of a refusal for a spent `<ID>_DAILY_TOKEN_BUDGET` (fallbacks.ts moves on to the next target). */
export const DAILY_TOKEN_BUDGET = 'DAILY_TOKEN_BUDGET';

export type AttemptOutcome =
  | 'served'
  | 'rate_limited'
  | 'quota_exhausted'
  | 'budget_exhausted'
  | 'timeout'
  | 'upstream_error'
  | 'circuit_open'
  | 'refused'
  | 'cancelled';

/** The usage the providers report, in whichever of our shapes (completion, embeddings, images). */
export interface ReportedUsage {
  promptTokens?: number;
  completionTokens?: number;
  totalTokens: number;
  reasoningTokens?: number | null;
  cachedPromptTokens?: number | null;
}

/**
 * The chat platform's books: every call's tokens per provider, model and UTC day (store and Prometheus), every
 * attempt's outcome, and the daily token budgets checked before a call is sent.
 */
export class ChatLedger {
  private readonly modelLabels = new Set<string>();

  constructor(
    private readonly store: ChatUsageStore,
    private readonly budgets: ReadonlyMap<string, number>,
    private readonly counters: {
      tokens: Counter<'provider' | 'model' | 'kind'>;
      attempts: Counter<'provider' | 'model' | 'outcome'>;
    },
    private readonly log: GatewayServices['log'],
    /** CHAT_CACHED_TOKEN_WEIGHT: what one cached prompt token counts against a budget. */
    private readonly cachedWeight = 1,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts one served call. A store that fails is logged (on the caller's log, with its requestId), never the caller's
   * problem: the answer is already made.
   */
  async record(provider: string, model: string, usage: ReportedUsage, caller?: LoggingCaller): Promise<void> {
    const counts: TokenCounts = {
      promptTokens: usage.promptTokens ?? 0,
      completionTokens: usage.completionTokens ?? 0,
      totalTokens: usage.totalTokens,
      reasoningTokens: usage.reasoningTokens ?? 0,
      cachedPromptTokens: usage.cachedPromptTokens ?? 0,
    };
    const labels = { provider, model: this.modelLabel(model) };
    this.counters.tokens.inc({ ...labels, kind: 'prompt' }, counts.promptTokens);
    this.counters.tokens.inc({ ...labels, kind: 'completion' }, counts.completionTokens);
    if (counts.reasoningTokens) this.counters.tokens.inc({ ...labels, kind: 'reasoning' }, counts.reasoningTokens);
    if (counts.cachedPromptTokens) this.counters.tokens.inc({ ...labels, kind: 'cached' }, counts.cachedPromptTokens);
    try {
      await this.store.add(utcDay(this.now()), provider, model, counts);
    } catch (error) {
      (caller?.log ?? this.log).error({ provider, model, err: error }, 'chat usage could not be recorded');
    }
  }

  attempt(provider: string, model: string, outcome: AttemptOutcome): void {
    this.counters.attempts.inc({ provider, model: this.modelLabel(model), outcome });
  }

  /** Refuses with UPSTREAM_QUOTA_EXHAUSTED, before anything is sent, once `provider`'s budget for today is spent. */
  /** Whether `provider` has a daily token budget to check (`ensureBudget` then reads the books). */
  budgeted(provider: string): boolean {
    return this.budgets.has(provider);
  }

  async ensureBudget(provider: string, caller?: LoggingCaller): Promise<void> {
    const budget = this.budgets.get(provider);
    if (budget === undefined) return;
    let spent: number;
    try {
      spent = await this.store.totalFor(utcDay(this.now()), provider, this.cachedWeight);
    } catch (error) {
      // Without the books the gateway cannot know; it lets the call go rather than stop every completion.
      (caller?.log ?? this.log).warn({ provider, err: error }, 'chat usage unreadable; daily token budget not checked');
      return;
    }
    if (spent < budget) return;
    const variable = `${provider.toUpperCase().replace(/-/g, '_')}_DAILY_TOKEN_BUDGET`;
    throw upstreamError(
      ErrorCode.UpstreamQuotaExhausted,
      `The gateway's daily token budget for ${provider} (${variable}=${budget}) is spent: ${spent} tokens today (UTC, cached prompt tokens at CHAT_CACHED_TOKEN_WEIGHT=${this.cachedWeight}). Retry after midnight UTC, use another provider, or raise ${variable}.`,
      { upstream: provider, upstreamCode: DAILY_TOKEN_BUDGET },
    );
  }

  list(day: string): Promise<ChatUsageRow[]> {
    return this.store.list(day);
  }

  /** Model names reach labels from callers (raw `ep-` ids): past 200 distinct ones they count as `other`. */
  private modelLabel(model: string): string {
    if (this.modelLabels.has(model)) return model;
    if (this.modelLabels.size >= 200) return 'other';
    this.modelLabels.add(model);
    return model;
  }
}

declare module '../../../context/services.js' {
  interface DomainServices {
    /** The chat platform's books and daily token budgets. */
    chatUsage: ChatLedger;
  }
}

/**
 * The gateway's ledger, built at start-up (domains/index.ts), on the shared state's daily counters: in this process,
 * or in Redis with `REDIS_URL`, so that replicas share one day's books and one budget.
 */
export function createChatLedger(s: Pick<GatewayServices, 'metrics' | 'config' | 'state' | 'log'>): ChatLedger {
  const registers = [s.metrics.registry];
  const tokens = new Counter({
    name: 'gateway_chat_tokens_total',
    help: 'Tokens the chat providers reported, by provider, model and kind (prompt, completion, reasoning, cached: prompt tokens served from the cache)',
    labelNames: ['provider', 'model', 'kind'] as const,
    registers,
  });
  const attempts = new Counter({
    name: 'gateway_chat_attempts_total',
    help: 'Calls to a chat provider target (fallbacks included), by provider, model and outcome',
    labelNames: ['provider', 'model', 'outcome'] as const,
    registers,
  });
  const budgets = new Map<string, number>();
  for (const c of s.config.chat) if (c.dailyTokenBudget !== undefined) budgets.set(c.id, c.dailyTokenBudget);
  return new ChatLedger(
    new CountersChatUsageStore(s.state.dailyCounters('chat-usage')),
    budgets,
    { tokens, attempts },
    s.log,
    s.config.chatCachedTokenWeight,
  );
}
