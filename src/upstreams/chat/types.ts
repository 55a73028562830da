/**
 * Provider-neutral chat-completion shapes: what the domain hands an adapter, and what every adapter gives back,
 * whatever its wire format (docs/upstreams.md section 3).
 */

export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image'; url: string };

export interface ChatToolCall {
  id: string;
  name: string;
  /** JSON text. */
  arguments: string;
}

export interface ChatMessage {
  role: ChatRole;
  /** Plain text; `parts` instead when the message has images. */
  content?: string;
  parts?: ChatContentPart[];
  name?: string;
  toolCallId?: string;
  toolCalls?: ChatToolCall[];
  /** An assistant turn's reasoning, sent back as it came (DeepSeek and Kimi need it with tool calls). */
  reasoningContent?: string;
}

export interface ChatTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters?: Record<string, unknown>;
}

export type ChatToolChoice = 'none' | 'auto' | 'required' | { name: string };

/** The graph's `ChatReasoningEffort`; each provider spells its own (provider.ts `reasoning.efforts`). */
export type ChatReasoningEffort = 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH' | 'MAX';

/** What the request says of reasoning; a field left out leaves the provider's default. */
export interface ChatReasoning {
  enabled?: boolean;
  effort?: ChatReasoningEffort;
  /** The switch is the gateway's own, not the caller's (a forced tool choice turned reasoning off): dropped and learned when refused. */
  gatewayAdded?: boolean;
}

/** JSON output: object mode, or a schema (sent as such to Ark; elsewhere object mode, checked by the gateway). */
export type ChatResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; schema: Record<string, unknown>; strict: boolean };

/** A validated request; `model` is already the upstream's model id (Ark: the endpoint id). */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  tools?: ChatTool[];
  toolChoice?: ChatToolChoice;
  user?: string;
  reasoning?: ChatReasoning;
  responseFormat?: ChatResponseFormat;
}

/** The graph's `ChatFinishReason`, named once here for every adapter. */
export type FinishReason =
  | 'STOP'
  | 'LENGTH'
  | 'TOOL_CALLS'
  | 'CONTENT_FILTER'
  | 'CONTEXT_WINDOW_EXCEEDED'
  | 'UPSTREAM_ERROR'
  | 'OTHER';

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Of `completionTokens`, the reasoning ones, where the provider reports them (`completion_tokens_details`). */
  reasoningTokens?: number | null;
  /** Of `promptTokens`, those the provider served from its cache (`prompt_tokens_details.cached_tokens`, DeepSeek `prompt_cache_hit_tokens`). */
  cachedPromptTokens?: number | null;
}

export interface ChatChoice {
  index: number;
  message: {
    role: ChatRole;
    content: string | null;
    reasoningContent: string | null;
    toolCalls: ChatToolCall[] | null;
  };
  finishReason: FinishReason | null;
}

export interface ChatCompletion {
  id: string;
  created: number;
  choices: ChatChoice[];
  usage: ChatUsage;
}

export interface ChatToolCallDelta {
  index: number;
  id: string | null;
  name: string | null;
  arguments: string | null;
}

export interface ChatDelta {
  role: ChatRole | null;
  content: string | null;
  reasoningContent: string | null;
  toolCalls: ChatToolCallDelta[] | null;
}

/** One streamed piece, as the subscriber sees it. */
export interface ChatChunk {
  id: string;
  index: number;
  delta: ChatDelta;
  finishReason: FinishReason | null;
  usage: ChatUsage | null;
}
