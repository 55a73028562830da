import { servedModel, type SandboxModel } from './models.js';

/** What went wrong with a request, in provider-neutral terms; each provider turns it into its own status and envelope. */
/** A provider's error answer: status, JSON body, extra headers. */
export interface ErrorReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Problem =
  | { kind: 'path'; method: string; path: string }
  | { kind: 'auth'; key: string | undefined }
  | { kind: 'rate'; limit: number; retryAfterSec: number }
  /** The body is not JSON, not an object, or a field has the wrong JSON type. */
  | { kind: 'format'; detail: string }
  | { kind: 'missing'; param: string }
  /** A value of the right type that the provider does not accept (empty list, unknown role, unsupported option). */
  | { kind: 'invalid'; param: string; detail: string }
  /** A number outside the provider's range. */
  | { kind: 'range'; param: string; detail: string }
  | { kind: 'model'; model: string }
  | { kind: 'vision'; model: string; param: string }
  | { kind: 'context'; model: string; limit: number; tokens: number }
  /** Inference failed after it started (the `[[error]]` trigger on a non-streaming call). */
  | { kind: 'inference' }
  /** While thinking: an assistant turn with tool calls came back without its `reasoning_content` (DeepSeek, Kimi). */
  | { kind: 'reasoning-missing'; index: number }
  /** While thinking: a forced `tool_choice` (DeepSeek, Kimi). */
  | { kind: 'forced-tool-choice'; choice: 'required' | 'specified' }
  /** Kimi K2.6: a sampling value other than the one it fixes. */
  | { kind: 'fixed-sampling'; param: 'temperature' | 'top_p'; allowed: number }
  /** JSON object mode without the word "json" in the prompt (DeepSeek). */
  | { kind: 'json-word' }
  /** More requests open at once than the account may have (DeepSeek's limit is concurrency). */
  | { kind: 'concurrency'; limit: number };

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  role: Role;
  /** All text of the message: string content, text parts, tool-call names and arguments. */
  text: string;
  images: number;
  toolCallId?: string;
  /** Assistant turns: how many tool calls it carries, and the reasoning sent back with it (undefined: none). */
  toolCalls: number;
  /** Assistant turns: the tool calls it carries, so that a tool result can be told by the call it answers. */
  calls?: ReadonlyArray<{ id: string; name: string; arguments: string }>;
  reasoningContent?: string;
}

export interface ToolDefinition {
  name: string;
  /** JSON Schema of the arguments. */
  parameters: unknown;
}

export type ToolChoice = 'none' | 'auto' | 'required' | { name: string };

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop: string[];
  n: number;
  tools: ToolDefinition[];
  toolChoice: ToolChoice;
  /** `parallel_tool_calls`: false keeps the model to one call per turn. @default true */
  parallelToolCalls: boolean;
  /** `thinking.type` as sent; undefined when left out (then the model's default). */
  thinking?: 'enabled' | 'disabled' | 'auto';
  /** `reasoning_effort` as sent. */
  effort?: string;
  /** `max_completion_tokens` (Ark, Kimi): reasoning included, unlike Ark's `max_tokens`. */
  maxCompletionTokens?: number;
  /** `response_format`, when it asks for JSON. */
  responseFormat?: { type: 'json_object' } | { type: 'json_schema'; schema: unknown };
  /** The parsed body, for the options only one provider knows (`stream_options`, `tool_stream`). */
  raw: Record<string, unknown>;
}

/** Per-provider bounds the shared parser enforces. */
export interface RequestLimits {
  temperatureMax: number;
  /** Takes `thinking: {type: "auto"}` (Ark only documents it); elsewhere it is refused. @default false */
  thinkingAuto?: boolean;
  /** Largest `n`; leave out when the provider has no `n` (it is then ignored: one choice). */
  maxChoices?: number;
}

const ROLES: readonly Role[] = ['system', 'user', 'assistant', 'tool'];

/** One English sentence for a request problem, for the providers whose envelopes carry free text. */
export function describe(problem: Problem): string {
  switch (problem.kind) {
    case 'missing':
      return `${problem.param} is required`;
    case 'format':
    case 'invalid':
    case 'range':
      return problem.detail;
    case 'vision':
      return `model ${problem.model} does not accept image input (${problem.param})`;
    default:
      return problem.kind;
  }
}

export function isProblem(x: unknown): x is Problem {
  return typeof x === 'object' && x !== null && 'kind' in x;
}

/** Parses and checks what every OpenAI-style provider checks; provider rules come after, on the result. */
export function parseChatRequest(body: Buffer, limits: RequestLimits): ChatRequest | Problem {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch (err) {
    return { kind: 'format', detail: `body is not valid JSON (${(err as Error).message})` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { kind: 'format', detail: 'body must be a JSON object' };
  const raw = json as Record<string, unknown>;

  if (raw.model === undefined || raw.model === '') return { kind: 'missing', param: 'model' };
  if (typeof raw.model !== 'string') return { kind: 'format', detail: 'model must be a string' };
  if (raw.messages === undefined) return { kind: 'missing', param: 'messages' };
  if (!Array.isArray(raw.messages)) return { kind: 'format', detail: 'messages must be an array' };
  if (raw.messages.length === 0) return { kind: 'invalid', param: 'messages', detail: 'messages must not be empty' };
  const messages: ChatMessage[] = [];
  for (const [i, m] of raw.messages.entries()) {
    const parsed = parseMessage(m, `messages[${i}]`);
    if (isProblem(parsed)) return parsed;
    messages.push(parsed);
  }

  const numbers = [
    ['temperature', 0, limits.temperatureMax, false],
    ['top_p', 0, 1, false],
    ['max_tokens', 1, Number.MAX_SAFE_INTEGER, true],
    ['max_completion_tokens', 1, Number.MAX_SAFE_INTEGER, true],
    ['n', 1, limits.maxChoices ?? Number.MAX_SAFE_INTEGER, true],
  ] as const;
  for (const [param, min, max, integer] of numbers) {
    const v = raw[param];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'number' || (integer && !Number.isInteger(v)))
      return { kind: 'format', detail: `${param} must be ${integer ? 'an integer' : 'a number'}` };
    if (v < min || v > max) return { kind: 'range', param, detail: `${param} must be in [${min}, ${max}], got ${v}` };
  }

  const stop = raw.stop === undefined || raw.stop === null ? [] : typeof raw.stop === 'string' ? [raw.stop] : raw.stop;
  if (!Array.isArray(stop) || stop.some((s) => typeof s !== 'string'))
    return { kind: 'format', detail: 'stop must be a string or an array of strings' };
  if (stop.length > 4) return { kind: 'invalid', param: 'stop', detail: 'stop takes at most 4 sequences' };

  const tools = parseTools(raw.tools);
  if (isProblem(tools)) return tools;
  const toolChoice = parseToolChoice(raw.tool_choice, tools);
  if (isProblem(toolChoice)) return toolChoice;
  if (raw.stream !== undefined && raw.stream !== null && typeof raw.stream !== 'boolean')
    return { kind: 'format', detail: 'stream must be a boolean' };
  const thinking = (raw.thinking as { type?: unknown } | undefined)?.type;
  if (
    raw.thinking !== undefined &&
    raw.thinking !== null &&
    thinking !== 'enabled' &&
    thinking !== 'disabled' &&
    !(thinking === 'auto' && limits.thinkingAuto)
  ) {
    return {
      kind: 'invalid',
      param: 'thinking.type',
      detail: `thinking.type must be enabled${limits.thinkingAuto ? ', disabled or auto' : ' or disabled'}, got ${JSON.stringify(thinking)}`,
    };
  }
  if (raw.reasoning_effort !== undefined && typeof raw.reasoning_effort !== 'string')
    return { kind: 'format', detail: 'reasoning_effort must be a string' };
  const responseFormat = parseResponseFormat(raw.response_format);
  if (isProblem(responseFormat)) return responseFormat;

  return {
    model: raw.model,
    messages,
    stream: raw.stream === true,
    temperature: raw.temperature as number | undefined,
    topP: raw.top_p as number | undefined,
    maxTokens: raw.max_tokens as number | undefined,
    stop: (stop as string[]).filter((s) => s !== ''),
    n: limits.maxChoices === undefined ? 1 : ((raw.n as number | undefined) ?? 1),
    tools,
    toolChoice,
    parallelToolCalls: raw.parallel_tool_calls !== false,
    thinking: thinking as ChatRequest['thinking'],
    effort: raw.reasoning_effort as string | undefined,
    maxCompletionTokens: raw.max_completion_tokens as number | undefined,
    responseFormat,
    raw,
  };
}

function parseResponseFormat(input: unknown): ChatRequest['responseFormat'] | Problem {
  if (input === undefined || input === null) return undefined;
  const type = (input as { type?: unknown }).type;
  if (type === 'text') return undefined;
  if (type === 'json_object') return { type };
  if (type === 'json_schema') {
    const schema = (input as { json_schema?: { schema?: unknown } }).json_schema?.schema;
    if (typeof schema !== 'object' || schema === null)
      return { kind: 'missing', param: 'response_format.json_schema.schema' };
    return { type, schema };
  }
  return {
    kind: 'invalid',
    param: 'response_format.type',
    detail: `response_format.type must be text or json_object, got ${JSON.stringify(type)}`,
  };
}

function parseMessage(m: unknown, at: string): ChatMessage | Problem {
  if (typeof m !== 'object' || m === null || Array.isArray(m))
    return { kind: 'format', detail: `${at} must be an object` };
  const msg = m as Record<string, unknown>;
  if (msg.role === undefined) return { kind: 'missing', param: `${at}.role` };
  if (!ROLES.includes(msg.role as Role))
    return { kind: 'invalid', param: `${at}.role`, detail: `unknown role ${JSON.stringify(msg.role)}` };
  const role = msg.role as Role;
  const texts: string[] = [];
  let images = 0;
  const content = msg.content;
  if (typeof content === 'string') texts.push(content);
  else if (Array.isArray(content)) {
    for (const [j, part] of content.entries()) {
      const p = part as { type?: unknown; text?: unknown; image_url?: { url?: unknown } } | null;
      if (p?.type === 'text' && typeof p.text === 'string') texts.push(p.text);
      else if (p?.type === 'image_url' && typeof p.image_url?.url === 'string') images += 1;
      else return { kind: 'format', detail: `${at}.content[${j}] must be a text or image_url part` };
    }
  } else if (content !== undefined && content !== null)
    return { kind: 'format', detail: `${at}.content must be a string or an array of parts` };

  const toolCalls = msg.tool_calls;
  if (toolCalls !== undefined && toolCalls !== null) {
    if (role !== 'assistant' || !Array.isArray(toolCalls))
      return { kind: 'invalid', param: `${at}.tool_calls`, detail: 'only assistant messages carry a tool_calls array' };
    for (const call of toolCalls as { function?: { name?: unknown; arguments?: unknown } }[]) {
      texts.push(String(call?.function?.name ?? ''), String(call?.function?.arguments ?? ''));
    }
  }
  const calls = Array.isArray(toolCalls)
    ? (toolCalls as Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } } | null>).map((call) => ({
        id: String(call?.id ?? ''),
        name: String(call?.function?.name ?? ''),
        arguments: String(call?.function?.arguments ?? ''),
      }))
    : undefined;
  const hasToolCalls = Array.isArray(toolCalls) && toolCalls.length > 0;
  if ((content === undefined || content === null) && !hasToolCalls) return { kind: 'missing', param: `${at}.content` };
  if (role === 'tool' && (typeof msg.tool_call_id !== 'string' || msg.tool_call_id === ''))
    return { kind: 'missing', param: `${at}.tool_call_id` };
  if (
    msg.reasoning_content !== undefined &&
    msg.reasoning_content !== null &&
    typeof msg.reasoning_content !== 'string'
  )
    return { kind: 'format', detail: `${at}.reasoning_content must be a string` };
  return {
    role,
    text: texts.join(' '),
    images,
    toolCallId: role === 'tool' ? (msg.tool_call_id as string) : undefined,
    toolCalls: hasToolCalls ? (toolCalls as unknown[]).length : 0,
    ...(calls?.length ? { calls } : {}),
    ...(typeof msg.reasoning_content === 'string' ? { reasoningContent: msg.reasoning_content } : {}),
  };
}

function parseTools(input: unknown): ToolDefinition[] | Problem {
  if (input === undefined || input === null) return [];
  if (!Array.isArray(input)) return { kind: 'format', detail: 'tools must be an array' };
  const tools: ToolDefinition[] = [];
  for (const [i, t] of input.entries()) {
    const tool = t as { type?: unknown; function?: { name?: unknown; parameters?: unknown } } | null;
    if (tool?.type !== 'function')
      return { kind: 'invalid', param: `tools[${i}].type`, detail: 'tool type must be "function"' };
    if (typeof tool.function?.name !== 'string' || tool.function.name === '')
      return { kind: 'missing', param: `tools[${i}].function.name` };
    tools.push({ name: tool.function.name, parameters: tool.function.parameters ?? {} });
  }
  return tools;
}

function parseToolChoice(input: unknown, tools: ToolDefinition[]): ToolChoice | Problem {
  if (input === undefined || input === null) return 'auto';
  if (input === 'none' || input === 'auto' || input === 'required') return input;
  const name = (input as { function?: { name?: unknown } }).function?.name;
  if (typeof name !== 'string')
    return {
      kind: 'invalid',
      param: 'tool_choice',
      detail: 'tool_choice must be none, auto, required or {"type":"function","function":{"name"}}',
    };
  if (!tools.some((t) => t.name === name))
    return {
      kind: 'invalid',
      param: 'tool_choice',
      detail: `tool_choice names ${JSON.stringify(name)}, which is not in tools`,
    };
  return { name };
}

/** Prompt tokens as the sandbox counts them: each word, number, punctuation mark or CJK character, plus 3 per message and 256 per image. */
export function countPromptTokens(messages: readonly ChatMessage[]): number {
  let n = 0;
  for (const m of messages) n += 3 + 256 * m.images + (m.text.match(/[A-Za-z0-9_']+|[^\sA-Za-z0-9_']/g)?.length ?? 0);
  return n;
}

/** The model checks every provider makes, in its order: the model exists, takes images if given any, and the prompt fits. */
export function checkModel(req: ChatRequest, models: readonly SandboxModel[]): Problem | undefined {
  const model = servedModel(models, req.model);
  if (!model) return { kind: 'model', model: req.model };
  const withImage = req.messages.findIndex((m) => m.images > 0);
  if (withImage !== -1 && !model.vision)
    return { kind: 'vision', model: model.id, param: `messages[${withImage}].content` };
  const tokens = countPromptTokens(req.messages);
  if (tokens > model.contextWindow) return { kind: 'context', model: model.id, limit: model.contextWindow, tokens };
  return undefined;
}
