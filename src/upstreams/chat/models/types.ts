/**
 * The model catalogue's shapes: what the gateway knows of a provider's models before (or without) asking the provider,
 * each fact with the page it was read from. `offer.ts` merges it with the provider's own list and the operator's.
 */

/** Whether a model reasons before it answers: never, when asked, unless told not to, or always. */
export type ReasoningSupport = 'none' | 'optional-off' | 'optional-on' | 'always';

/** The facts a model is described by; each may be unknown (left out). */
export interface ModelFacts {
  /** Prompt plus answer, in tokens. */
  contextWindow?: number;
  /** The largest `maxTokens` (reasoning included) the provider accepts. */
  maxOutputTokens?: number;
  reasoning?: ReasoningSupport;
  /** Accepts image parts. */
  vision?: boolean;
  /** Takes function tools. */
  tools?: boolean;
  /** Takes `response_format` JSON object mode. */
  json?: boolean;
}

export type ModelFact = keyof ModelFacts;
export const MODEL_FACTS: readonly ModelFact[] = [
  'contextWindow',
  'maxOutputTokens',
  'reasoning',
  'vision',
  'tools',
  'json',
];

/** One model the catalogue describes. */
export interface CatalogueModel extends ModelFacts {
  id: string;
  /** Other names the provider serves with this model (DeepSeek's legacy `deepseek-v4-flash`). */
  aliases?: readonly string[];
  /** Takes `ChatReasoningInput.effort`. @default false */
  effort?: boolean;
  /** Refuses any temperature or top_p but its own (Kimi K2.6 fixes them). @default false */
  fixedSampling?: boolean;
  /** GLM: streams tool-call arguments in fragments when asked (`tool_stream`). @default false */
  toolStream?: boolean;
  /** The day (YYYY-MM-DD) from which the vendor calls it deprecated: completions then carry a `MODEL_RETIRING` warning. */
  deprecatedOn?: string;
  /** The day (YYYY-MM-DD) the vendor stops serving it, when announced. */
  retiresOn?: string;
  /** What to move to, a catalogue model of the same provider that is not itself retiring (test/upstreams/chat/catalogue.test.ts). */
  successor?: string;
  /** Where the facts were read, and when: `https://vendor/page (read 2026-11-26)`. */
  source: string;
}

/** A name the provider no longer serves: refused before any request, naming what replaced it. */
export interface RetiredModel {
  id: string;
  successor: string;
  /** Since when the provider refuses it (a date as the vendor wrote it). */
  since: string;
  /** What the caller should also change when moving (e.g. the reasoning switch), in a few words. */
  note?: string;
  source: string;
}

export interface ProviderCatalogue {
  models: readonly CatalogueModel[];
  retired: readonly RetiredModel[];
}

/**
 * Where a model, or one fact of it, comes from: the catalogue (with CHAT_MODEL_CATALOGUE_FILE laid over it), the
 * provider's `GET /models`, `<ID>_MODELS`, or learned from the provider's refusal of a field the gateway added itself.
 */
export type ModelSource = 'catalogue' | 'provider' | 'operator' | 'learned';

/** What a provider's refusal taught the gateway of one model (kept in shared state, learned.ts). */
export interface LearnedFacts {
  /** `thinking: {type: "disabled"}` was refused: the model always reasons. */
  reasoning?: 'always';
  /** `tool_stream` was refused. */
  toolStream?: false;
}

/** A model the vendor has deprecated: from when, until when it is served, and what replaces it. */
export interface Deprecation {
  deprecatedOn: string;
  retiresOn?: string;
  successor?: string;
}

/** One model a provider offers, with what the gateway knows of it and where each fact came from (offer.ts). */
export interface ChatModelSpec {
  /** The name callers use. */
  id: string;
  /** What goes upstream as `model` (Ark: the inference endpoint id). @default id */
  upstreamModel?: string;
  /** Accepts image parts; undefined when unknown (then images go to the provider, whose answer decides). */
  vision?: boolean;
  /** Prompt plus answer, in tokens; undefined when unknown (then the provider's own count decides). */
  contextWindow?: number;
  /** The largest `maxTokens` (reasoning included) the provider accepts; undefined when unknown. */
  maxOutputTokens?: number;
  /** Undefined when unknown: the caller's reasoning goes as asked, the gateway adds no switch of its own. */
  reasoning?: ReasoningSupport;
  tools: boolean;
  /** Takes JSON object mode (`response_format`). */
  json: boolean;
  /** Takes a reasoning effort; undefined when unknown (then the caller's effort goes to the provider). */
  effort?: boolean;
  /** Refuses any temperature or top_p but its own (Kimi K2.6). */
  fixedSampling: boolean;
  /** GLM: streams tool-call arguments in fragments when asked (`tool_stream`). */
  toolStream: boolean;
  /** Why it is offered: in the catalogue, listed by the provider, or named by the operator. */
  offeredBy: ModelSource;
  /** Where each known fact came from. */
  factSources: Partial<Record<ModelFact, ModelSource>>;
  /** The vendor page behind the catalogue's facts, with the day it was read. */
  reference?: string;
  /** Set when the catalogue marks it deprecated. */
  deprecation?: Deprecation;
  /** Where `toolStream` came from, when not the catalogue's default. */
  toolStreamSource?: ModelSource;
}
