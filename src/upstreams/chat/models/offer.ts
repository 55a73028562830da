import type { ChatProviderConfig } from '../../../config/env.js';
import {
  MODEL_FACTS,
  type CatalogueModel,
  type ChatModelSpec,
  type LearnedFacts,
  type ModelFact,
  type ModelFacts,
  type ModelSource,
  type ProviderCatalogue,
  type RetiredModel,
} from './types.js';

export type { ModelSource } from './types.js';

/** A model as the provider's `GET /models` lists it, with the facts the listing carries (Kimi: window, images, reasoning). */
export interface ListedModel extends ModelFacts {
  id: string;
}

/**
 * What a model offered for a name not in the catalogue is taken to be: tools and JSON mode as every provider here has
 * them, and nothing else. Its window, images, reasoning and effort stay unknown: the caller's request goes to the
 * provider as asked (no switch, effort or refusal of the gateway's own), and the provider's answer decides.
 */
export const UNKNOWN: Readonly<Pick<ModelFacts, 'tools' | 'json'>> = { tools: true, json: true };

/** Config-added OpenAI-compatible providers: their models are the operator's, as unknown as UNKNOWN's (not logged). */
export const CONFIGURED: typeof UNKNOWN = { tools: true, json: true };

export interface OfferInput {
  catalogue: ProviderCatalogue;
  /** Operator names for provider model ids (Ark endpoints): name → upstream id. */
  names: Readonly<Record<string, string>>;
  /** Whether `names` come from the operator (ARK_ENDPOINTS) or the sandbox account. */
  namesSource: ModelSource;
  /** `<ID>_MODELS` and `<ID>_CONTEXT_WINDOWS`, by name: facts laid over the others. */
  operator: Readonly<Record<string, ModelFacts>>;
  /** The names `<ID>_MODELS` describes: offered even when the provider does not list them. */
  operatorNames: readonly string[];
  /** Names the operator lists for a config-added provider (CHAT_PROVIDERS). */
  configured?: readonly string[];
  /** The provider's own list, when it was read. */
  listed?: readonly ListedModel[];
  /** What the provider's refusals taught the gateway, by upstream model id (learned.ts). */
  learned?: ReadonlyMap<string, LearnedFacts>;
}

/** The models one provider offers right now, with where each came from; rebuilt when its `GET /models` is read. */
export interface ModelOffer {
  models: ChatModelSpec[];
  /** Names the catalogue or the listing knew nothing of (logged once each). */
  unknown: string[];
}

function fromCatalogue(entry: CatalogueModel | undefined): {
  facts: ModelFacts;
  sources: Partial<Record<ModelFact, ModelSource>>;
} {
  const facts: ModelFacts = {};
  const sources: Partial<Record<ModelFact, ModelSource>> = {};
  for (const fact of MODEL_FACTS) {
    if (entry?.[fact] === undefined) continue;
    (facts as Record<string, unknown>)[fact] = entry[fact];
    sources[fact] = 'catalogue';
  }
  return { facts, sources };
}

function overlay(
  into: { facts: ModelFacts; sources: Partial<Record<ModelFact, ModelSource>> },
  facts: ModelFacts | undefined,
  source: ModelSource,
): void {
  for (const fact of MODEL_FACTS) {
    if (facts?.[fact] === undefined) continue;
    (into.facts as Record<string, unknown>)[fact] = facts[fact];
    into.sources[fact] = source;
  }
}

/** One offered model: the catalogue's facts, then the listing's, then the operator's, over `defaults`. */
export function describe(
  input: Pick<OfferInput, 'operator' | 'learned'>,
  byName: ReadonlyMap<string, CatalogueModel>,
  listedById: ReadonlyMap<string, ListedModel>,
  id: string,
  upstreamModel: string,
  offeredBy: ModelSource,
  defaults: typeof UNKNOWN,
  unknown: string[],
): ChatModelSpec {
  const entry = byName.get(upstreamModel) ?? byName.get(id);
  const merged = fromCatalogue(entry);
  overlay(merged, listedById.get(upstreamModel), 'provider');
  const operator = input.operator[id] ?? input.operator[upstreamModel];
  overlay(merged, operator, 'operator');
  // Learned from the provider's own refusal: it wins over what anyone wrote down.
  const learned = input.learned?.get(upstreamModel);
  if (learned?.reasoning) overlay(merged, { reasoning: learned.reasoning }, 'learned');
  if (!entry && !operator && defaults === UNKNOWN) unknown.push(id);
  const facts: ModelFacts = { ...defaults, ...merged.facts };
  const toolStream = learned?.toolStream ?? entry?.toolStream ?? false;
  return {
    id,
    ...(upstreamModel !== id ? { upstreamModel } : {}),
    vision: facts.vision,
    contextWindow: facts.contextWindow,
    maxOutputTokens: facts.maxOutputTokens,
    reasoning: facts.reasoning,
    tools: facts.tools ?? true,
    json: facts.json ?? true,
    // Known for a catalogue model (absent: it takes none); unknown for any other, so the caller's effort is sent.
    effort: entry ? (entry.effort ?? false) : undefined,
    fixedSampling: entry?.fixedSampling ?? false,
    toolStream,
    ...(learned?.toolStream === false ? { toolStreamSource: 'learned' as const } : {}),
    offeredBy,
    factSources: merged.sources,
    reference: entry?.source,
    ...(entry?.deprecatedOn
      ? { deprecation: { deprecatedOn: entry.deprecatedOn, retiresOn: entry.retiresOn, successor: entry.successor } }
      : {}),
  };
}

/**
 * Builds the offer: the provider's list when it was read (else the catalogue), the operator's names (Ark endpoints,
 * config-added models, `<ID>_MODELS`) on top; facts from the catalogue, then the listing, then the operator, each
 * later one winning. A retired name is left out unless the provider still lists it or the operator names it.
 */
export function buildOffer(input: OfferInput): ModelOffer {
  const { catalogue, listed } = input;
  const byName = new Map<string, CatalogueModel>();
  for (const m of catalogue.models) for (const name of [m.id, ...(m.aliases ?? [])]) byName.set(name, m);
  const listedById = new Map((listed ?? []).map((m) => [m.id, m]));
  const out = new Map<string, ChatModelSpec>();
  const unknown: string[] = [];

  const add = (id: string, upstreamModel: string, offeredBy: ModelSource, defaults: typeof UNKNOWN) => {
    if (out.has(id)) return;
    out.set(id, describe(input, byName, listedById, id, upstreamModel, offeredBy, defaults, unknown));
  };

  for (const [name, id] of Object.entries(input.names)) add(name, id, input.namesSource, UNKNOWN);
  for (const name of input.configured ?? []) add(name, name, 'operator', CONFIGURED);
  const ids = new Set(Object.values(input.names));
  if (listed) {
    // A listed endpoint id is callable as it is; only names (ARK_ENDPOINTS) and model ids are offered.
    for (const m of listed)
      if (!ids.has(m.id) && !m.id.startsWith('ep-'))
        add(m.id, m.id, 'provider', input.configured ? CONFIGURED : UNKNOWN);
  } else if (!input.configured) {
    // Ark's catalogue also describes endpoints; those are offered only under the names ARK_ENDPOINTS gives them.
    for (const m of catalogue.models)
      if (!ids.has(m.id) && !m.id.startsWith('ep-')) add(m.id, m.id, 'catalogue', UNKNOWN);
  }
  for (const name of input.operatorNames)
    if (!out.has(name) && !ids.has(name)) add(name, name, 'operator', input.configured ? CONFIGURED : UNKNOWN);
  return { models: [...out.values()], unknown };
}

/** The retired entry for `name`, unless the offer still has it (listed by the provider, or named by the operator). */
export function retiredModel(
  catalogue: ProviderCatalogue,
  offer: readonly ChatModelSpec[],
  name: string,
): RetiredModel | undefined {
  const retired = catalogue.retired.find((r) => r.id === name);
  return retired && !offer.some((m) => m.id === name || m.upstreamModel === name) ? retired : undefined;
}

/** The catalogue entry a name or alias belongs to. */
export function catalogueEntry(catalogue: ProviderCatalogue, name: string): CatalogueModel | undefined {
  return catalogue.models.find((m) => m.id === name || m.aliases?.includes(name));
}

/** `<ID>_MODELS` and `<ID>_CONTEXT_WINDOWS` of one provider, as facts by model name. */
export function operatorFacts(config: ChatProviderConfig): Record<string, ModelFacts> {
  const out: Record<string, ModelFacts> = {};
  for (const [name, window] of Object.entries(config.contextWindows)) out[name] = { contextWindow: window };
  for (const [name, facts] of Object.entries(config.modelFacts ?? {})) out[name] = { ...out[name], ...facts };
  return out;
}
