import type { LearnedFactsStore } from './learned.js';
import {
  buildOffer,
  CONFIGURED,
  describe,
  retiredModel,
  type ListedModel,
  type ModelOffer,
  type OfferInput,
} from './offer.js';
import type { CatalogueModel, ChatModelSpec, LearnedFacts, ProviderCatalogue, RetiredModel } from './types.js';

export type { ModelSource, ListedModel } from './offer.js';
export type {
  CatalogueModel,
  ChatModelSpec,
  Deprecation,
  LearnedFacts,
  ProviderCatalogue,
  ReasoningSupport,
  RetiredModel,
} from './types.js';

/**
 * The models one provider offers now: the catalogue's until its `GET /models` has been read, then what it lists,
 * with the operator's names and facts on top and what the provider's refusals taught on top of all (offer.ts).
 * Lookups are by the caller's name or the upstream id.
 */
export class ChatModels {
  private offer: ModelOffer;
  private byName = new Map<string, ChatModelSpec>();
  /** The catalogue by model id, for raw names (Ark's dated model ids) it describes. */
  private catalogued: ReadonlyMap<string, CatalogueModel> = new Map();
  private readonly known = new Set<string>();
  private readonly learnedFacts = new Map<string, LearnedFacts>();
  private listedModels: readonly ListedModel[] | undefined;
  /** When the provider's list was last read; undefined while the catalogue stands in for it. */
  listedAt: number | undefined;

  constructor(
    private input: Omit<OfferInput, 'listed' | 'learned'>,
    /** Raw names the provider takes as they are (Ark `ep-…` endpoints and dated model ids). */
    private readonly acceptsRaw: ((name: string) => boolean) | undefined,
    private readonly warn: (names: string[]) => void,
    /** Where learned facts are shared with the other replicas; undefined: none are kept. */
    private readonly learnedStore?: LearnedFactsStore,
  ) {
    this.offer = this.rebuild();
  }

  get list(): readonly ChatModelSpec[] {
    return this.offer.models;
  }

  get catalogue(): ProviderCatalogue {
    return this.input.catalogue;
  }

  /** The model offered under `name` (or its upstream id), or a raw name the provider accepts. */
  find(name: string): ChatModelSpec | undefined {
    const offered = this.byName.get(name);
    if (offered) return offered;
    // A legacy name the provider still serves with a newer model (DeepSeek's deepseek-v4-flash).
    const aliased = this.input.catalogue.models.find((m) => m.aliases?.includes(name));
    if (aliased && this.byName.has(aliased.id)) return this.byName.get(aliased.id);
    if (!this.acceptsRaw?.(name)) return undefined;
    return describe(
      { ...this.input, learned: this.learnedFacts },
      this.catalogued,
      new Map(),
      name,
      name,
      'operator',
      CONFIGURED,
      [],
    );
  }

  retired(name: string): RetiredModel | undefined {
    return retiredModel(this.input.catalogue, this.offer.models, name);
  }

  /** Replaces the provider's list (read from its `GET /models`); names the catalogue does not know are logged once. */
  listed(models: readonly ListedModel[], at: number): void {
    this.listedAt = at;
    this.listedModels = models;
    this.offer = this.rebuild();
  }

  /** Replaces the catalogue (CHAT_MODEL_CATALOGUE_FILE laid over the built-in one, read again). */
  setCatalogue(catalogue: ProviderCatalogue): void {
    if (catalogue === this.input.catalogue) return;
    this.input = { ...this.input, catalogue };
    this.offer = this.rebuild();
  }

  /**
   * Takes what the replicas have learned of the model behind `name` (shared state) before a call is planned: one
   * lookup, answered from this replica's copy while it lives.
   */
  async recall(name: string): Promise<void> {
    const model = this.find(name);
    if (!model || !this.learnedStore) return;
    const id = model.upstreamModel ?? model.id;
    this.take(id, await this.learnedStore.recall(id));
  }

  /** Takes what the replicas have learned of every offered model (chatProviders): one round trip. */
  async recallAll(): Promise<void> {
    if (!this.learnedStore) return;
    const ids = this.offer.models.map((m) => m.upstreamModel ?? m.id);
    const found = await this.learnedStore.recallAll(ids);
    for (const id of ids) this.take(id, found.get(id));
  }

  /** Records a fact a provider's refusal taught, here and for every replica. */
  async learn(upstreamModel: string, facts: LearnedFacts): Promise<void> {
    this.take(upstreamModel, { ...this.learnedFacts.get(upstreamModel), ...facts });
    await this.learnedStore?.record(upstreamModel, this.learnedFacts.get(upstreamModel)!);
  }

  /** Adopts the shared entry of `id`; none (it expired, LEARNED_TTL_MS) drops this replica's copy too. */
  private take(id: string, facts: LearnedFacts | undefined): void {
    if (JSON.stringify(facts) === JSON.stringify(this.learnedFacts.get(id))) return;
    if (facts) this.learnedFacts.set(id, facts);
    else this.learnedFacts.delete(id);
    this.offer = this.rebuild();
  }

  private rebuild(): ModelOffer {
    this.catalogued = new Map(this.input.catalogue.models.map((m) => [m.id, m]));
    const offer = buildOffer({ ...this.input, listed: this.listedModels, learned: this.learnedFacts });
    this.byName = new Map();
    for (const m of offer.models) {
      this.byName.set(m.id, m);
      if (m.upstreamModel && !this.byName.has(m.upstreamModel)) this.byName.set(m.upstreamModel, m);
    }
    const fresh = offer.unknown.filter((n) => !this.known.has(n));
    for (const n of offer.unknown) this.known.add(n);
    if (fresh.length) this.warn(fresh);
    return offer;
  }
}
