import type { Tiktoken } from 'js-tiktoken/lite';
import { ErrorCode, GatewayError } from '../../errors/codes.js';
import type { ChatClient } from '../../upstreams/chat/client.js';
import type { ChatModelSpec } from '../../upstreams/chat/provider.js';
import type { ChatRequest } from '../../upstreams/chat/types.js';

/**
 * Context-window preflight: a completion whose prompt plus `maxTokens` cannot fit the model's window is refused
 * before it is sent, naming model, estimate and window.
 *
 * The estimate is o200k_base (js-tiktoken, ranks shipped in the package), OpenAI's multilingual vocabulary and the
 * closest public one to these providers' Chinese–English tokenizers, over every text the provider reads (messages,
 * tool calls, tool schemas), plus {@link PER_MESSAGE} tokens of framing per message; images are left to the provider.
 * Tokenizers differ by some percent, so the gateway refuses only when the estimate less {@link SAFETY_MARGIN} still
 * does not fit: a borderline request goes to the provider, whose own count decides (its refusal is BAD_USER_INPUT too).
 */
export const SAFETY_MARGIN = 0.1;
export const PER_MESSAGE = 3;

let encoder: Promise<Tiktoken> | undefined;

/** Loaded on first need (about a second of parsing), then shared. */
function tokenizer(): Promise<Tiktoken> {
  encoder ??= Promise.all([import('js-tiktoken/lite'), import('js-tiktoken/ranks/o200k_base')]).then(
    ([{ Tiktoken }, ranks]) => new Tiktoken(ranks.default),
  );
  return encoder;
}

/** The window the gateway knows for `model`: `<ID>_CONTEXT_WINDOWS` first, then the provider's table. */
export function contextWindowOf(client: ChatClient, model: ChatModelSpec): number | undefined {
  const configured = client.config.contextWindows;
  return (
    configured[model.id] ?? (model.upstreamModel ? configured[model.upstreamModel] : undefined) ?? model.contextWindow
  );
}

/** The bytes of the prompt's texts and the messages' overhead, summed without the list {@link texts} makes. */
function promptBytes(request: ChatRequest): number {
  let bytes = PER_MESSAGE * request.messages.length;
  for (const m of request.messages) {
    if (m.content) bytes += Buffer.byteLength(m.content);
    if (m.parts) for (const p of m.parts) if (p.type === 'text') bytes += Buffer.byteLength(p.text);
    if (m.toolCalls) for (const c of m.toolCalls) bytes += Buffer.byteLength(c.name) + Buffer.byteLength(c.arguments);
  }
  if (request.tools?.length) bytes += Buffer.byteLength(JSON.stringify(request.tools));
  return bytes;
}

function texts(request: ChatRequest): string[] {
  const out: string[] = [];
  for (const m of request.messages) {
    if (m.content) out.push(m.content);
    for (const p of m.parts ?? []) if (p.type === 'text') out.push(p.text);
    for (const c of m.toolCalls ?? []) out.push(c.name, c.arguments);
  }
  if (request.tools?.length) out.push(JSON.stringify(request.tools));
  return out;
}

/** Runs without whitespace at least this long are tokenized in pieces of {@link PIECE} characters. */
const LONG_RUN = /\S{64,}/g;
const PIECE = 32;

/**
 * `text` cut so that no part holds a run of more than {@link PIECE} characters without whitespace. js-tiktoken merges
 * byte pairs in time quadratic in a run's length (20,000 characters of one "word", or of Chinese without punctuation,
 * took 50 s of CPU); cut, a prompt costs time linear in its length, and the count grows by at most about one token
 * per cut (a few percent of a long run, within the safety margin).
 */
export function* tokenizerParts(text: string): Generator<string> {
  let from = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    const end = run.index + run[0].length;
    if (run.index > from) yield text.slice(from, run.index);
    for (let at = run.index; at < end;) {
      let next = Math.min(end, at + PIECE);
      // Never between the two halves of a surrogate pair.
      if (next < end && (text.charCodeAt(next) & 0xfc00) === 0xdc00) next++;
      yield text.slice(at, next);
      at = next;
    }
    from = end;
  }
  if (from < text.length) yield text.slice(from);
}

/** Estimated prompt tokens of `request` (before the margin). */
export async function estimatePromptTokens(request: ChatRequest): Promise<number> {
  const enc = await tokenizer();
  let n = PER_MESSAGE * request.messages.length;
  for (const t of texts(request)) for (const part of tokenizerParts(t)) n += enc.encode(part).length;
  return n;
}

/** Characters tokenized between two turns of the event loop while counting a document. */
const SLICE = 64 * 1024;

/**
 * Estimated tokens of a document's text as one system message (its text plus {@link PER_MESSAGE}), counted once when
 * the document is uploaded. A long text takes a second or more of CPU: the count gives the event loop a turn every
 * {@link SLICE} characters, so other requests are not held up behind it.
 */
export async function estimateDocumentTokens(text: string): Promise<number> {
  const enc = await tokenizer();
  let n = PER_MESSAGE;
  for (let from = 0; from < text.length;) {
    // Cut after a whitespace near the slice's end, where a token boundary is anyway.
    let to = Math.min(text.length, from + SLICE);
    if (to < text.length) {
      const space = text.lastIndexOf(' ', to);
      if (space > from + SLICE / 2) to = space + 1;
      else if ((text.charCodeAt(to) & 0xfc00) === 0xdc00) to++;
    }
    for (const part of tokenizerParts(text.slice(from, to))) n += enc.encode(part).length;
    from = to;
    if (from < text.length) await new Promise((resolve) => setImmediate(resolve));
  }
  return n;
}

/** A document a completion places in its prompt, as the preflight counts it: its tokens were counted at upload. */
export interface CountedDocument {
  fileName: string;
  tokens: number;
}

/**
 * Throws BAD_USER_INPUT when the request cannot fit; unknown windows are not checked. `documents` are added to the
 * prompt after this check: their tokens (counted once, at upload) are added to the estimate of the rest.
 */
export async function preflight(
  client: ChatClient,
  model: ChatModelSpec,
  request: ChatRequest,
  documents: readonly CountedDocument[] = [],
): Promise<void> {
  const window = contextWindowOf(client, model);
  if (window === undefined) return;
  const output = request.maxTokens ?? 0;
  let documentTokens = 0;
  for (const d of documents) documentTokens += d.tokens;
  // A byte-level BPE token is at least one byte: a prompt with fewer bytes than room left fits without tokenizing.
  const bytes = promptBytes(request);
  if (bytes + documentTokens + output <= window) return;
  const estimate = (await estimatePromptTokens(request)) + documentTokens;
  if (Math.floor(estimate * (1 - SAFETY_MARGIN)) + output <= window) return;
  const asked = output ? ` plus maxTokens ${output}` : '';
  const of = documents.length
    ? ` (${documents.map((d) => `${d.fileName} ${d.tokens}`).join(', ')} of them from documents)`
    : '';
  const shorten = documents.length ? 'leave out documents, shorten the messages' : 'shorten the messages';
  throw new GatewayError(
    ErrorCode.BadUserInput,
    `The prompt is about ${estimate} tokens${of}${asked}, more than ${client.spec.id} model ${model.id}'s context window of ${window} tokens; ${shorten}${output ? ', lower maxTokens' : ''} or pick a model with a larger window.`,
    {
      argument: documents.length ? 'input.documents' : 'input.messages',
      provider: client.spec.id,
      model: model.id,
      estimatedTokens: estimate,
      documentTokens,
      maxTokens: output,
      contextWindow: window,
    },
  );
}
