import { badInput } from '../../errors/codes.js';
import type { ChatCompletionInput, ChatMessageInput } from '../../generated/types.js';
import type { ChatClient } from '../../upstreams/chat/client.js';
import type { ChatModelSpec } from '../../upstreams/chat/provider.js';
import type {
  ChatContentPart,
  ChatMessage,
  ChatRequest,
  ChatRole,
  ChatTool,
  ChatToolChoice,
} from '../../upstreams/chat/types.js';
import { planFormat, type AnswerFormat } from './jsonFormat.js';
import { checkReasoningTurns, planReasoning } from './reasoning.js';

/** A checked input: the client to call, the model's spec, and the neutral request. */
export interface ValidCompletion {
  client: ChatClient;
  model: ChatModelSpec;
  request: ChatRequest;
  /** Whether the model reasons for this call, as far as the gateway can tell before the answer. */
  reasoningExpected: boolean;
  /** With a JSON `responseFormat`: what the answer is checked against. */
  answerFormat?: AnswerFormat;
}

const ROLES: Readonly<Record<string, ChatRole>> = {
  SYSTEM: 'system',
  USER: 'user',
  ASSISTANT: 'assistant',
  TOOL: 'tool',
};
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const IMAGE_URL = /^(https?:\/\/\S+|data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+)$/i;

/**
 * Every check the gateway can make without the provider, in the order a caller fixes them; the first failure is
 * a BAD_USER_INPUT naming the value and what would be accepted. Nothing is sent upstream before this passes.
 */
export function validateCompletion(
  input: ChatCompletionInput,
  clients: ReadonlyMap<string, ChatClient>,
): ValidCompletion {
  const client = clients.get(input.provider);
  if (!client) {
    throw badInput(
      `Unknown chat provider ${JSON.stringify(input.provider)}; use one of ${[...clients.keys()].join(', ')}.`,
      'input.provider',
    );
  }
  const { spec, models } = client;
  const retired = models.retired(input.model);
  if (retired) {
    const note = retired.note ? `, ${retired.note}` : '';
    throw badInput(
      `${spec.id} retired model ${JSON.stringify(input.model)} on ${retired.since}; use ${retired.successor} instead${note}.`,
      'input.model',
    );
  }
  const model = models.find(input.model);
  if (!model) {
    const raw = spec.acceptsRawModel ? ' (or an inference endpoint id ep-…)' : '';
    throw badInput(
      `Provider ${spec.id} has no model ${JSON.stringify(input.model)}; use one of ${models.list.map((m) => m.id).join(', ') || '(none configured)'}${raw}.`,
      'input.model',
    );
  }
  if (input.messages.length === 0)
    throw badInput(
      'messages is empty; give at least one message, e.g. {role: USER, content: "Hello"}.',
      'input.messages',
    );
  const messages = input.messages.map((m, i) => message(m, i, model, spec.id));

  if (model.fixedSampling && (input.temperature != null || input.topP != null)) {
    const which = input.temperature != null ? 'temperature' : 'topP';
    throw badInput(
      `${spec.id} model ${model.id} fixes ${which} itself and refuses any other; leave ${which} out.`,
      `input.${which}`,
    );
  }
  const { min, max } = spec.temperature;
  if (input.temperature != null && !(input.temperature >= min && input.temperature <= max)) {
    throw badInput(
      `temperature ${input.temperature} is outside ${spec.id}'s range ${min}..${max}.`,
      'input.temperature',
    );
  }
  if (input.topP != null && !(input.topP >= 0 && input.topP <= 1))
    throw badInput(`topP ${input.topP} is outside 0..1.`, 'input.topP');
  if (input.maxTokens != null) {
    if (input.maxTokens < 1) throw badInput(`maxTokens ${input.maxTokens} must be at least 1.`, 'input.maxTokens');
    if (model.maxOutputTokens !== undefined && input.maxTokens > model.maxOutputTokens) {
      throw badInput(
        `maxTokens ${input.maxTokens} is above ${model.id}'s limit of ${model.maxOutputTokens}.`,
        'input.maxTokens',
      );
    }
  }
  const maxStop = spec.maxStop ?? 4;
  if (input.stop != null) {
    if (input.stop.length > maxStop)
      throw badInput(`stop has ${input.stop.length} sequences; ${spec.id} takes at most ${maxStop}.`, 'input.stop');
    if (input.stop.some((s) => s === ''))
      throw badInput('stop contains an empty sequence; leave it out.', 'input.stop');
  }
  if (
    input.user != null &&
    spec.userLength &&
    (input.user.length < spec.userLength.min || input.user.length > spec.userLength.max)
  ) {
    throw badInput(
      `user ${JSON.stringify(input.user)} must be ${spec.userLength.min}..${spec.userLength.max} characters for ${spec.id}.`,
      'input.user',
    );
  }
  if (input.user != null && spec.userPattern && !spec.userPattern.test(input.user)) {
    throw badInput(
      `user ${JSON.stringify(input.user.slice(0, 40))} is not an id ${spec.id} takes: ${spec.userPattern.hint}.`,
      'input.user',
    );
  }
  const tools = input.tools?.map(tool);
  const names = new Set(tools?.map((t) => t.name));
  if (tools && names.size !== tools.length)
    throw badInput('tools has two tools with the same name; names must be unique.', 'input.tools');
  if (tools?.length && !model.tools)
    throw badInput(`${spec.id} model ${model.id} takes no tools; pick a model with tools: true.`, 'input.tools');
  const toolChoice = choice(input, names, client);
  const reasoning = planReasoning(input, spec, model, toolChoice);
  checkReasoningTurns(messages, spec, reasoning);
  const format = planFormat(input, spec, model, messages);

  return {
    client,
    model,
    reasoningExpected: reasoning.expected,
    answerFormat: format.answer,
    request: {
      model: model.upstreamModel ?? model.id,
      messages: format.messages,
      temperature: input.temperature ?? undefined,
      topP: input.topP ?? undefined,
      maxTokens: input.maxTokens ?? undefined,
      stop: input.stop ?? undefined,
      tools: tools?.length ? tools : undefined,
      toolChoice,
      user: input.user ?? undefined,
      ...(reasoning.wire ? { reasoning: reasoning.wire } : {}),
      ...(format.wire ? { responseFormat: format.wire } : {}),
    },
  };
}

function message(m: ChatMessageInput, i: number, model: ChatModelSpec, provider: string): ChatMessage {
  const at = `input.messages[${i}]`;
  const role = ROLES[m.role];
  if (m.content != null && m.parts != null) throw badInput(`${at} has both content and parts; give one of them.`, at);
  if (m.toolCalls != null && role !== 'assistant')
    throw badInput(
      `${at} is a ${m.role} message with toolCalls; only ASSISTANT messages carry them.`,
      `${at}.toolCalls`,
    );
  if (m.reasoningContent != null && role !== 'assistant')
    throw badInput(
      `${at} is a ${m.role} message with reasoningContent; only ASSISTANT turns carry the reasoning they came with.`,
      `${at}.reasoningContent`,
    );
  if (role === 'tool' && !m.toolCallId)
    throw badInput(
      `${at} is a TOOL message without toolCallId; give the id of the tool call it answers.`,
      `${at}.toolCallId`,
    );
  if (m.content == null && m.parts == null && !m.toolCalls?.length)
    throw badInput(`${at} has no content; give content, parts or (ASSISTANT) toolCalls.`, at);
  let parts: ChatContentPart[] | undefined;
  if (m.parts != null) {
    if (m.parts.length === 0)
      throw badInput(`${at}.parts is empty; give at least one part or use content.`, `${at}.parts`);
    parts = m.parts.map((p, j) => {
      const where = `${at}.parts[${j}]`;
      if (p.type === 'TEXT') {
        if (p.text == null) throw badInput(`${where} is a TEXT part without text.`, where);
        return { type: 'text', text: p.text };
      }
      if (!p.imageUrl || !IMAGE_URL.test(p.imageUrl)) {
        throw badInput(
          `${where}.imageUrl must be an http(s) URL or a data:image/…;base64,… URL, got ${JSON.stringify((p.imageUrl ?? '').slice(0, 40))}.`,
          `${where}.imageUrl`,
        );
      }
      if (model.vision === false)
        throw badInput(
          `${where} is an image, but ${provider} model ${model.id} does not accept images; pick a vision model.`,
          where,
        );
      return { type: 'image', url: p.imageUrl };
    });
  }
  const toolCalls = m.toolCalls?.map((c, j) => {
    if (!TOOL_NAME.test(c.name))
      throw badInput(
        `${at}.toolCalls[${j}].name ${JSON.stringify(c.name)} is not a tool name.`,
        `${at}.toolCalls[${j}].name`,
      );
    return { id: c.id, name: c.name, arguments: c.arguments };
  });
  return {
    role,
    ...(parts ? { parts } : m.content != null ? { content: m.content } : {}),
    ...(m.name != null ? { name: m.name } : {}),
    ...(role === 'tool' ? { toolCallId: m.toolCallId! } : {}),
    ...(toolCalls?.length ? { toolCalls } : {}),
    ...(m.reasoningContent != null ? { reasoningContent: m.reasoningContent } : {}),
  };
}

function tool(t: NonNullable<ChatCompletionInput['tools']>[number], i: number): ChatTool {
  const at = `input.tools[${i}]`;
  if (!TOOL_NAME.test(t.name))
    throw badInput(`${at}.name ${JSON.stringify(t.name)} must be 1..64 letters, digits, _ or -.`, `${at}.name`);
  const parameters: unknown = t.parameters;
  if (parameters != null && (typeof parameters !== 'object' || Array.isArray(parameters))) {
    throw badInput(
      `${at}.parameters must be a JSON Schema object, e.g. {"type": "object", "properties": {}}.`,
      `${at}.parameters`,
    );
  }
  return {
    name: t.name,
    ...(t.description != null ? { description: t.description } : {}),
    ...(parameters != null ? { parameters: parameters as Record<string, unknown> } : {}),
  };
}

function choice(
  input: ChatCompletionInput,
  names: ReadonlySet<string>,
  client: ChatClient,
): ChatToolChoice | undefined {
  const c = input.toolChoice;
  const { spec } = client;
  if (c == null) return undefined;
  if ((c.mode == null) === (c.name == null))
    throw badInput('toolChoice needs exactly one of mode or name.', 'input.toolChoice');
  const form = c.name != null ? 'named' : (c.mode!.toLowerCase() as 'none' | 'auto' | 'required');
  if (!spec.toolChoices.includes(form)) {
    const what = c.name != null ? `naming a tool` : c.mode;
    throw badInput(
      `toolChoice ${what} is not supported by ${spec.id}; it takes ${spec.toolChoices.map((f) => (f === 'named' ? 'name' : f.toUpperCase())).join(', ')}.`,
      'input.toolChoice',
    );
  }
  if (form !== 'none' && names.size === 0)
    throw badInput(
      `toolChoice ${c.name ?? c.mode} needs tools; add tools or leave toolChoice out.`,
      'input.toolChoice',
    );
  if (c.name != null) {
    if (!names.has(c.name))
      throw badInput(
        `toolChoice names ${JSON.stringify(c.name)}, which is not one of tools (${[...names].join(', ')}).`,
        'input.toolChoice.name',
      );
    return { name: c.name };
  }
  return form as 'none' | 'auto' | 'required';
}
