import { createHash } from 'node:crypto';
import type { ChatRequest, ToolDefinition } from './chatRequest.js';
import { mulberry32 } from '../prng.js';
import {
  answerSentences,
  emulatedNote,
  readConversation,
  reasoningSentences,
  tokenize,
  type Conversation,
} from './compose.js';

/** Why a choice ended, provider-neutral; each provider names it in its own `finish_reason`. */
export type FinishCause = 'stop' | 'length' | 'tool_calls' | 'filtered' | 'system_error' | 'context_exceeded' | 'error';

/**
 * `[[long:N]]` in a user message: an answer of N content tokens (at most {@link MAX_LONG_ANSWER}), for load tests;
 * `[[long:N:B]]` also pads each streamed token to B characters (at most 65536), so that a test fills socket buffers
 * with fewer events.
 */
const LONG = /\[\[long:(\d+)(?::(\d+))?\]\]/;
export const MAX_LONG_ANSWER = 1_000_000;

/** Markers in a user message that force the rarer endings, so gateway tests can reach them. */
export const TRIGGERS: Readonly<Record<string, FinishCause>> = {
  '[[error]]': 'error',
  '[[network_error]]': 'system_error',
  '[[context]]': 'context_exceeded',
  '[[sensitive]]': 'filtered',
};

export interface GeneratedToolCall {
  id: string;
  name: string;
  /** The arguments JSON as the fragments concatenate (cut short when `max_tokens` ran out). */
  arguments: string;
  /** Streamed pieces of 5–10 characters; each counts as one completion token. */
  fragments: string[];
}

export interface GeneratedChoice {
  reasoning: string[];
  content: string[];
  /** One call, or several in one turn (parallel tool calls). */
  toolCalls?: GeneratedToolCall[];
  cause: FinishCause;
  /** `[[long:N:B]]`: each streamed content token is padded to this many characters. */
  tokenLength?: number;
}

export interface GenerateOptions {
  /** Emit `reasoning_content` tokens before the content. */
  reasoning: boolean;
  /** Scales the reasoning's length: `low` halves it, `max` doubles it. */
  effort?: string;
  /** `max_tokens` leaves the reasoning out of its count (Ark, whose `max_completion_tokens` counts it). */
  maxTokensExcludesReasoning?: boolean;
  /** Trigger causes this provider reports; a trigger for any other is ignored. */
  triggers: ReadonlySet<FinishCause>;
  /** A long answer, for a person watching (the sandbox's `chatAnswerLength`): more said, longer reasoning. */
  long?: boolean;
}

export function completionTokens(c: GeneratedChoice): number {
  return c.reasoning.length + c.content.length + (c.toolCalls ?? []).reduce((n, call) => n + call.fragments.length, 0);
}

/** How much longer than the default each effort makes the reasoning (providers map their own names onto these). */
const EFFORT_SCALE: Readonly<Record<string, number>> = {
  minimal: 0.25,
  low: 0.5,
  medium: 1,
  high: 1,
  xhigh: 1.5,
  max: 2,
  ultra: 2,
};

/**
 * The deterministic answer: the same model, messages and sampling parameters give the same tokens. `stream`,
 * `max_tokens` and `stop` are left out of the seed, so a cut answer is a prefix of the full one.
 */
export function generate(req: ChatRequest, opts: GenerateOptions): GeneratedChoice[] {
  const r = req.raw;
  const seed = createHash('sha256')
    .update(
      JSON.stringify([
        r.model,
        r.messages,
        r.tools,
        r.tool_choice,
        r.temperature,
        r.top_p,
        r.seed,
        r.thinking,
        ...(r.response_format ? [r.response_format] : []),
      ]),
    )
    .digest();
  return Array.from({ length: req.n }, (_, i) => generateChoice(req, opts, seed, i));
}

function generateChoice(req: ChatRequest, opts: GenerateOptions, seed: Buffer, index: number): GeneratedChoice {
  const rng = mulberry32(seed.readUInt32BE(0) ^ Math.imul(index + 1, 0x9e3779b9));
  const conversation = readConversation(req);
  // Drawn only when reasoning, so that an answer without it is the one the same request always had.
  const reasoning = opts.reasoning
    ? exactly(
        reasoningSentences(
          conversation,
          req.tools.map((t) => t.name),
          rng,
        ),
        Math.max(
          2,
          Math.round((10 + Math.floor(rng() * 21)) * (EFFORT_SCALE[opts.effort ?? 'high'] ?? 1) * (opts.long ? 3 : 1)),
        ),
      )
    : [];
  const userText = req.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.text)
    .join('\n');
  const long = LONG.exec(userText);
  const content = long
    ? sentences(rng, Math.min(Math.max(2, Number(long[1])), MAX_LONG_ANSWER), OPENERS)
    : tokenize([...answerSentences(conversation, rng, opts.long), emulatedNote(req.model)].join(' '));
  const choice: GeneratedChoice = { reasoning, content: clipAtStop(content, req.stop), cause: 'stop' };
  if (long?.[2]) choice.tokenLength = Math.min(Number(long[2]), 65_536);

  const trigger = Object.entries(TRIGGERS).find(
    ([marker, cause]) => opts.triggers.has(cause) && userText.includes(marker),
  );
  const scripted = scriptedToolCalls(req, userText);
  const tools = trigger || scripted ? [] : toolsToCall(req);
  if (trigger) {
    // The answer breaks off half-way, as moderation or a failed inference does.
    choice.content = choice.content.slice(0, Math.max(1, Math.ceil(choice.content.length / 2)));
    choice.cause = trigger[1];
  } else if (scripted === 'answer') {
    // The script's calls are done: the answer follows the tool results.
  } else if (scripted || tools.length) {
    // Unprompted calls ask about the question's subject where the tool takes free text ("Exchange" as a service id).
    const calls = scripted
      ? scripted
      : tools.map((t) => ({
          name: t.name,
          arguments: JSON.stringify(sampleSchema(t.parameters, rng, 0, conversation.subject?.bare)),
        }));
    choice.content = [];
    choice.toolCalls = calls.map((call, n) => {
      const fragments: string[] = [];
      for (let at = 0; at < call.arguments.length;) {
        const size = 5 + Math.floor(rng() * 6);
        fragments.push(call.arguments.slice(at, at + size));
        at += size;
      }
      const id = `call_${seed.toString('hex', 4, 16)}${index ? index.toString(16) : ''}${n ? `_${n}` : ''}`;
      return { id, name: call.name, arguments: call.arguments, fragments };
    });
    choice.cause = 'tool_calls';
  } else if (req.responseFormat) {
    choice.content = jsonAnswer(req, userText, conversation, rng);
  }
  const budget = opts.maxTokensExcludesReasoning ? req.maxCompletionTokens : (req.maxCompletionTokens ?? req.maxTokens);
  const capped = applyMaxTokens(choice, budget);
  // Ark's max_tokens caps the answer after the reasoning.
  return opts.maxTokensExcludesReasoning && req.maxTokens !== undefined ? capAnswer(capped, req.maxTokens) : capped;
}

/**
 * A JSON answer in 4-character tokens: a value of the schema Ark was given, or of the one a system message gives as
 * "JSON Schema: {…}" (how the gateway asks the providers that take no schema), else `{"answer": "<a sentence>"}`.
 * `[[json:bad]]` in a user message makes the model answer JSON that matches nothing asked, so clients can see it.
 */
function jsonAnswer(req: ChatRequest, userText: string, conversation: Conversation, rng: () => number): string[] {
  const format = req.responseFormat!;
  let schema: unknown = format.type === 'json_schema' ? format.schema : undefined;
  if (schema === undefined) {
    const system = req.messages.find((m) => m.role === 'system' && m.text.includes('JSON Schema: '));
    try {
      if (system) schema = JSON.parse(system.text.slice(system.text.indexOf('JSON Schema: ') + 'JSON Schema: '.length));
    } catch {
      schema = undefined;
    }
  }
  const value = userText.includes('[[json:bad]]')
    ? { unexpected: true }
    : schema
      ? sampleSchema(schema, rng, 0)
      : { answer: answerSentences(conversation, rng).slice(0, 2).join(' ') };
  const text = JSON.stringify(value);
  const tokens: string[] = [];
  for (let at = 0; at < text.length; at += 4) tokens.push(text.slice(at, at + 4));
  return tokens;
}

/**
 * `[[tool:Name {"json":"arguments"}]]` in a user message scripts the model's tool calls: the first model turn after
 * the last user message calls the first marker's tool with exactly those arguments (`{}` when left out), the turn
 * after one tool result the second, and so on; then the model answers in text. The tool need not be offered (so
 * that tests can make a model call what it was not given). `[[tool-loop]]` repeats the last marker for ever, as a
 * model that never stops calling tools does. Tools are called only when the request offers some.
 */
const TOOL_MARKER = /\[\[tool:([A-Za-z0-9_-]{1,64})(?:\s+(\{.*?\}))?\]\]/g;

function scriptedToolCalls(
  req: ChatRequest,
  userText: string,
): Array<{ name: string; arguments: string }> | 'answer' | undefined {
  const markers = [...userText.matchAll(TOOL_MARKER)];
  if (markers.length === 0 || req.tools.length === 0 || req.toolChoice === 'none') return undefined;
  // Markers written back to back (`]][[`) are one turn's parallel calls; each turn answers one group.
  const groups: RegExpExecArray[][] = [];
  for (const m of markers) {
    const last = groups.at(-1)?.at(-1);
    if (last && last.index + last[0].length === m.index && req.parallelToolCalls) groups.at(-1)!.push(m);
    else groups.push([m]);
  }
  const lastUser = req.messages.map((m) => m.role).lastIndexOf('user');
  const turns = req.messages.slice(lastUser + 1).filter((m) => m.role === 'assistant' && m.toolCalls > 0).length;
  const group =
    turns < groups.length ? groups[turns] : userText.includes('[[tool-loop]]') ? groups[groups.length - 1] : undefined;
  return group ? group.map((m) => ({ name: m[1], arguments: m[2] ?? '{}' })) : 'answer';
}

/**
 * The tools the model calls unprompted: none once it has just been given a tool result; the named one; else the first
 * offered, and the second as well in the same turn when two or more are offered and parallel calls are allowed.
 */
function toolsToCall(req: ChatRequest): ToolDefinition[] {
  if (req.tools.length === 0 || req.toolChoice === 'none') return [];
  if (req.messages[req.messages.length - 1].role === 'tool') return [];
  const choice = req.toolChoice;
  if (typeof choice === 'object') return req.tools.filter((t) => t.name === choice.name).slice(0, 1);
  return req.tools.slice(0, req.parallelToolCalls ? 2 : 1);
}

/** Keeps the text before the first stop sequence, splitting the token it starts in. */
function clipAtStop(tokens: string[], stop: readonly string[]): string[] {
  // Without stop sequences the whole answer's text need not be built (100,000 tokens for a load test's answer).
  if (!stop.length) return tokens;
  const text = tokens.join('');
  const cut = Math.min(...stop.map((s) => text.indexOf(s)).filter((i) => i !== -1));
  if (!Number.isFinite(cut)) return tokens;
  const kept: string[] = [];
  let at = 0;
  for (const t of tokens) {
    if (at + t.length > cut) {
      if (cut > at) kept.push(t.slice(0, cut - at));
      break;
    }
    kept.push(t);
    at += t.length;
  }
  return kept;
}

/** Stops after `max` tokens in emission order (reasoning, content, tool-call fragments) with cause `length`. */
function applyMaxTokens(c: GeneratedChoice, max: number | undefined): GeneratedChoice {
  if (max === undefined || completionTokens(c) <= max) return c;
  const reasoning = c.reasoning.slice(0, max);
  const content = c.content.slice(0, max - reasoning.length);
  let left = max - reasoning.length - content.length;
  const toolCalls: GeneratedToolCall[] = [];
  for (const call of c.toolCalls ?? []) {
    if (left <= 0) break;
    const fragments = call.fragments.slice(0, left);
    left -= fragments.length;
    toolCalls.push({ ...call, fragments, arguments: fragments.join('') });
  }
  return { reasoning, content, ...(toolCalls.length ? { toolCalls } : {}), cause: 'length' };
}

/** Caps what comes after the reasoning (Ark's `max_tokens`). */
function capAnswer(c: GeneratedChoice, max: number): GeneratedChoice {
  const rest = applyMaxTokens({ ...c, reasoning: [] }, max);
  return rest.cause === 'length' && completionTokens(c) - c.reasoning.length > max
    ? { ...rest, reasoning: c.reasoning }
    : c;
}

/** Exactly `count` tokens of the sentences given, the last one a full stop. */
function exactly(sentences: Iterable<string>, count: number): string[] {
  const tokens: string[] = [];
  for (const sentence of sentences) {
    tokens.push(...tokenize(tokens.length ? ` ${sentence}` : sentence));
    if (tokens.length >= count) break;
  }
  tokens.length = count - 1;
  if (/^\s*[.,]$/.test(tokens[count - 2] ?? '')) tokens[count - 2] = ' again';
  tokens.push('.');
  return tokens;
}

// Filler for `[[long:N]]` answers, which load tests read by the megabyte and nobody reads as text.
const OPENERS = ['The', 'A', 'This', 'Each', 'Every', 'Our', 'In', 'When', 'Today', 'Then'];
// `/` separates words; `|` splits a word into word pieces, as tokenizers do with rarer words.
const WORDS = (
  ' gateway/ streams/ tokens/ request/ response/ up|stream/ emu|lator/ schema/ query/ field/ resolver/ cache/ client/' +
  ' server/ model/ provider/ latency/ quickly/ reliably/ the/ a/ with/ and/ to/ of/ for/ from/ in/ on/ every/ data/' +
  ' service/ health/ issue/ report/ title/ movie/ answer/ message/ user/ chat/ completion/ returns/ sends/ keeps/' +
  ' checks/ reads/ writes/ builds/ maps/ retries/ waits/ succeeds/ small/ large/ simple/ clear/ stable/ fast/' +
  ' careful/ determin|istic/ real|istic/ new/ first/ last/ next/ one/ two/ three/ 42/ seconds/ per/ minute/ window/' +
  ' limit/ rate/ error/ status/ code/ header/ body/ JSON/ event/ chunk/ test/ run/ result/ token|izer/ Graph/ API/' +
  ' GraphQL/ loop|back/ batch/ page/ cursor/ plan/ field|s/ sub|scription/ web|socket'
)
  .split('/')
  // Split into pieces once: a 100,000-token answer picks ~70,000 words.
  .map((word) => word.split('|'));

/** Word-piece tokens forming sentences, exactly `count` long, ending with a full stop. */
function sentences(rng: () => number, count: number, openers: readonly string[]): string[] {
  const tokens: string[] = [];
  let left = 0;
  while (tokens.length < count - 1) {
    if (left === 0) {
      const opener = pick(rng, openers);
      tokens.push(tokens.length ? ` ${opener}` : opener);
      left = 5 + Math.floor(rng() * 10);
      continue;
    }
    const pieces = pick(rng, WORDS);
    for (const piece of pieces) tokens.push(piece);
    left -= 1;
    if (left === 0) tokens.push('.');
    else if (rng() < 0.08) tokens.push(',');
  }
  tokens.length = count - 1;
  if (tokens[count - 2] === '.' || tokens[count - 2] === ',') tokens[count - 2] = ' again';
  tokens.push('.');
  return tokens;
}

const SAMPLE_STRINGS = [
  'Hangzhou',
  'Beijing',
  'Berlin',
  'Lisbon',
  'weekly report',
  'Exchange Online',
  'tt0078346',
  'celsius',
];

/**
 * A value that satisfies a (simple) JSON Schema: every property filled, enums, bounds and defaults respected; free
 * text is `text` when given (and it fits the schema's pattern), as a model puts the question's subject into a call.
 */
function sampleSchema(schema: unknown, rng: () => number, depth: number, text?: string): unknown {
  const s = (typeof schema === 'object' && schema !== null ? schema : {}) as Record<string, unknown>;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[Math.floor(rng() * s.enum.length)];
  if ('const' in s) return s.const;
  if ('default' in s && s.default !== null) return s.default;
  const declared = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  const type = declared ?? (s.properties ? 'object' : 'string');
  const min = typeof s.minimum === 'number' ? s.minimum : undefined;
  const max = typeof s.maximum === 'number' ? s.maximum : undefined;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      if (depth < 4)
        for (const [key, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>))
          out[key] = sampleSchema(sub, rng, depth + 1, text);
      return out;
    }
    case 'array':
      return depth < 4
        ? Array.from({ length: 1 + Math.floor(rng() * 2) }, () => sampleSchema(s.items, rng, depth + 1, text))
        : [];
    case 'integer': {
      const lo = Math.ceil(min ?? 1);
      return lo + Math.floor(rng() * (Math.floor(max ?? lo + 99) - lo + 1));
    }
    case 'number': {
      const lo = min ?? 0;
      return Math.round((lo + rng() * ((max ?? lo + 100) - lo)) * 100) / 100;
    }
    case 'boolean':
      return rng() < 0.5;
    case 'null':
      return null;
    default:
      if (s.format === 'date') return '2025-01-15';
      if (s.format === 'date-time') return '2025-01-15T09:30:00Z';
      if (typeof s.pattern === 'string') {
        const pattern = s.pattern;
        if (text !== undefined && safeTest(pattern, text)) return text;
        const fitting = SAMPLE_STRINGS.filter((sample) => safeTest(pattern, sample));
        return pick(rng, fitting.length ? fitting : SAMPLE_STRINGS);
      }
      return text ?? pick(rng, SAMPLE_STRINGS);
  }
}

function pick<T>(rng: () => number, list: readonly T[]): T {
  return list[Math.floor(rng() * list.length)];
}

/** Whether `text` matches a schema's pattern; a pattern JavaScript cannot compile matches nothing. */
function safeTest(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return false;
  }
}
