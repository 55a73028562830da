/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type ChatCompletionInput = {
  /**
   * Ids of the caller's documents (`uploadChatDocument`) whose extracted text the model reads: each as a system message
   * after the caller's own leading system messages, as Kimi asks for its files. Counted by the context-window check
   * with the document's `tokens` before any request; the text is read from the provider once, then kept in the shared
   * cache (`CHAT_DOCUMENT_CACHE_MAX_BYTES`). At most 20.
   */
  documents?: Array<string | number> | null | undefined;
  /**
   * Targets to try in order when the one before fails before its first token with a rate limit, exhausted quota or
   * daily token budget, a 5xx, a timeout or an open circuit. Never after output has started. At most 6 targets in all.
   */
  fallbacks?: Array<ChatTarget> | null | undefined;
  /**
   * Names of trusted operations (the /mcp tools of `MCP_OPERATIONS`) the model may call. The gateway offers them as
   * function tools, runs the model's calls itself with the caller's credentials and limits, feeds the results back and
   * loops to a final answer: at most `CHAT_GRAPH_TOOL_MAX_STEPS` provider requests and `CHAT_GRAPH_TOOL_MAX_CALLS`
   * operations per completion (then finish `GRAPH_TOOL_LIMIT`). Not combined with `tools`.
   */
  graphTools?: Array<string> | null | undefined;
  /**
   * Everything the model generates, reasoning included, is capped at this many tokens (sent as `max_tokens` to GLM,
   * DeepSeek and Kimi, whose `max_tokens` covers reasoning, and as `max_completion_tokens` to Ark, whose `max_tokens`
   * does not). From 1 up to the model's `maxOutputTokens`.
   */
  maxTokens?: number | null | undefined;
  /** At least one message, oldest first. */
  messages: Array<ChatMessageInput>;
  /** One of the provider's `models`. */
  model: string;
  /** A `ChatProvider.id`, or `route:<name>` for a route of `CHAT_ROUTES` (then `model` is `"auto"`). */
  provider: string | number;
  /**
   * Reasoning before the answer: on or off, and how much. Left out, the model's default applies (see
   * `ChatModel.reasoning`); `ChatCompletion.reasoningUsed` says which was used. DeepSeek and Kimi refuse a forced
   * `toolChoice` while reasoning: with `enabled` left out the gateway then turns reasoning off for that call; with
   * `enabled: true` the request is refused.
   */
  reasoning?: ChatReasoningInput | null | undefined;
  /**
   * JSON output. JSON_SCHEMA goes to Ark as a schema; elsewhere the model is asked for a JSON object matching it (the
   * schema is added as a system message) and the gateway checks the answer against it. The parsed value is
   * `ChatCompletion.json`.
   */
  responseFormat?: ChatResponseFormatInput | null | undefined;
  /** Up to 4 sequences (GLM: 1) that end the answer. */
  stop?: Array<string> | null | undefined;
  /** GLM and Moonshot 0..1, Ark and DeepSeek 0..2. */
  temperature?: number | null | undefined;
  /** Which tool the model may call; needs `tools` unless the mode is NONE. */
  toolChoice?: ChatToolChoiceInput | null | undefined;
  tools?: Array<ChatToolInput> | null | undefined;
  /** 0..1. */
  topP?: number | null | undefined;
  /** An id of the end user, for the provider's abuse monitoring (DeepSeek `user_id`: letters, digits, `_` and `-`, also isolating its cache). */
  user?: string | null | undefined;
};

export type ChatContentPartInput = {
  /** IMAGE_URL parts: an https URL or a `data:image/…;base64,…` URL. */
  imageUrl?: string | null | undefined;
  /** TEXT parts: the text. */
  text?: string | null | undefined;
  type: ChatContentPartType;
};

export type ChatContentPartType =
  | 'IMAGE_URL'
  | 'TEXT';

export type ChatMessageInput = {
  /** The text. Give either `content` or `parts`. */
  content?: string | null | undefined;
  name?: string | null | undefined;
  /** Text and image parts, for models with vision. */
  parts?: Array<ChatContentPartInput> | null | undefined;
  /**
   * ASSISTANT messages: the reasoning the model returned with this turn (`ChatMessage.reasoningContent`), sent back
   * as it came. DeepSeek and Kimi need it on every turn with tool calls while reasoning; it is refused elsewhere.
   */
  reasoningContent?: string | null | undefined;
  role: ChatRole;
  /** Required for TOOL messages: the `ChatToolCall.id` this message answers. */
  toolCallId?: string | null | undefined;
  /** ASSISTANT messages: the tool calls the model made, as returned earlier. */
  toolCalls?: Array<ChatToolCallInput> | null | undefined;
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
  effort?: ChatReasoningEffort | null | undefined;
  /** True: reason (refused on NONE models); false: answer at once (refused on ALWAYS models). Left out: the model's default. */
  enabled?: boolean | null | undefined;
};

export type ChatResponseFormatInput = {
  /** JSON_SCHEMA: the JSON Schema the answer must match. */
  schema?: unknown;
  /**
   * JSON_SCHEMA: an answer that does not match is an UPSTREAM_ERROR instead of `json: null` with `jsonError` (a whole
   * completion; a stream has sent the text already and says so in its last chunk's `jsonError`). Default true.
   */
  strict?: boolean | null | undefined;
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
  model: string;
  provider: string | number;
};

export type ChatToolCallInput = {
  /** The arguments as JSON text. */
  arguments: string;
  id: string;
  name: string;
};

/** Give `mode`, or `name` to force one tool (not GLM). */
export type ChatToolChoiceInput = {
  mode?: ChatToolChoiceMode | null | undefined;
  name?: string | null | undefined;
};

export type ChatToolChoiceMode =
  /** The model decides. */
  | 'AUTO'
  /** The model answers in text. */
  | 'NONE'
  /** The model must call a tool (not GLM, not Ark). */
  | 'REQUIRED';

export type ChatToolInput = {
  description?: string | null | undefined;
  /** The function name: letters, digits, `_` and `-`, up to 64. */
  name: string;
  /** JSON Schema of the arguments. */
  parameters?: unknown;
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

export type TitleType =
  | 'EPISODE'
  | 'GAME'
  | 'MOVIE'
  | 'SERIES'
  /** A type OMDb added after this graph was written. */
  | 'UNKNOWN_FUTURE_VALUE';

export type ExampleServiceHealthQueryVariables = Exact<{
  first: number;
}>;


export type ExampleServiceHealthQuery = { admin: { serviceAnnouncement: { healthOverviews: { nodes: Array<{ id: string, service: string, status: ServiceHealthStatus, issues: { nodes: Array<{ id: string, title: string | null, isResolved: boolean | null }> } | null }> } | null } } };

export type ExampleTitleQueryVariables = Exact<{
  imdbId: string | number;
}>;


export type ExampleTitleQuery = { title: { imdbId: string, title: string, year: string | null, type: TitleType, runtimeMinutes: number | null, genres: Array<string>, imdbRating: number | null } | null };

export type ExampleCompletionMutationVariables = Exact<{
  input: ChatCompletionInput;
}>;


export type ExampleCompletionMutation = { createChatCompletion: { provider: string, model: string, content: string | null, usage: { totalTokens: number } } | null };


export const ExampleServiceHealthDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ExampleServiceHealth"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"admin"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"serviceAnnouncement"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"healthOverviews"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"orderBy"},"value":{"kind":"ListValue","values":[{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"field"},"value":{"kind":"EnumValue","value":"SERVICE"}},{"kind":"ObjectField","name":{"kind":"Name","value":"direction"},"value":{"kind":"EnumValue","value":"ASC"}}]}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"service"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"issues"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"2"}},{"kind":"Argument","name":{"kind":"Name","value":"orderBy"},"value":{"kind":"ListValue","values":[{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"field"},"value":{"kind":"EnumValue","value":"START_DATE_TIME"}},{"kind":"ObjectField","name":{"kind":"Name","value":"direction"},"value":{"kind":"EnumValue","value":"DESC"}}]}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"nodes"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"isResolved"}}]}}]}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<ExampleServiceHealthQuery, ExampleServiceHealthQueryVariables>;
export const ExampleTitleDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"ExampleTitle"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"imdbId"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"title"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"imdbId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"imdbId"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"imdbId"}},{"kind":"Field","name":{"kind":"Name","value":"title"}},{"kind":"Field","name":{"kind":"Name","value":"year"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"runtimeMinutes"}},{"kind":"Field","name":{"kind":"Name","value":"genres"}},{"kind":"Field","name":{"kind":"Name","value":"imdbRating"}}]}}]}}]} as unknown as DocumentNode<ExampleTitleQuery, ExampleTitleQueryVariables>;
export const ExampleCompletionDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"ExampleCompletion"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ChatCompletionInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createChatCompletion"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"provider"}},{"kind":"Field","name":{"kind":"Name","value":"model"}},{"kind":"Field","name":{"kind":"Name","value":"content"}},{"kind":"Field","name":{"kind":"Name","value":"usage"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalTokens"}}]}}]}}]}}]} as unknown as DocumentNode<ExampleCompletionMutation, ExampleCompletionMutationVariables>;