import { Validator, type Schema } from '@cfworker/json-schema';
import { LRUCache } from 'lru-cache';
import { badInput } from '../../errors/codes.js';
import type { ChatCompletionInput } from '../../generated/types.js';
import type { ChatModelSpec, ChatProviderSpec } from '../../upstreams/chat/provider.js';
import type { ChatMessage, ChatResponseFormat } from '../../upstreams/chat/types.js';

/** What the answer is checked against: JSON at all, and the schema when one was given. */
export interface AnswerFormat {
  schema?: Record<string, unknown>;
  strict: boolean;
}

export interface PlannedFormat {
  wire: ChatResponseFormat | undefined;
  answer: AnswerFormat | undefined;
  /** Messages as sent: with the schema as a system message where the provider cannot take it (all but Ark). */
  messages: ChatMessage[];
}

const JSON_WORD = /json/i;

/**
 * `responseFormat` checked and translated: JSON object mode everywhere the model takes it, a schema natively on Ark and
 * elsewhere as a system message the gateway then holds the answer to.
 */
export function planFormat(
  input: ChatCompletionInput,
  spec: ChatProviderSpec,
  model: ChatModelSpec,
  messages: ChatMessage[],
): PlannedFormat {
  const f = input.responseFormat;
  const at = 'input.responseFormat';
  if (f == null || f.type === 'TEXT') {
    if (f?.schema != null || f?.strict != null)
      throw badInput('responseFormat TEXT takes no schema or strict; use JSON_SCHEMA for a schema.', at);
    return { wire: undefined, answer: undefined, messages };
  }
  if (!model.json)
    throw badInput(
      `${spec.id} model ${model.id} has no JSON output; pick a model with json: true (chatProviders { modelDetails { id json } }).`,
      at,
    );
  if (f.type === 'JSON_OBJECT') {
    if (f.schema != null)
      throw badInput('responseFormat JSON_OBJECT takes no schema; use type JSON_SCHEMA to give one.', `${at}.schema`);
    // "The system or user message must contain the word json" (api-docs.deepseek.com/guides/json_mode, read 2026-11-28).
    if (
      spec.jsonNeedsWord &&
      !messages.some((m) => (m.role === 'system' || m.role === 'user') && JSON_WORD.test(textOf(m)))
    ) {
      throw badInput(
        `${spec.id}'s JSON output needs the word "json" in a SYSTEM or USER message (its JSON mode guide); say so there, e.g. "Answer in JSON."`,
        'input.messages',
      );
    }
    return { wire: { type: 'json_object' }, answer: { strict: false }, messages };
  }
  const schema = f.schema as unknown;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw badInput(
      'responseFormat JSON_SCHEMA needs schema: a JSON Schema object, e.g. {"type": "object", "properties": {"city": {"type": "string"}}}.',
      `${at}.schema`,
    );
  }
  const strict = f.strict ?? true;
  const asked = schema as Record<string, unknown>;
  if (spec.jsonSchema)
    return { wire: { type: 'json_schema', schema: asked, strict }, answer: { schema: asked, strict }, messages };
  const instruction: ChatMessage = {
    role: 'system',
    content: `Answer with one JSON object and nothing else. It must match this JSON Schema: ${JSON.stringify(asked)}`,
  };
  return { wire: { type: 'json_object' }, answer: { schema: asked, strict }, messages: [instruction, ...messages] };
}

const textOf = (m: ChatMessage) => m.content ?? m.parts?.map((p) => (p.type === 'text' ? p.text : '')).join(' ') ?? '';

/** Compiled schemas by their JSON text: a caller that sends the same schema again does not pay for it again. */
const validators = new LRUCache<string, Validator>({ max: 64 });

/** The answer parsed, or why it could not be: not JSON, cut by maxTokens, or not matching the schema. */
export function checkAnswer(
  format: AnswerFormat,
  content: string | null,
  finish: string | null,
): { json: unknown; error: string | null } {
  if (finish === 'LENGTH') return { json: null, error: 'the answer was cut by maxTokens before its JSON ended' };
  let value: unknown;
  try {
    value = JSON.parse(content ?? '');
  } catch (error) {
    return { json: null, error: `the answer is not JSON (${(error as Error).message})` };
  }
  if (!format.schema) return { json: value, error: null };
  const text = JSON.stringify(format.schema);
  let validator = validators.get(text);
  if (!validator) validators.set(text, (validator = new Validator(format.schema as Schema, '2020-12', false)));
  const result = validator.validate(value);
  if (result.valid) return { json: value, error: null };
  const first = result.errors.at(-1) ?? result.errors[0];
  return {
    json: null,
    error: `the answer does not match the schema: ${first?.instanceLocation ?? '#'} ${first?.error ?? 'is not valid'}`,
  };
}
