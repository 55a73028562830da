export type Maybe<T> = T | null | undefined;
export type InputMaybe<T> = T | null | undefined;
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** A calendar day, `YYYY-MM-DD` (chat usage is counted per UTC day). */
  Date: { input: string; output: string; }
  /** An ISO-8601 date and time with offset, e.g. `2021-03-04T05:06:07Z`. */
  DateTime: { input: string; output: string; }
  /** Any JSON value (object, array, string, number, boolean or null), given and returned as JSON, not as text. */
  JSON: { input: unknown; output: unknown; }
  /** A JSON object, given and returned as a JSON value (not as text). */
  JSONObject: { input: unknown; output: unknown; }
  /** A file of a GraphQL multipart request (github.com/jaydenseric/graphql-multipart-request-spec); given as a variable only. */
  Upload: { input: unknown; output: unknown; }
};

/** Health data changes within minutes: answers stay fresh for 60 s (a caller's own `Authorization` makes them private). */
export type Admin = {
  __typename?: 'Admin';
  /** Entity tag of the current version: pass it as `ifMatch`. */
  etag?: Maybe<Scalars['String']['output']>;
  /** Primitive properties stored on the singleton (values as strings). */
  properties?: Maybe<Array<OpenProperty>>;
  serviceAnnouncement: ServiceAnnouncement;
};

export type AdminInput = {
  properties: Array<OpenPropertyInput>;
};

export type BodyType =
  | 'HTML'
  | 'TEXT'
  | 'UNKNOWN_FUTURE_VALUE';

/** Who may keep an answer: `PUBLIC` (any cache, a CDN's included) or `PRIVATE` (only the caller's own). */
export type CacheControlScope =
  | 'PRIVATE'
  | 'PUBLIC';

/** One target tried for a completion, in order. */
export type ChatAttempt = {
  __typename?: 'ChatAttempt';
  /** The error code it failed with; null for the target that served. */
  code?: Maybe<Scalars['String']['output']>;
  model: Scalars['String']['output'];
  outcome: ChatAttemptOutcome;
  provider: Scalars['ID']['output'];
};

export type ChatAttemptOutcome =
  /** The gateway's `<ID>_DAILY_TOKEN_BUDGET`. */
  | 'BUDGET_EXHAUSTED'
  | 'CANCELLED'
  | 'CIRCUIT_OPEN'
  /** The provider's own quota or balance. */
  | 'QUOTA_EXHAUSTED'
  | 'RATE_LIMITED'
  /** Refused for a reason another target would not fix (not tried further). */
  | 'REFUSED'
  | 'SERVED'
  | 'TIMEOUT'
  | 'UPSTREAM_ERROR';

export type ChatCapabilities = {
  __typename?: 'ChatCapabilities';
  /** The largest context window of its models, in tokens; null when unknown. */
  contextWindow?: Maybe<Scalars['Int']['output']>;
  streaming: Scalars['Boolean']['output'];
  temperatureMax: Scalars['Float']['output'];
  /** Temperatures the provider accepts. */
  temperatureMin: Scalars['Float']['output'];
  tools: Scalars['Boolean']['output'];
  /** True when at least one model accepts image parts. */
  vision: Scalars['Boolean']['output'];
};

export type ChatChoice = {
  __typename?: 'ChatChoice';
  finishReason?: Maybe<ChatFinishReason>;
  index: Scalars['Int']['output'];
  message: ChatMessage;
};

export type ChatCompletion = {
  __typename?: 'ChatCompletion';
  /** Every target tried, the serving one last. */
  attempts: Array<ChatAttempt>;
  choices: Array<ChatChoice>;
  /** The first choice's text (null when it only calls tools). */
  content?: Maybe<Scalars['String']['output']>;
  /** Unix time in seconds, as the provider stamped it. */
  created: Scalars['Int']['output'];
  /** `graphTools`: each operation the model called, in order (empty without graph tools). */
  graphSteps: Array<ChatGraphStep>;
  /** The provider's completion id. */
  id: Scalars['ID']['output'];
  /** With a JSON `responseFormat`: the answer parsed (and checked against the schema); null when it was not valid. */
  json?: Maybe<Scalars['JSON']['output']>;
  /** Why `json` is null: the answer was not JSON, was cut by `maxTokens`, or did not match the schema. */
  jsonError?: Maybe<Scalars['String']['output']>;
  /** The model that served it, by the name the caller uses (Ark: not the endpoint id). */
  model: Scalars['String']['output'];
  /** The provider that served it (with fallbacks or a route, the target that answered). */
  provider: Scalars['ID']['output'];
  /** Whether the model reasoned for this answer (the model's default, or `reasoning.enabled`). */
  reasoningUsed: Scalars['Boolean']['output'];
  usage: ChatTokenUsage;
};

export type ChatCompletionChunk = {
  __typename?: 'ChatCompletionChunk';
  delta: ChatDelta;
  /** Set on the last chunk only. */
  finishReason?: Maybe<ChatFinishReason>;
  /** `graphTools`: set on the chunk that reports one operation the model called and its result. */
  graphStep?: Maybe<ChatGraphStep>;
  id: Scalars['ID']['output'];
  /** The choice this delta belongs to. */
  index: Scalars['Int']['output'];
  /** Set on the last chunk only, with a JSON `responseFormat`: the whole answer parsed. */
  json?: Maybe<Scalars['JSON']['output']>;
  /** Set on the last chunk only: why `json` is null. */
  jsonError?: Maybe<Scalars['String']['output']>;
  /** The model serving it, by the caller's name. */
  model: Scalars['String']['output'];
  /** The provider serving this stream (with fallbacks or a route, the target that answered). */
  provider: Scalars['ID']['output'];
  /** Set on the last chunk only: whether the model reasoned. */
  reasoningUsed?: Maybe<Scalars['Boolean']['output']>;
  /** Set on the last chunk only. */
  usage?: Maybe<ChatTokenUsage>;
};

export type ChatCompletionInput = {
  /**
   * Ids of the caller's documents (`uploadChatDocument`) whose extracted text the model reads: each as a system message
   * after the caller's own leading system messages, as Kimi asks for its files. Counted by the context-window check
   * with the document's `tokens` before any request; the text is read from the provider once, then kept in the shared
   * cache (`CHAT_DOCUMENT_CACHE_MAX_BYTES`). At most 20.
   */
  documents?: InputMaybe<Array<Scalars['ID']['input']>>;
  /**
   * Targets to try in order when the one before fails before its first token with a rate limit, exhausted quota or
   * daily token budget, a 5xx, a timeout or an open circuit. Never after output has started. At most 6 targets in all.
   */
  fallbacks?: InputMaybe<Array<ChatTarget>>;
  /**
   * Names of trusted operations (the /mcp tools of `MCP_OPERATIONS`) the model may call. The gateway offers them as
   * function tools, runs the model's calls itself with the caller's credentials and limits, feeds the results back and
   * loops to a final answer: at most `CHAT_GRAPH_TOOL_MAX_STEPS` provider requests and `CHAT_GRAPH_TOOL_MAX_CALLS`
   * operations per completion (then finish `GRAPH_TOOL_LIMIT`). Not combined with `tools`.
   */
  graphTools?: InputMaybe<Array<Scalars['String']['input']>>;
  /**
   * Everything the model generates, reasoning included, is capped at this many tokens (sent as `max_tokens` to GLM,
   * DeepSeek and Kimi, whose `max_tokens` covers reasoning, and as `max_completion_tokens` to Ark, whose `max_tokens`
   * does not). From 1 up to the model's `maxOutputTokens`.
   */
  maxTokens?: InputMaybe<Scalars['Int']['input']>;
  /** At least one message, oldest first. */
  messages: Array<ChatMessageInput>;
  /** One of the provider's `models`. */
  model: Scalars['String']['input'];
  /** A `ChatProvider.id`, or `route:<name>` for a route of `CHAT_ROUTES` (then `model` is `"auto"`). */
  provider: Scalars['ID']['input'];
  /**
   * Reasoning before the answer: on or off, and how much. Left out, the model's default applies (see
   * `ChatModel.reasoning`); `ChatCompletion.reasoningUsed` says which was used. DeepSeek and Kimi refuse a forced
   * `toolChoice` while reasoning: with `enabled` left out the gateway then turns reasoning off for that call; with
   * `enabled: true` the request is refused.
   */
  reasoning?: InputMaybe<ChatReasoningInput>;
  /**
   * JSON output. JSON_SCHEMA goes to Ark as a schema; elsewhere the model is asked for a JSON object matching it (the
   * schema is added as a system message) and the gateway checks the answer against it. The parsed value is
   * `ChatCompletion.json`.
   */
  responseFormat?: InputMaybe<ChatResponseFormatInput>;
  /** Up to 4 sequences (GLM: 1) that end the answer. */
  stop?: InputMaybe<Array<Scalars['String']['input']>>;
  /** GLM and Moonshot 0..1, Ark and DeepSeek 0..2. */
  temperature?: InputMaybe<Scalars['Float']['input']>;
  /** Which tool the model may call; needs `tools` unless the mode is NONE. */
  toolChoice?: InputMaybe<ChatToolChoiceInput>;
  tools?: InputMaybe<Array<ChatToolInput>>;
  /** 0..1. */
  topP?: InputMaybe<Scalars['Float']['input']>;
  /** An id of the end user, for the provider's abuse monitoring (DeepSeek `user_id`: letters, digits, `_` and `-`, also isolating its cache). */
  user?: InputMaybe<Scalars['String']['input']>;
};

export type ChatContentPartInput = {
  /** IMAGE_URL parts: an https URL or a `data:image/…;base64,…` URL. */
  imageUrl?: InputMaybe<Scalars['String']['input']>;
  /** TEXT parts: the text. */
  text?: InputMaybe<Scalars['String']['input']>;
  type: ChatContentPartType;
};

export type ChatContentPartType =
  | 'IMAGE_URL'
  | 'TEXT';

export type ChatDelta = {
  __typename?: 'ChatDelta';
  content?: Maybe<Scalars['String']['output']>;
  reasoningContent?: Maybe<Scalars['String']['output']>;
  role?: Maybe<ChatRole>;
  toolCalls?: Maybe<Array<ChatToolCallDelta>>;
};

/** A document uploaded for chat completions: its text is extracted once and placed in the prompt of every completion that names it. */
export type ChatDocument = {
  __typename?: 'ChatDocument';
  /** Size of the file as uploaded. */
  bytes: Scalars['Int']['output'];
  createdAt: Scalars['DateTime']['output'];
  fileName: Scalars['String']['output'];
  /** Give it in `ChatCompletionInput.documents`. */
  id: Scalars['ID']['output'];
  /**
   * The provider named at upload: `moonshot` keeps the file and extracted its text; for any other (or none, null) the
   * gateway extracted the text and keeps it. Either way the document works on every provider.
   */
  provider?: Maybe<Scalars['ID']['output']>;
  status: ChatDocumentStatus;
  /**
   * Tokens of its extracted text in a prompt, as the provider's own token count says where it has one (Kimi), else the
   * gateway's estimate: what the context-window check adds for it.
   */
  tokens: Scalars['Int']['output'];
};

export type ChatDocumentStatus =
  /** Its text can be used. */
  | 'READY'
  /** The provider no longer has the file (deleted outside the gateway): delete the document and upload the file again. */
  | 'UNAVAILABLE';

/** Why the answer ended, the same for every provider. */
export type ChatFinishReason =
  /** The provider's moderation stopped the answer (GLM `sensitive`, `content_filter`). */
  | 'CONTENT_FILTER'
  /** The conversation no longer fits the model's context window. */
  | 'CONTEXT_WINDOW_EXCEEDED'
  /** `graphTools`: the model still called operations when the step or call bound ran out; the gateway stopped it. */
  | 'GRAPH_TOOL_LIMIT'
  /** `maxTokens` ran out. */
  | 'LENGTH'
  /** A reason this gateway does not know yet. */
  | 'OTHER'
  /** The model finished, or hit a `stop` sequence. */
  | 'STOP'
  /** The model asks for tool calls (Ark's `function_call` too). */
  | 'TOOL_CALLS'
  /** Inference failed on the provider's side (GLM `network_error`, DeepSeek `insufficient_system_resource`). */
  | 'UPSTREAM_ERROR';

/** One call of a trusted operation the model made through `graphTools`, run by the gateway. */
export type ChatGraphStep = {
  __typename?: 'ChatGraphStep';
  /** Its variables as the model wrote them (JSON text). */
  arguments: Scalars['String']['output'];
  /** The error code when the call was refused or failed (then the model was told why). */
  errorCode?: Maybe<Scalars['String']['output']>;
  /** The trusted operation called. */
  operation: Scalars['String']['output'];
  /** The start of the result fed back to the model (JSON text, at most 500 characters). */
  result: Scalars['String']['output'];
  /** The model's tool-call id. */
  toolCallId: Scalars['String']['output'];
  /** The model turn (provider request) that asked for it, from 1. */
  turn: Scalars['Int']['output'];
};

export type ChatMessage = {
  __typename?: 'ChatMessage';
  content?: Maybe<Scalars['String']['output']>;
  /** The model's reasoning before the answer; send it back as `ChatMessageInput.reasoningContent` with this turn. */
  reasoningContent?: Maybe<Scalars['String']['output']>;
  role: ChatRole;
  toolCalls?: Maybe<Array<ChatToolCall>>;
};

export type ChatMessageInput = {
  /** The text. Give either `content` or `parts`. */
  content?: InputMaybe<Scalars['String']['input']>;
  name?: InputMaybe<Scalars['String']['input']>;
  /** Text and image parts, for models with vision. */
  parts?: InputMaybe<Array<ChatContentPartInput>>;
  /**
   * ASSISTANT messages: the reasoning the model returned with this turn (`ChatMessage.reasoningContent`), sent back
   * as it came. DeepSeek and Kimi need it on every turn with tool calls while reasoning; it is refused elsewhere.
   */
  reasoningContent?: InputMaybe<Scalars['String']['input']>;
  role: ChatRole;
  /** Required for TOOL messages: the `ChatToolCall.id` this message answers. */
  toolCallId?: InputMaybe<Scalars['String']['input']>;
  /** ASSISTANT messages: the tool calls the model made, as returned earlier. */
  toolCalls?: InputMaybe<Array<ChatToolCallInput>>;
};

export type ChatModel = {
  __typename?: 'ChatModel';
  /** Prompt plus answer, in tokens; null when unknown (then the provider's own count decides). */
  contextWindow?: Maybe<Scalars['Int']['output']>;
  /** The day (YYYY-MM-DD) from which the vendor calls it deprecated: completions on it then carry an `extensions.warnings` entry `MODEL_RETIRING`. */
  deprecatedOn?: Maybe<Scalars['String']['output']>;
  /** Where each fact above came from; null where the fact is unknown or a default stands in. */
  factSources: ChatModelFactSources;
  id: Scalars['String']['output'];
  /** Takes `responseFormat` JSON_OBJECT and JSON_SCHEMA. */
  json: Scalars['Boolean']['output'];
  /** The largest `maxTokens` accepted, reasoning included; null when unknown. */
  maxOutputTokens?: Maybe<Scalars['Int']['output']>;
  /**
   * Whether it reasons before it answers, and whether `reasoning.enabled` can change that; null when unknown (then the
   * caller's `reasoning` goes to the provider as asked, and the gateway adds no switch of its own).
   */
  reasoning?: Maybe<ChatReasoningSupport>;
  /** Takes `reasoning.effort`; null when unknown (then the caller's effort goes to the provider as asked). */
  reasoningEffort?: Maybe<Scalars['Boolean']['output']>;
  /** The vendor page the catalogue's facts were read from, with the date; null for models the catalogue does not describe. */
  reference?: Maybe<Scalars['String']['output']>;
  /** The day (YYYY-MM-DD) the vendor stops serving it, when announced. */
  retiresOn?: Maybe<Scalars['String']['output']>;
  /** Why it is offered: in the gateway's catalogue, listed by the provider's `GET /models`, or named in `<ID>_MODELS` (or `ARK_ENDPOINTS`). */
  source: ChatModelSource;
  /** The model to move to (of the same provider, not itself retiring). */
  successor?: Maybe<Scalars['String']['output']>;
  /** GLM: tool-call arguments stream in fragments (the gateway asks with `tool_stream`). */
  toolStream: Scalars['Boolean']['output'];
  /** Takes `tools` (and `graphTools`). */
  tools: Scalars['Boolean']['output'];
  /** What the gateway sends upstream as `model` (Ark: the inference endpoint id, an account's own). Inaccessible through a router. */
  upstreamModel: Scalars['String']['output'];
  /** Accepts image parts; null when unknown (then images go to the provider as sent, and its answer decides). */
  vision?: Maybe<Scalars['Boolean']['output']>;
};

export type ChatModelFactSources = {
  __typename?: 'ChatModelFactSources';
  contextWindow?: Maybe<ChatModelSource>;
  json?: Maybe<ChatModelSource>;
  maxOutputTokens?: Maybe<ChatModelSource>;
  reasoning?: Maybe<ChatModelSource>;
  toolStream?: Maybe<ChatModelSource>;
  tools?: Maybe<ChatModelSource>;
  vision?: Maybe<ChatModelSource>;
};

export type ChatModelSource =
  /** The gateway's model catalogue (src/upstreams/chat/models), each fact with the vendor page it was read from, with `CHAT_MODEL_CATALOGUE_FILE` laid over it. */
  | 'CATALOGUE'
  /** Learned from the provider's refusal of a field the gateway added itself (shared by every replica for a day; logged when learned). */
  | 'LEARNED'
  /** The operator: `<ID>_MODELS`, `<ID>_CONTEXT_WINDOWS`, `ARK_ENDPOINTS` or `CHAT_PROVIDERS`. */
  | 'OPERATOR'
  /** The provider's own `GET /models`. */
  | 'PROVIDER';

export type ChatProvider = {
  __typename?: 'ChatProvider';
  capabilities: ChatCapabilities;
  /** `glm`, `ark`, `deepseek`, `moonshot`, or the id of a provider from `CHAT_PROVIDERS`. */
  id: Scalars['ID']['output'];
  /** True when the provider's credentials are configured; false when the built-in sandbox answers. */
  live: Scalars['Boolean']['output'];
  /** Requests the gateway has open to it at most (`CHAT_PROVIDER_MAX_CONNECTIONS`): DeepSeek limits concurrency, not requests per minute. */
  maxConcurrentRequests: Scalars['Int']['output'];
  /** The same models with what each can do. */
  modelDetails: Array<ChatModel>;
  /** Model names accepted in `ChatCompletionInput.model`. Ark also accepts a raw inference endpoint id `ep-…`. */
  models: Array<Scalars['String']['output']>;
  /** When its `GET /models` was last read (live mode, every `CHAT_MODELS_REFRESH_MS`); null while the catalogue stands in (sandbox mode, or no answer yet). */
  modelsListedAt?: Maybe<Scalars['DateTime']['output']>;
  /** Requests per minute the gateway sends at most (`<ID>_RPM`); null when unlimited. */
  requestsPerMinute?: Maybe<Scalars['Int']['output']>;
  /** P (glm), Q (ark), R (deepseek), S (moonshot); null for providers added by configuration. */
  variant?: Maybe<Scalars['String']['output']>;
};

/** Each provider's own scale, mapped: DeepSeek low/low/high/high/max, Ark minimal/low/medium/high/max, GLM low/low/high/high/max. */
export type ChatReasoningEffort =
  | 'HIGH'
  | 'LOW'
  | 'MAX'
  | 'MEDIUM'
  | 'MINIMAL';

export type ChatReasoningInput = {
  /** How much to reason, where the model takes it (`ChatModel.reasoningEffort`); implies `enabled` unless it is false (then refused). */
  effort?: InputMaybe<ChatReasoningEffort>;
  /** True: reason (refused on NONE models); false: answer at once (refused on ALWAYS models). Left out: the model's default. */
  enabled?: InputMaybe<Scalars['Boolean']['input']>;
};

export type ChatReasoningSupport =
  /** Always reasons: `reasoning.enabled: false` is refused. */
  | 'ALWAYS'
  /** Never reasons: `reasoning.enabled: true` is refused. */
  | 'NONE'
  /** Reasons only when `reasoning.enabled` is true. */
  | 'OPTIONAL_OFF'
  /** Reasons unless `reasoning.enabled` is false (the current models of all four providers). */
  | 'OPTIONAL_ON';

export type ChatResponseFormatInput = {
  /** JSON_SCHEMA: the JSON Schema the answer must match. */
  schema?: InputMaybe<Scalars['JSON']['input']>;
  /**
   * JSON_SCHEMA: an answer that does not match is an UPSTREAM_ERROR instead of `json: null` with `jsonError` (a whole
   * completion; a stream has sent the text already and says so in its last chunk's `jsonError`). Default true.
   */
  strict?: InputMaybe<Scalars['Boolean']['input']>;
  type: ChatResponseFormatType;
};

export type ChatResponseFormatType =
  /** Any one JSON object (DeepSeek asks for the word "json" in the prompt). */
  | 'JSON_OBJECT'
  /** One JSON object matching `schema`. */
  | 'JSON_SCHEMA'
  | 'TEXT';

export type ChatRole =
  | 'ASSISTANT'
  | 'SYSTEM'
  | 'TOOL'
  | 'USER';

/** One provider and model (or `route:<name>` and `"auto"`). */
export type ChatTarget = {
  model: Scalars['String']['input'];
  provider: Scalars['ID']['input'];
};

export type ChatTokenUsage = {
  __typename?: 'ChatTokenUsage';
  /** Of `promptTokens`, those the provider served from its prompt cache (billed lower); null where it does not say. */
  cachedPromptTokens?: Maybe<Scalars['Int']['output']>;
  completionTokens: Scalars['Int']['output'];
  promptTokens: Scalars['Int']['output'];
  /** Of `completionTokens`, the reasoning ones, where the provider reports them. */
  reasoningTokens?: Maybe<Scalars['Int']['output']>;
  totalTokens: Scalars['Int']['output'];
};

export type ChatToolCall = {
  __typename?: 'ChatToolCall';
  /** The arguments as JSON text, as the model wrote them. */
  arguments: Scalars['String']['output'];
  id: Scalars['ID']['output'];
  name: Scalars['String']['output'];
};

/** A fragment of a tool call: `id` and `name` arrive first, `arguments` in pieces to concatenate per `index`. */
export type ChatToolCallDelta = {
  __typename?: 'ChatToolCallDelta';
  arguments?: Maybe<Scalars['String']['output']>;
  id?: Maybe<Scalars['String']['output']>;
  index: Scalars['Int']['output'];
  name?: Maybe<Scalars['String']['output']>;
};

export type ChatToolCallInput = {
  /** The arguments as JSON text. */
  arguments: Scalars['String']['input'];
  id: Scalars['String']['input'];
  name: Scalars['String']['input'];
};

/** Give `mode`, or `name` to force one tool (not GLM). */
export type ChatToolChoiceInput = {
  mode?: InputMaybe<ChatToolChoiceMode>;
  name?: InputMaybe<Scalars['String']['input']>;
};

export type ChatToolChoiceMode =
  /** The model decides. */
  | 'AUTO'
  /** The model answers in text. */
  | 'NONE'
  /** The model must call a tool (not GLM, not Ark). */
  | 'REQUIRED';

export type ChatToolInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  /** The function name: letters, digits, `_` and `-`, up to 64. */
  name: Scalars['String']['input'];
  /** JSON Schema of the arguments. */
  parameters?: InputMaybe<Scalars['JSONObject']['input']>;
};

/** One provider and model on one UTC day. */
export type ChatUsage = {
  __typename?: 'ChatUsage';
  /** Of `promptTokens`, those served from the provider's cache: they count `CHAT_CACHED_TOKEN_WEIGHT` each against the daily budget. */
  cachedPromptTokens: Scalars['Int']['output'];
  completionTokens: Scalars['Int']['output'];
  day: Scalars['Date']['output'];
  model: Scalars['String']['output'];
  promptTokens: Scalars['Int']['output'];
  provider: Scalars['ID']['output'];
  reasoningTokens: Scalars['Int']['output'];
  /** Calls counted: completions, embedding batches, images. */
  requests: Scalars['Int']['output'];
  totalTokens: Scalars['Int']['output'];
};

export type CreateEmbeddingsInput = {
  /** Vector size, where the model offers a choice (embedding-3: 256, 512, 1024, 2048). */
  dimensions?: InputMaybe<Scalars['Int']['input']>;
  /** 1 to 2048 non-empty texts. */
  input: Array<Scalars['String']['input']>;
  /** GLM: `embedding-3`, `embedding-2`; Ark: an embedding endpoint of `ARK_ENDPOINTS` (a name containing `embedding`) or its id. */
  model: Scalars['String']['input'];
  /** `glm` or `ark`. */
  provider: Scalars['ID']['input'];
};

export type Embedding = {
  __typename?: 'Embedding';
  embedding: Array<Scalars['Float']['output']>;
  /** Position of the text in `input`. */
  index: Scalars['Int']['output'];
};

export type EmbeddingResult = {
  __typename?: 'EmbeddingResult';
  data: Array<Embedding>;
  model: Scalars['String']['output'];
  provider: Scalars['ID']['output'];
  /** Upstream calls it took. */
  requests: Scalars['Int']['output'];
  usage: EmbeddingUsage;
};

export type EmbeddingUsage = {
  __typename?: 'EmbeddingUsage';
  promptTokens: Scalars['Int']['output'];
  totalTokens: Scalars['Int']['output'];
};

export type GenerateImageInput = {
  /** GLM: `cogview-4`, `cogview-4-250304`, `cogview-3-flash`; Ark: a Seedream endpoint of `ARK_ENDPOINTS` (a name containing `seedream`) or its id. */
  model: Scalars['String']['input'];
  /** 1..4 images, one upstream call each. */
  n?: InputMaybe<Scalars['Int']['input']>;
  prompt: Scalars['String']['input'];
  /** `glm` or `ark`. */
  provider: Scalars['ID']['input'];
  responseFormat?: InputMaybe<ImageResponseFormat>;
  /** `WIDTHxHEIGHT` (GLM: 512..2048, multiples of 16), Ark also `1K`, `2K`, `4K`. Default: the provider's. */
  size?: InputMaybe<Scalars['String']['input']>;
};

export type GeneratedImage = {
  __typename?: 'GeneratedImage';
  b64Json?: Maybe<Scalars['String']['output']>;
  /** `WIDTHxHEIGHT` as made, where the provider says (Ark). */
  size?: Maybe<Scalars['String']['output']>;
  /** A link that the provider keeps for a limited time (GLM 30 days, Ark 24 hours). */
  url?: Maybe<Scalars['String']['output']>;
};

export type ImageContentFilter = {
  __typename?: 'ImageContentFilter';
  /** 0 (most severe) .. 3. */
  level: Scalars['Int']['output'];
  /** Where moderation looked: `user` (the prompt), `assistant` (the image), `history`. */
  role: Scalars['String']['output'];
};

export type ImageGeneration = {
  __typename?: 'ImageGeneration';
  /** GLM's moderation notes on the prompt or image; empty when there are none. */
  contentFilter: Array<ImageContentFilter>;
  /** Unix time in seconds, as the provider stamped it. */
  created: Scalars['Int']['output'];
  images: Array<GeneratedImage>;
  model: Scalars['String']['output'];
  provider: Scalars['ID']['output'];
  /** Ark: tokens billed for the images. */
  usage?: Maybe<ImageUsage>;
};

export type ImageResponseFormat =
  /** The image itself, base64 (Ark only). */
  | 'B64_JSON'
  | 'URL';

export type ImageUsage = {
  __typename?: 'ImageUsage';
  generatedImages: Scalars['Int']['output'];
  outputTokens: Scalars['Int']['output'];
  totalTokens: Scalars['Int']['output'];
};

export type ItemBody = {
  __typename?: 'ItemBody';
  content?: Maybe<Scalars['String']['output']>;
  contentType?: Maybe<BodyType>;
};

export type ItemBodyInput = {
  content: Scalars['String']['input'];
  contentType?: InputMaybe<BodyType>;
};

export type KeyValuePair = {
  __typename?: 'KeyValuePair';
  name: Scalars['String']['output'];
  value?: Maybe<Scalars['String']['output']>;
};

export type KeyValuePairInput = {
  name: Scalars['String']['input'];
  value: Scalars['String']['input'];
};

export type Mutation = {
  __typename?: 'Mutation';
  /** One chat completion, answered whole. Tool calls come back assembled, with their arguments as one JSON text. */
  createChatCompletion?: Maybe<ChatCompletion>;
  /**
   * Vectors for each text (GLM `embedding-3`/`embedding-2`, Ark `doubao-embedding` endpoints). More texts than the
   * model takes per call are sent in batches, in order.
   */
  createEmbeddings?: Maybe<EmbeddingResult>;
  createServiceHealth?: Maybe<ServiceHealth>;
  createServiceHealthIssue?: Maybe<ServiceHealthIssue>;
  /**
   * Deletes one of the caller's documents, and the provider's copy of the file. True once deleted; NOT_FOUND when the
   * caller has no document with this id.
   */
  deleteChatDocument?: Maybe<Scalars['Boolean']['output']>;
  /** Clears the serviceAnnouncement singleton's properties. `ifMatch` is an `etag` read before (or `*`). */
  deleteServiceAnnouncement?: Maybe<Scalars['Boolean']['output']>;
  /** True when deleted, false when there was no such service. */
  deleteServiceHealth?: Maybe<Scalars['Boolean']['output']>;
  /** Images from a prompt (GLM CogView, Ark Seedream endpoints): URLs, or base64 where the provider can (Ark). */
  generateImage?: Maybe<ImageGeneration>;
  /** Sets primitive properties on the admin singleton (an open type upstream). */
  updateAdmin?: Maybe<Admin>;
  /** Sets primitive properties on the serviceAnnouncement singleton (an open type upstream). */
  updateServiceAnnouncement?: Maybe<ServiceAnnouncement>;
  /** `ifMatch` is the `etag` read before; a stale one fails with PRECONDITION_FAILED. */
  updateServiceHealth?: Maybe<ServiceHealth>;
  /**
   * Uploads a long document once, to reference by id in later completions (`ChatCompletionInput.documents`) on any
   * provider. Sent as a GraphQL multipart request (Apollo Client's and urql's upload links; CSRF: with an
   * `Apollo-Require-Preflight` or `X-Apollo-Operation-Name` header), at most `CHAT_DOCUMENT_MAX_BYTES`. With
   * `provider: "moonshot"` the file goes to Kimi's files API, which extracts its text (PDF, Word, slides, images and
   * more); otherwise, or without `provider`, the gateway extracts the text itself (PDF, plain text, Markdown). Answers
   * once the text is extracted and counted.
   */
  uploadChatDocument?: Maybe<ChatDocument>;
};


export type MutationCreateChatCompletionArgs = {
  input: ChatCompletionInput;
};


export type MutationCreateEmbeddingsArgs = {
  input: CreateEmbeddingsInput;
};


export type MutationCreateServiceHealthArgs = {
  input: ServiceHealthInput;
};


export type MutationCreateServiceHealthIssueArgs = {
  input: ServiceHealthIssueInput;
  serviceHealthId: Scalars['ID']['input'];
};


export type MutationDeleteChatDocumentArgs = {
  id: Scalars['ID']['input'];
};


export type MutationDeleteServiceAnnouncementArgs = {
  ifMatch?: InputMaybe<Scalars['String']['input']>;
};


export type MutationDeleteServiceHealthArgs = {
  id: Scalars['ID']['input'];
  ifMatch?: InputMaybe<Scalars['String']['input']>;
};


export type MutationGenerateImageArgs = {
  input: GenerateImageInput;
};


export type MutationUpdateAdminArgs = {
  input: AdminInput;
};


export type MutationUpdateServiceAnnouncementArgs = {
  input: ServiceAnnouncementInput;
};


export type MutationUpdateServiceHealthArgs = {
  id: Scalars['ID']['input'];
  ifMatch?: InputMaybe<Scalars['String']['input']>;
  input: ServiceHealthPatch;
};


export type MutationUploadChatDocumentArgs = {
  file: Scalars['Upload']['input'];
  provider?: InputMaybe<Scalars['ID']['input']>;
};

/** A primitive property of an open type; numbers and booleans are given as their JSON text. */
export type OpenProperty = {
  __typename?: 'OpenProperty';
  name: Scalars['String']['output'];
  value?: Maybe<Scalars['String']['output']>;
};

export type OpenPropertyInput = {
  name: Scalars['String']['input'];
  /** Null clears the property. */
  value?: InputMaybe<Scalars['String']['input']>;
};

export type OrderDirection =
  | 'ASC'
  | 'DESC';

/** Relay's page info. Connections here page forward only (`first`/`after`): `hasPreviousPage` is true when the page was read with `after`. */
export type PageInfo = {
  __typename?: 'PageInfo';
  /** Pass as `after` to read the next page. */
  endCursor?: Maybe<Scalars['String']['output']>;
  hasNextPage: Scalars['Boolean']['output'];
  hasPreviousPage: Scalars['Boolean']['output'];
  /** The cursor of the page's first node; null for an empty page. */
  startCursor?: Maybe<Scalars['String']['output']>;
};

export type PlotLength =
  | 'FULL'
  | 'SHORT';

export type Query = {
  __typename?: 'Query';
  /** The tenant's administration singleton; reading only its children costs no request of its own. */
  admin: Admin;
  /**
   * The caller's own documents (the caller as the gateway tells callers apart: a router-named or verified subject, else
   * its API key, else its address; see docs/chat.md, "Documents"), newest first. Costs no upstream request.
   */
  chatDocuments?: Maybe<Array<ChatDocument>>;
  /**
   * The chat-completion providers this gateway can reach: the four built in (glm, ark, deepseek, moonshot) and any
   * OpenAI-compatible provider added through `CHAT_PROVIDERS`.
   */
  chatProviders: Array<ChatProvider>;
  /**
   * Tokens used per provider and model on one UTC day (default: today), streamed or not, embeddings and images
   * included: what `<ID>_DAILY_TOKEN_BUDGET` is checked against. Shared by all replicas when `REDIS_URL` is set.
   */
  chatUsage: Array<ChatUsage>;
  /**
   * One page (10 items) of OMDb's title search. Items carry `title`, `year`, `imdbId`, `type` and `posterUrl`
   * at no extra cost; any other field looks the title up (one upstream request per distinct title, then cached).
   */
  searchTitles?: Maybe<TitleSearchPage>;
  /**
   * One movie, series or episode from OMDb, by `imdbId` or by `title` (exactly one of the two); null when OMDb knows
   * no such title. `year` and `type` narrow a lookup by title.
   */
  title?: Maybe<Title>;
  /**
   * The upstream services behind this graph: whether each is live or served by the built-in sandbox, and where. Every
   * domain's upstreams, also when this instance serves only some domains (the instances of one deployment share their
   * upstream configuration).
   */
  upstreams: Array<Upstream>;
};


export type QueryChatUsageArgs = {
  day?: InputMaybe<Scalars['Date']['input']>;
};


export type QuerySearchTitlesArgs = {
  page?: InputMaybe<Scalars['Int']['input']>;
  query: Scalars['String']['input'];
  type?: InputMaybe<TitleType>;
  year?: InputMaybe<Scalars['Int']['input']>;
};


export type QueryTitleArgs = {
  imdbId?: InputMaybe<Scalars['ID']['input']>;
  plot?: InputMaybe<PlotLength>;
  title?: InputMaybe<Scalars['String']['input']>;
  type?: InputMaybe<TitleType>;
  year?: InputMaybe<Scalars['Int']['input']>;
};

export type ServiceAnnouncement = {
  __typename?: 'ServiceAnnouncement';
  etag?: Maybe<Scalars['String']['output']>;
  /** Null when the upstream says 404. `id` is the service id (`Exchange`) or its name (`Exchange Online`). */
  healthOverview?: Maybe<ServiceHealth>;
  healthOverviews?: Maybe<ServiceHealthConnection>;
  /** Every service's issues in one list. */
  issues?: Maybe<ServiceHealthIssueConnection>;
  /** Null when the upstream says 404. `id` looks like `MC172851`. */
  message?: Maybe<ServiceUpdateMessage>;
  /** Message center posts (service update messages) in one list. With `after`, the cursor's order and filter apply. */
  messages?: Maybe<ServiceUpdateMessageConnection>;
  properties?: Maybe<Array<OpenProperty>>;
};


export type ServiceAnnouncementHealthOverviewArgs = {
  id: Scalars['ID']['input'];
};


export type ServiceAnnouncementHealthOverviewsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<ServiceHealthOrder>>;
};


export type ServiceAnnouncementIssuesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<ServiceHealthIssueOrder>>;
};


export type ServiceAnnouncementMessageArgs = {
  id: Scalars['ID']['input'];
};


export type ServiceAnnouncementMessagesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<ServiceUpdateMessageFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<ServiceUpdateMessageOrder>>;
};

export type ServiceAnnouncementInput = {
  properties: Array<OpenPropertyInput>;
};

export type ServiceHealth = {
  __typename?: 'ServiceHealth';
  etag?: Maybe<Scalars['String']['output']>;
  id: Scalars['ID']['output'];
  /** Null when its own request fails; read with the service's request when asked for under `healthOverviews`. */
  issues?: Maybe<ServiceHealthIssueConnection>;
  service: Scalars['String']['output'];
  status: ServiceHealthStatus;
};


export type ServiceHealthIssuesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  orderBy?: InputMaybe<Array<ServiceHealthIssueOrder>>;
};

export type ServiceHealthChange = {
  __typename?: 'ServiceHealthChange';
  /** When the gateway's poll saw the change. */
  detectedAt: Scalars['DateTime']['output'];
  /** The issue, for the ISSUE_* kinds; null for STATUS_CHANGED. */
  issue?: Maybe<ServiceHealthIssue>;
  kind: ServiceHealthChangeKind;
  /** The service's status before (STATUS_CHANGED) or the issue's status before (ISSUE_UPDATED, ISSUE_RESOLVED). */
  previousStatus?: Maybe<ServiceHealthStatus>;
  /** The service as it is now; its fields resolve like any other ServiceHealth. */
  serviceHealth: ServiceHealth;
};

export type ServiceHealthChangeKind =
  /** A new issue appeared on the service. */
  | 'ISSUE_OPENED'
  /** An issue became resolved. */
  | 'ISSUE_RESOLVED'
  /** An issue changed (a new post, a new status) and is not resolved. */
  | 'ISSUE_UPDATED'
  /** The service's status changed (or a new service appeared: then `previousStatus` is null). */
  | 'STATUS_CHANGED';

export type ServiceHealthClassification =
  | 'ADVISORY'
  | 'INCIDENT'
  | 'UNKNOWN_FUTURE_VALUE';

export type ServiceHealthConnection = {
  __typename?: 'ServiceHealthConnection';
  edges: Array<ServiceHealthEdge>;
  nodes: Array<ServiceHealth>;
  pageInfo: PageInfo;
};

export type ServiceHealthEdge = {
  __typename?: 'ServiceHealthEdge';
  cursor: Scalars['String']['output'];
  node: ServiceHealth;
};

export type ServiceHealthInput = {
  /** Service id, e.g. `Exchange`: at most 128 characters without / \ ? # or %. */
  id: Scalars['ID']['input'];
  service: Scalars['String']['input'];
  /** @default SERVICE_OPERATIONAL upstream */
  status?: InputMaybe<ServiceHealthStatus>;
};

export type ServiceHealthIssue = {
  __typename?: 'ServiceHealthIssue';
  classification?: Maybe<ServiceHealthClassification>;
  details: Array<KeyValuePair>;
  endDateTime?: Maybe<Scalars['DateTime']['output']>;
  etag?: Maybe<Scalars['String']['output']>;
  feature?: Maybe<Scalars['String']['output']>;
  featureGroup?: Maybe<Scalars['String']['output']>;
  id: Scalars['ID']['output'];
  impactDescription?: Maybe<Scalars['String']['output']>;
  isResolved?: Maybe<Scalars['Boolean']['output']>;
  lastModifiedDateTime?: Maybe<Scalars['DateTime']['output']>;
  origin?: Maybe<ServiceHealthOrigin>;
  posts: Array<ServiceHealthIssuePost>;
  service?: Maybe<Scalars['String']['output']>;
  startDateTime?: Maybe<Scalars['DateTime']['output']>;
  status?: Maybe<ServiceHealthStatus>;
  title?: Maybe<Scalars['String']['output']>;
};

export type ServiceHealthIssueConnection = {
  __typename?: 'ServiceHealthIssueConnection';
  edges: Array<ServiceHealthIssueEdge>;
  nodes: Array<ServiceHealthIssue>;
  pageInfo: PageInfo;
};

export type ServiceHealthIssueEdge = {
  __typename?: 'ServiceHealthIssueEdge';
  cursor: Scalars['String']['output'];
  node: ServiceHealthIssue;
};

export type ServiceHealthIssueInput = {
  classification?: InputMaybe<ServiceHealthClassification>;
  details?: InputMaybe<Array<KeyValuePairInput>>;
  endDateTime?: InputMaybe<Scalars['DateTime']['input']>;
  feature?: InputMaybe<Scalars['String']['input']>;
  featureGroup?: InputMaybe<Scalars['String']['input']>;
  impactDescription?: InputMaybe<Scalars['String']['input']>;
  isResolved?: InputMaybe<Scalars['Boolean']['input']>;
  origin?: InputMaybe<ServiceHealthOrigin>;
  posts?: InputMaybe<Array<ServiceHealthIssuePostInput>>;
  startDateTime?: InputMaybe<Scalars['DateTime']['input']>;
  status?: InputMaybe<ServiceHealthStatus>;
  title: Scalars['String']['input'];
};

export type ServiceHealthIssueOrder = {
  direction?: InputMaybe<OrderDirection>;
  field: ServiceHealthIssueOrderField;
};

export type ServiceHealthIssueOrderField =
  | 'CLASSIFICATION'
  | 'END_DATE_TIME'
  | 'FEATURE'
  | 'FEATURE_GROUP'
  | 'ID'
  | 'IMPACT_DESCRIPTION'
  | 'IS_RESOLVED'
  | 'LAST_MODIFIED_DATE_TIME'
  | 'ORIGIN'
  | 'SERVICE'
  | 'START_DATE_TIME'
  | 'STATUS'
  | 'TITLE';

export type ServiceHealthIssuePost = {
  __typename?: 'ServiceHealthIssuePost';
  createdDateTime?: Maybe<Scalars['DateTime']['output']>;
  description?: Maybe<ItemBody>;
  postType?: Maybe<ServiceHealthIssuePostType>;
};

export type ServiceHealthIssuePostInput = {
  createdDateTime?: InputMaybe<Scalars['DateTime']['input']>;
  description: ItemBodyInput;
  postType?: InputMaybe<ServiceHealthIssuePostType>;
};

export type ServiceHealthIssuePostType =
  | 'QUICK'
  | 'REGULAR'
  | 'STRATEGIC'
  | 'UNKNOWN_FUTURE_VALUE';

export type ServiceHealthOrder = {
  direction?: InputMaybe<OrderDirection>;
  field: ServiceHealthOrderField;
};

export type ServiceHealthOrderField =
  | 'ID'
  | 'SERVICE'
  | 'STATUS';

export type ServiceHealthOrigin =
  | 'CUSTOMER'
  | 'MICROSOFT'
  | 'THIRD_PARTY'
  | 'UNKNOWN_FUTURE_VALUE';

export type ServiceHealthPatch = {
  service?: InputMaybe<Scalars['String']['input']>;
  status?: InputMaybe<ServiceHealthStatus>;
};

export type ServiceHealthStatus =
  | 'CONFIRMED'
  | 'EXTENDED_RECOVERY'
  | 'FALSE_POSITIVE'
  | 'INVESTIGATING'
  | 'INVESTIGATION_SUSPENDED'
  | 'MITIGATED'
  | 'MITIGATED_EXTERNAL'
  | 'POST_INCIDENT_REVIEW_PUBLISHED'
  | 'REPORTED'
  | 'RESOLVED'
  | 'RESOLVED_EXTERNAL'
  | 'RESTORING_SERVICE'
  | 'SERVICE_DEGRADATION'
  | 'SERVICE_INTERRUPTION'
  | 'SERVICE_OPERATIONAL'
  | 'SERVICE_RESTORED'
  /** A value this gateway does not know yet. */
  | 'UNKNOWN_FUTURE_VALUE'
  | 'VERIFYING_SERVICE';

export type ServiceUpdateCategory =
  | 'PLAN_FOR_CHANGE'
  | 'PREVENT_OR_FIX_ISSUE'
  | 'STAY_INFORMED'
  | 'UNKNOWN_FUTURE_VALUE';

/**
 * A Message center post. Read-only. Its attachments (`attachments`, `attachmentsArchive`) are not served by this
 * gateway; `hasAttachments` says whether there are any.
 */
export type ServiceUpdateMessage = {
  __typename?: 'ServiceUpdateMessage';
  /** When the change needs the tenant's action by, if it does. */
  actionRequiredByDateTime?: Maybe<Scalars['DateTime']['output']>;
  body?: Maybe<ItemBody>;
  category?: Maybe<ServiceUpdateCategory>;
  details: Array<KeyValuePair>;
  endDateTime?: Maybe<Scalars['DateTime']['output']>;
  /** Not in Graph's property table, but its example carries it. */
  expiryDateTime?: Maybe<Scalars['DateTime']['output']>;
  hasAttachments?: Maybe<Scalars['Boolean']['output']>;
  id: Scalars['ID']['output'];
  isMajorChange?: Maybe<Scalars['Boolean']['output']>;
  lastModifiedDateTime?: Maybe<Scalars['DateTime']['output']>;
  /** Names of the services concerned, e.g. `Exchange Online`. */
  services: Array<Scalars['String']['output']>;
  severity?: Maybe<ServiceUpdateSeverity>;
  startDateTime?: Maybe<Scalars['DateTime']['output']>;
  tags: Array<Scalars['String']['output']>;
  title?: Maybe<Scalars['String']['output']>;
  /** The signed-in user's view of the message; null under application permissions. */
  viewPoint?: Maybe<ServiceUpdateMessageViewpoint>;
};

export type ServiceUpdateMessageConnection = {
  __typename?: 'ServiceUpdateMessageConnection';
  edges: Array<ServiceUpdateMessageEdge>;
  nodes: Array<ServiceUpdateMessage>;
  pageInfo: PageInfo;
};

export type ServiceUpdateMessageEdge = {
  __typename?: 'ServiceUpdateMessageEdge';
  cursor: Scalars['String']['output'];
  node: ServiceUpdateMessage;
};

/** Every given condition must hold (`and`). */
export type ServiceUpdateMessageFilter = {
  category?: InputMaybe<ServiceUpdateCategory>;
  isMajorChange?: InputMaybe<Scalars['Boolean']['input']>;
  /** Messages that name this service among their `services`, e.g. `Exchange Online` (exact, as Graph compares). */
  service?: InputMaybe<Scalars['String']['input']>;
  severity?: InputMaybe<ServiceUpdateSeverity>;
  /** Messages carrying this tag, e.g. `Admin impact`. */
  tag?: InputMaybe<Scalars['String']['input']>;
};

export type ServiceUpdateMessageOrder = {
  direction?: InputMaybe<OrderDirection>;
  field: ServiceUpdateMessageOrderField;
};

export type ServiceUpdateMessageOrderField =
  | 'ACTION_REQUIRED_BY_DATE_TIME'
  | 'CATEGORY'
  | 'END_DATE_TIME'
  | 'HAS_ATTACHMENTS'
  | 'ID'
  | 'IS_MAJOR_CHANGE'
  | 'LAST_MODIFIED_DATE_TIME'
  | 'SEVERITY'
  | 'START_DATE_TIME'
  | 'TITLE';

export type ServiceUpdateMessageViewpoint = {
  __typename?: 'ServiceUpdateMessageViewpoint';
  isArchived?: Maybe<Scalars['Boolean']['output']>;
  isFavorited?: Maybe<Scalars['Boolean']['output']>;
  isRead?: Maybe<Scalars['Boolean']['output']>;
};

export type ServiceUpdateSeverity =
  | 'CRITICAL'
  | 'HIGH'
  | 'NORMAL'
  | 'UNKNOWN_FUTURE_VALUE';

export type Subscription = {
  __typename?: 'Subscription';
  /**
   * The same completion as `createChatCompletion`, token by token as the provider streams it. The last chunk always
   * carries `finishReason` and `usage`. Completing the subscription stops the provider's generation at once.
   */
  chatCompletionStream: ChatCompletionChunk;
  /**
   * The server's clock, every `intervalMs` milliseconds, `count` times (then the subscription completes).
   * Handy to check that a WebSocket connection works end to end.
   */
  serverTime: Scalars['DateTime']['output'];
  /**
   * Service health changes as they are detected: a service's status changed, or one of its issues was opened, updated
   * or resolved. `services` (ids such as `Exchange`, or names such as `Exchange Online`) limits it to those services;
   * leave it out for every service. Only changes detected after subscribing are sent.
   */
  serviceHealthChanged: ServiceHealthChange;
  /**
   * Message center posts as they are posted or updated. `services` (ids such as `Exchange`, or names such as
   * `Exchange Online`) limits it to posts about those services; leave it out for every post.
   */
  serviceMessagePosted: ServiceUpdateMessage;
};


export type SubscriptionChatCompletionStreamArgs = {
  input: ChatCompletionInput;
};


export type SubscriptionServerTimeArgs = {
  count?: InputMaybe<Scalars['Int']['input']>;
  intervalMs?: InputMaybe<Scalars['Int']['input']>;
};


export type SubscriptionServiceHealthChangedArgs = {
  services?: InputMaybe<Array<Scalars['ID']['input']>>;
};


export type SubscriptionServiceMessagePostedArgs = {
  services?: InputMaybe<Array<Scalars['ID']['input']>>;
};

/** A movie, series or episode. OMDb's "N/A" becomes null (or an empty list), never the string "N/A". */
export type Title = {
  __typename?: 'Title';
  awards?: Maybe<Scalars['String']['output']>;
  /** US box office as OMDb writes it, e.g. `$134,478,449`. */
  boxOffice?: Maybe<Scalars['String']['output']>;
  cast: Array<Scalars['String']['output']>;
  countries: Array<Scalars['String']['output']>;
  directors: Array<Scalars['String']['output']>;
  /** Home-video release date, ISO `YYYY-MM-DD`. */
  dvd?: Maybe<Scalars['String']['output']>;
  /** Episodes only: the episode number within its season. */
  episode?: Maybe<Scalars['Int']['output']>;
  /** Series only: the episodes of one season (empty when there is no such season). An episode is null when its own lookup fails. */
  episodes?: Maybe<Array<Maybe<Title>>>;
  genres: Array<Scalars['String']['output']>;
  /** `tt` followed by 7 or 8 digits. */
  imdbId: Scalars['ID']['output'];
  /** Out of 10. */
  imdbRating?: Maybe<Scalars['Float']['output']>;
  imdbVotes?: Maybe<Scalars['Int']['output']>;
  languages: Array<Scalars['String']['output']>;
  /** Out of 100. */
  metascore?: Maybe<Scalars['Int']['output']>;
  /** Short or full plot, as asked for with `title(plot:)`; short elsewhere. */
  plot?: Maybe<Scalars['String']['output']>;
  posterUrl?: Maybe<Scalars['String']['output']>;
  production?: Maybe<Scalars['String']['output']>;
  /** Certificate, e.g. `PG-13`. */
  rated?: Maybe<Scalars['String']['output']>;
  /** Every rating OMDb has, the IMDb one first. */
  ratings: Array<TitleRating>;
  /** First release date, ISO `YYYY-MM-DD`. */
  released?: Maybe<Scalars['String']['output']>;
  runtimeMinutes?: Maybe<Scalars['Int']['output']>;
  /** Episodes only: the season number. */
  season?: Maybe<Scalars['Int']['output']>;
  /** Series only: each season, in order; empty for other types. */
  seasons: Array<TitleSeason>;
  /** Episodes only: the series it belongs to. */
  series?: Maybe<Title>;
  title: Scalars['String']['output'];
  /** Series only. */
  totalSeasons?: Maybe<Scalars['Int']['output']>;
  type: TitleType;
  website?: Maybe<Scalars['String']['output']>;
  writers: Array<Scalars['String']['output']>;
  /** `1978`, or a range for a series: `2011–2019`, `2019–` while it runs. */
  year?: Maybe<Scalars['String']['output']>;
};


/** A movie, series or episode. OMDb's "N/A" becomes null (or an empty list), never the string "N/A". */
export type TitleEpisodesArgs = {
  season: Scalars['Int']['input'];
};

export type TitleRating = {
  __typename?: 'TitleRating';
  /** `Internet Movie Database`, `Rotten Tomatoes`, `Metacritic`. */
  source: Scalars['String']['output'];
  /** As the source writes it: `7.4/10`, `93%`, `82/100`. */
  value: Scalars['String']['output'];
};

export type TitleSearchPage = {
  __typename?: 'TitleSearchPage';
  hasNextPage: Scalars['Boolean']['output'];
  /** Null where the item's own lookup (a field beyond the search's) fails. */
  items: Array<Maybe<Title>>;
  page: Scalars['Int']['output'];
  totalPages: Scalars['Int']['output'];
  totalResults: Scalars['Int']['output'];
};

export type TitleSeason = {
  __typename?: 'TitleSeason';
  /** The season's episodes; fields beyond `title`, `imdbId`, `released`, `imdbRating`, `season` and `episode` look each episode up (null when that lookup fails). */
  episodes?: Maybe<Array<Maybe<Title>>>;
  number: Scalars['Int']['output'];
};

export type TitleType =
  | 'EPISODE'
  | 'GAME'
  | 'MOVIE'
  | 'SERIES'
  /** A type OMDb added after this graph was written. */
  | 'UNKNOWN_FUTURE_VALUE';

export type Upstream = {
  __typename?: 'Upstream';
  /** Base URL requests are sent to (no credentials in it). Inaccessible through a router: addresses stay inside. */
  baseUrl: Scalars['String']['output'];
  /** `graph`, `omdb`, or a chat provider id. */
  id: Scalars['ID']['output'];
  mode: UpstreamMode;
};

export type UpstreamMode =
  /** Credentials are configured: requests go to the real service. */
  | 'LIVE'
  /** No credentials are configured: the in-process sandbox emulator answers. */
  | 'SANDBOX';
