import type { ChatProviderName, SandboxModel } from './models.js';
import type { FinishCause } from './generator.js';
import type { MediaProvider } from './media.js';
import type { ChatRequest, ErrorReply, Problem, RequestLimits } from './chatRequest.js';

export type { ErrorReply } from './chatRequest.js';

/** Token counts of one answer. */
export interface UsageCounts {
  prompt: number;
  completion: number;
  /** Of `completion`, the `reasoning_content` tokens. */
  reasoning: number;
  /** Of `prompt`, those served from the prefix cache. */
  cached: number;
}

/** Where a stream carries `usage`, decided per request. */
export interface UsagePlacement {
  /** On the last chunk: at top level (GLM) or inside `choices[0]` (Moonshot). */
  last?: 'top' | 'choice';
  /** An extra `choices: []` chunk with usage before `[DONE]` (`stream_options.include_usage`). */
  extraChunk?: boolean;
  /** Cumulative usage on every chunk (Ark `chunk_include_usage`). */
  everyChunk?: boolean;
  /** `usage: null` on the chunks without usage (OpenAI style when usage was asked for). */
  nullElsewhere?: boolean;
}

/** Everything in which one provider differs from the shared OpenAI-style core. */
export interface ChatProvider {
  name: ChatProviderName;
  models: readonly SandboxModel[];
  limits: RequestLimits;
  /** Rules only this provider has, checked after the shared parse and before the model. */
  validate?(req: ChatRequest): Problem | undefined;
  /** This provider's status, error envelope and headers for a problem. */
  reject(problem: Problem, requestId: string): ErrorReply;
  /** This provider's envelope for a status injected by a sandbox fault. */
  faultReply(status: number, requestId: string): ErrorReply;
  /** The `finish_reason` spelling of each cause this provider reports. */
  finishReasons: Readonly<Partial<Record<FinishCause, string>>>;
  /** Causes that a trigger marker in a user message may force (see index.ts). */
  triggers: ReadonlySet<FinishCause>;
  /** A fresh completion id in this provider's format. */
  newId(nowMs: number): string;
  /** The `usage` object in this provider's shape. */
  usage(u: UsageCounts): Record<string, unknown>;
  shape: {
    /** Adds `object: "chat.completion"` / `"chat.completion.chunk"`. GLM's older captures have none. */
    object: boolean;
    /** GLM repeats the id as `request_id` in non-streaming bodies. */
    requestIdField?: boolean;
    systemFingerprint?: string;
    /** Ark: `service_tier` on every body and chunk. */
    serviceTier?: string;
    /** DeepSeek and Ark: `logprobs: null` in every choice. */
    logprobsNull?: boolean;
    /** `created` on each `GET /models` entry (DeepSeek's list has none). @default true */
    modelsCreated?: boolean;
    /** GLM repeats `role: "assistant"` in every delta; the others send it once, in a first empty chunk. */
    roleInEveryDelta: boolean;
    /** GLM leaves `finish_reason` out of intermediate chunks; the others send `null`. */
    omitNullFinishReason: boolean;
    usagePlacement(req: ChatRequest): UsagePlacement;
    /** Streams tool-call arguments in fragments; otherwise the whole call arrives in one delta. @default always */
    streamsToolArguments?(req: ChatRequest): boolean;
    /** DeepSeek: an SSE `: keep-alive` comment first and after every this many data events. */
    keepAliveEvery?: number;
    /** DeepSeek: non-streaming bodies are preceded by empty keep-alive lines. */
    keepAliveLines?: boolean;
    /** GLM: the in-band error event a stream sends when inference breaks (then the stream ends, no `[DONE]`). */
    inBandError?(requestId: string): unknown;
  };
  /** Moonshot: `X-RateLimit-*` headers on answers while a limit is set. */
  rateLimitHeaders?: boolean;
  /** The `reasoning_effort` values it takes, each with the effort it really gets; undefined = it ignores the field. */
  efforts?: Readonly<Record<string, string>>;
  /** While thinking: refuses a forced `tool_choice`, and an assistant tool-call turn without `reasoning_content`. */
  strictThinking?: boolean;
  /**
   * A model that always reasons answers `thinking: {type: "disabled"}` with a 400 (Kimi); elsewhere the switch is
   * accepted and ignored (GLM-5.3 [third party, live probe 2026-10-19]).
   */
  refusesThinkingOff?: boolean;
  /** Takes `response_format: {type: "json_schema"}` (Ark); the others refuse it. */
  jsonSchema?: boolean;
  /** JSON object mode needs the word "json" in a system or user message (DeepSeek). */
  jsonNeedsWord?: boolean;
  /** Does not take `max_completion_tokens`: the field is ignored (DeepSeek). */
  ignoresMaxCompletionTokens?: boolean;
  /** Prompt caching: a repeated prefix is served from cache in blocks of this many tokens. */
  cacheBlock: number;
  /** GLM and Ark: embeddings and image generation (see media.ts). */
  media?: MediaProvider;
  /** Kimi: the files API that extracts documents' text, and the token count (see files.ts). */
  files?: boolean;
}
