import type { ChatModelSpec, ChatProviderSpec, UpstreamErrorBody } from './provider.js';
import type {
  ChatChoice,
  ChatCompletion,
  ChatDelta,
  ChatMessage,
  ChatRequest,
  ChatRole,
  ChatUsage,
  FinishReason,
} from './types.js';

/**
 * The OpenAI-style wire format every provider starts from (docs/upstreams.md 3.0): the request body, and the mapping
 * from response bodies, stream chunks and error envelopes to the neutral shapes of `types.ts`.
 */

const OPENAI_FINISH: Readonly<Record<string, FinishReason>> = {
  stop: 'STOP',
  length: 'LENGTH',
  tool_calls: 'TOOL_CALLS',
  content_filter: 'CONTENT_FILTER',
};

export function finishReason(p: ChatProviderSpec, raw: unknown): FinishReason | null {
  if (raw === null || raw === undefined || raw === '') return null;
  const key = String(raw);
  return p.finishReasons?.[key] ?? OPENAI_FINISH[key] ?? 'OTHER';
}

function wireMessage(m: ChatMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { role: m.role };
  if (m.parts) {
    out.content = m.parts.map((part) =>
      part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image_url', image_url: { url: part.url } },
    );
  } else out.content = m.content ?? null;
  if (m.name !== undefined) out.name = m.name;
  if (m.toolCallId !== undefined) out.tool_call_id = m.toolCallId;
  if (m.toolCalls?.length) {
    out.tool_calls = m.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  if (m.reasoningContent !== undefined) out.reasoning_content = m.reasoningContent;
  return out;
}

/** The body for `POST …/chat/completions`, with the provider's own adjustments. */
export function requestBody(
  p: ChatProviderSpec,
  req: ChatRequest,
  stream: boolean,
  model: ChatModelSpec | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = { model: req.model, messages: req.messages.map(wireMessage), stream };
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.maxTokens !== undefined) body[p.maxTokensField ?? 'max_tokens'] = req.maxTokens;
  if (req.stop?.length) body.stop = req.stop;
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({
      type: 'function',
      function: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        parameters: t.parameters ?? { type: 'object', properties: {} },
      },
    }));
  }
  if (req.toolChoice !== undefined) {
    body.tool_choice =
      typeof req.toolChoice === 'object'
        ? { type: 'function', function: { name: req.toolChoice.name } }
        : req.toolChoice;
  }
  if (req.user !== undefined) body.user = req.user;
  if (stream && p.streamUsageOption) body.stream_options = { include_usage: true };
  const { reasoning, responseFormat } = req;
  if (reasoning?.enabled !== undefined) p.reasoning?.toggle(body, reasoning.enabled);
  if (reasoning?.effort && p.reasoning?.efforts) body.reasoning_effort = p.reasoning.efforts[reasoning.effort];
  if (responseFormat?.type === 'json_schema' && p.jsonSchema) {
    body.response_format = {
      type: 'json_schema',
      json_schema: { name: 'answer', schema: responseFormat.schema, strict: responseFormat.strict },
    };
  } else if (responseFormat) body.response_format = { type: 'json_object' };
  p.adjustBody?.(body, req, stream, model);
  return body;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const role = (v: unknown): ChatRole | null =>
  v === 'system' || v === 'user' || v === 'assistant' || v === 'tool' ? v : null;

export function usage(raw: unknown): ChatUsage | null {
  const u = obj(raw);
  if (!u) return null;
  const promptTokens = Number(u.prompt_tokens ?? 0);
  const completionTokens = Number(u.completion_tokens ?? 0);
  const reasoning = obj(u.completion_tokens_details)?.reasoning_tokens;
  // GLM, Ark and DeepSeek: prompt_tokens_details.cached_tokens; DeepSeek also prompt_cache_hit_tokens; Kimi cached_tokens.
  const cached = obj(u.prompt_tokens_details)?.cached_tokens ?? u.prompt_cache_hit_tokens ?? u.cached_tokens;
  return {
    promptTokens,
    completionTokens,
    totalTokens: Number(u.total_tokens ?? promptTokens + completionTokens),
    reasoningTokens: typeof reasoning === 'number' ? reasoning : null,
    cachedPromptTokens: typeof cached === 'number' ? cached : null,
  };
}

/** A non-streaming body. Throws when it is not one (the caller maps that to UPSTREAM_ERROR). */
export function completion(p: ChatProviderSpec, json: unknown): ChatCompletion {
  const body = obj(json);
  if (!body || !Array.isArray(body.choices)) throw new Error('the body has no choices');
  const choices: ChatChoice[] = body.choices.map((c: unknown, i: number) => {
    const choice = obj(c) ?? {};
    const message = obj(choice.message) ?? {};
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map(obj).filter((x): x is Json => !!x) : [];
    return {
      index: typeof choice.index === 'number' ? choice.index : i,
      message: {
        role: role(message.role) ?? 'assistant',
        content: str(message.content),
        reasoningContent: str(message.reasoning_content),
        toolCalls: calls.length
          ? calls.map((call) => {
              const fn = obj(call.function) ?? {};
              return {
                id: str(call.id) ?? '',
                name: str(fn.name) ?? '',
                arguments: typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {}),
              };
            })
          : null,
      },
      finishReason: finishReason(p, choice.finish_reason),
    };
  });
  return {
    id: str(body.id) ?? '',
    created: typeof body.created === 'number' ? body.created : Math.floor(Date.now() / 1000),
    choices,
    usage: usage(body.usage) ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  };
}

/** One stream event's content, before the stream logic decides what the subscriber sees. */
export interface WireChunk {
  id: string;
  choices: Array<{ index: number; delta: ChatDelta; finishReason: FinishReason | null }>;
  /** Top-level (GLM, include_usage) or inside a choice (Moonshot). */
  usage: ChatUsage | null;
  /** An in-band error event (`data: {"error": {...}}`). */
  error?: UpstreamErrorBody;
}

/**
 * A stream event read per token: a loop, not `map` with its closure per event, and no list of tool calls unless the
 * delta has some.
 */
export function chunk(p: ChatProviderSpec, json: unknown): WireChunk {
  const body = obj(json) ?? {};
  if (obj(body.error)) return { id: '', choices: [], usage: null, error: errorBody(body) };
  let found = usage(body.usage);
  const listed: unknown[] = Array.isArray(body.choices) ? body.choices : [];
  // Sized at once: a first push into [] makes room for 17.
  const choices: WireChunk['choices'] = new Array(listed.length);
  for (let i = 0; i < listed.length; i++) {
    const choice = obj(listed[i]) ?? {};
    found = found ?? usage(choice.usage);
    const d = obj(choice.delta) ?? {};
    choices[i] = {
      index: typeof choice.index === 'number' ? choice.index : i,
      delta: {
        role: role(d.role),
        content: str(d.content),
        reasoningContent: str(d.reasoning_content),
        toolCalls: Array.isArray(d.tool_calls) ? toolCallDeltas(d.tool_calls) : null,
      },
      finishReason: finishReason(p, choice.finish_reason),
    };
  }
  return { id: str(body.id) ?? '', choices, usage: found };
}

/** A delta's tool calls (their pieces, by index), or null when none is an object. */
function toolCallDeltas(raw: unknown[]): ChatDelta['toolCalls'] {
  const calls = raw.map(obj).filter((x): x is Json => !!x);
  return calls.length
    ? calls.map((call, j) => {
        const fn = obj(call.function) ?? {};
        return {
          index: typeof call.index === 'number' ? call.index : j,
          id: str(call.id),
          name: str(fn.name),
          arguments: str(fn.arguments),
        };
      })
    : null;
}

/** The error envelope of any of the four (`{"error": {code?, type?, message}}`), or of a bare `{code, message}`. */
export function errorBody(json: unknown): UpstreamErrorBody {
  const body = obj(json) ?? {};
  const e = obj(body.error) ?? body;
  const code = e.code === null || e.code === undefined ? undefined : String(e.code);
  return {
    code,
    type: str(e.type) ?? undefined,
    message: str(e.message) ?? (typeof e.error === 'string' ? e.error : undefined),
  };
}
