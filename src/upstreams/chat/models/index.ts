import { buildOffer, CONFIGURED, describe, retiredModel, type ListedModel, type ModelOffer, type OfferInput } from './offer.js';
import type { CatalogueModel, ChatModelSpec, RetiredModel } from './types.js';

export type { ModelSource, ListedModel } from './offer.js';
export type { CatalogueModel, ChatModelSpec, ProviderCatalogue, ReasoningSupport, RetiredModel } from './types.js';

/**
 * The models one provider offers now: the catalogue's until its `GET /models` has been read, then what it lists,
 * with the operator's names and facts on top (offer.ts). Lookups are by the caller's name or the upstream id.
 */
export class ChatModels {
  private offer: ModelOffer;
  private byName = new Map<string, ChatModelSpec>();
  /** The catalogue by model id, for raw names (Ark's dated model ids) it describes. */
  private readonly catalogued: ReadonlyMap<string, CatalogueModel>;
  private readonly known = new Set<string>();
  /** When the provider's list was last read; undefined while the catalogue stands in for it. */
  listedAt: number | undefined;

  constructor(
    private readonly input: Omit<OfferInput, 'listed'>,
    /** Raw names the provider takes as they are (Ark `ep-…` endpoints and dated model ids). */
    private readonly acceptsRaw: ((name: string) => boolean) | undefined,
    private readonly warn: (names: string[]) => void,
  ) {
    this.catalogued = new Map(input.catalogue.models.map((m) => [m.id, m]));
    this.offer = this.rebuild(undefined);
  }

  get list(): readonly ChatModelSpec[] {
    return this.offer.models;
  }

  /** The model offered under `name` (or its upstream id), or a raw name the provider accepts. */
  find(name: string): ChatModelSpec | undefined {
    const offered = this.byName.get(name);
    if (offered) return offered;
    // A legacy name the provider still serves with a newer model (DeepSeek's deepseek-v4-flash).
    const aliased = this.input.catalogue.models.find((m) => m.aliases?.includes(name));
    if (aliased && this.byName.has(aliased.id)) return this.byName.get(aliased.id);
    if (!this.acceptsRaw?.(name)) return undefined;
    return describe(this.input, this.catalogued, new Map(), name, name, 'operator', CONFIGURED, []);
  }

  retired(name: string): RetiredModel | undefined {
    return retiredModel(this.input.catalogue, this.offer.models, name);
  }

  /** Replaces the provider's list (read from its `GET /models`); names the catalogue does not know are logged once. */
  listed(models: readonly ListedModel[], at: number): void {
    this.listedAt = at;
    this.offer = this.rebuild(models);
  }

  private rebuild(listed: readonly ListedModel[] | undefined): ModelOffer {
    const offer = buildOffer({ ...this.input, listed });
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
