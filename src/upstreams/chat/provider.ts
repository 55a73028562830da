import type { ErrorCode } from '../../errors/codes.js';
import type { ChatModelSpec, ProviderCatalogue } from './models/types.js';
import type { ChatReasoningEffort, ChatRequest, FinishReason } from './types.js';

export type { ChatModelSpec } from './models/types.js';

/** An embedding model: how many texts one call takes, and the output sizes it offers. */
export interface EmbeddingModelSpec {
  id: string;
  /** What goes upstream as `model` (Ark: the endpoint id). @default id */
  upstreamModel?: string;
  /** Texts per call; longer inputs are sent in batches of this many. */
  maxInputs: number;
  /** Vector sizes `dimensions` may ask for; undefined = not adjustable (embedding-2) or left to the provider. */
  dimensions?: readonly number[];
  /** Whether `dimensions` goes upstream at all. @default true when `dimensions` lists more than one size */
  acceptsDimensions?: boolean;
}

/** An image model: the sizes and answer formats it takes. Each call makes one image. */
export interface ImageModelSpec {
  id: string;
  upstreamModel?: string;
  /** A check of `size` (e.g. `1024x1024`), with what to say when it fails. */
  size: { test(size: string): boolean; hint: string };
  /** `url`, and `b64_json` where the provider can answer with the image itself. */
  formats: ReadonlyArray<'url' | 'b64_json'>;
}

/**
 * A files API that extracts the text of uploaded documents (Kimi's `POST /files` with `purpose=file-extract`,
 * `GET /files/{id}/content`, `GET /files`, `DELETE /files/{id}`), with the limits its documentation states.
 */
export interface FilesApiSpec {
  /** Files one account may hold. */
  maxFiles: number;
  /** Bytes of one file. */
  maxFileBytes: number;
  /** Bytes of every file together. */
  maxTotalBytes: number;
  /** File name extensions it extracts text from, lower case with the dot (`.pdf`). */
  extensions: ReadonlySet<string>;
}

/** The provider's error body, whatever its envelope, reduced to what the mapping needs. */
export interface UpstreamErrorBody {
  /** Its own code: GLM business code, Ark `code`, DeepSeek `code` or `type`, Moonshot `type`. */
  code?: string;
  type?: string;
  message?: string;
}

/**
 * Everything in which one provider differs from the OpenAI-compatible baseline: its catalog, its limits, how the
 * request body is adjusted, which finish reasons it has and how its error codes read.
 */
export interface ChatProviderSpec {
  id: string;
  /** P, Q, R, S for the four built in; undefined for providers added by configuration. */
  variant?: string;
  /** Appended to the base URL. @default '/chat/completions' */
  path?: string;
  /** What the gateway knows of its models before asking it (models/<provider>.ts). */
  catalogue: ProviderCatalogue;
  /** Also accept model names outside the offer, as they are (Ark `ep-…` endpoint ids and dated model ids). */
  acceptsRawModel?(model: string): boolean;
  temperature: { min: number; max: number };
  /** Most `stop` sequences. @default 4 */
  maxStop?: number;
  /** Length bounds of `user` (GLM's `user_id`: 6..128). */
  userLength?: { min: number; max: number };
  /** Tool-choice forms the provider understands. */
  toolChoices: ReadonlyArray<'none' | 'auto' | 'required' | 'named'>;
  /**
   * How a reasoning choice goes on the wire: the switch (`thinking`) and the effort, each translated to what the
   * provider takes. Undefined: the provider has no switch the gateway knows (then reasoning is its default).
   */
  reasoning?: {
    toggle(body: Record<string, unknown>, enabled: boolean): void;
    /** Efforts the provider takes, each as it spells it (one it lacks is refused); undefined = no effort setting. */
    efforts?: Readonly<Partial<Record<ChatReasoningEffort, string>>>;
  };
  /** Refuses a forced `tool_choice` (required or named) while reasoning (DeepSeek, Kimi). @default false */
  refusesForcedToolChoiceWhileReasoning?: boolean;
  /** Needs an assistant turn's `reasoning_content` sent back with its tool calls while reasoning (DeepSeek, Kimi). @default false */
  needsReasoningWithToolCalls?: boolean;
  /** Takes `response_format: {type: "json_schema"}` itself (Ark); the others get JSON object mode and the gateway checks. */
  jsonSchema?: boolean;
  /** JSON object mode needs the word "json" in the prompt (DeepSeek). @default false */
  jsonNeedsWord?: boolean;
  /** Where `maxTokens` goes: `max_tokens`, or `max_completion_tokens` where only that one covers reasoning (Ark). @default 'max_tokens' */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Checks `user` beyond its length (DeepSeek `user_id`: letters, digits, `_` and `-`). */
  userPattern?: { test(user: string): boolean; hint: string };
  /** Reads its rate-limit headers on every answer and waits when they say none is left (Kimi). @default false */
  rateLimitHeaders?: boolean;
  /** Adjusts the OpenAI-style body built from `req` (rename, drop or add fields). */
  adjustBody?(body: Record<string, unknown>, req: ChatRequest, stream: boolean, model: ChatModelSpec | undefined): void;
  /** Asks for usage in streams with `stream_options.include_usage`. */
  streamUsageOption: boolean;
  /** Its `finish_reason` spellings beyond the OpenAI ones (`stop`, `length`, `tool_calls`, `content_filter`). */
  finishReasons?: Readonly<Record<string, FinishReason>>;
  /** The contract code for one of its errors; undefined falls back to the HTTP status. */
  classifyError?(status: number, error: UpstreamErrorBody): ErrorCode | undefined;
  /** Its request id, when the error carries one in the message (Ark). */
  requestIdFrom?(error: UpstreamErrorBody): string | undefined;
  /** Where the provider keeps documents and extracts their text itself (Kimi); elsewhere the gateway extracts it. */
  files?: FilesApiSpec;
  /** `POST {base}/tokenizers/estimate-token-count` counts a prompt's tokens with the provider's own tokenizer (Kimi). @default false */
  countsTokens?: boolean;
  /** `POST {base}/embeddings`, where the provider serves it. */
  embeddings?: { models: EmbeddingModelSpec[]; raw?(model: string): EmbeddingModelSpec | undefined };
  /** `POST {base}/images/generations`, where the provider serves it. */
  images?: { models: ImageModelSpec[]; raw?(model: string): ImageModelSpec | undefined };
}
