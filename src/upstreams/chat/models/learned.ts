import type { SharedCache } from '../../../state/index.js';
import type { LearnedFacts } from './types.js';

/** How long a learned fact stands: a provider that starts taking the field again is heard from within a day. */
export const LEARNED_TTL_MS = 24 * 3_600_000;

/**
 * What providers' refusals taught the gateway of their models, shared by the replicas (a shared cache, entry
 * `<provider>/<model>`): a replica that learns that a model refuses a field it added keeps the others from sending
 * it too. Each replica reads an entry once and then answers from its own copy while the entry lives.
 */
export class LearnedFactsStore {
  constructor(
    private readonly cache: SharedCache<LearnedFacts>,
    private readonly provider: string,
  ) {}

  recall(model: string): Promise<LearnedFacts | undefined> {
    return this.cache.get(this.key(model));
  }

  async recallAll(models: readonly string[]): Promise<Map<string, LearnedFacts>> {
    await this.cache.prefetch(models.map((m) => this.key(m)));
    const out = new Map<string, LearnedFacts>();
    for (const m of models) {
      const facts = this.cache.local(this.key(m), false);
      if (facts) out.set(m, facts);
    }
    return out;
  }

  record(model: string, facts: LearnedFacts): Promise<void> {
    return this.cache.set(this.key(model), facts, LEARNED_TTL_MS);
  }

  private key(model: string): string {
    return `${this.provider}/${model}`;
  }
}
