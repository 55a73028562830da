import type { GatewayContext } from '../../../context/request.js';
import type { ChatCompletionInput } from '../../../generated/types.js';
import type { ChatMessage, ChatRequest } from '../../../upstreams/chat/types.js';
import { completionTargets } from '../targets.js';
import type { ValidCompletion } from '../validate.js';

/**
 * A completion's targets with the caller's documents in their prompts. In the order that keeps refusals free: the
 * documents are checked (no upstream request), every target is validated and its context window checked with the
 * documents' token counts, and only then are the texts read (from the gateway's store, the shared cache, or the
 * provider once) and placed.
 */
export async function targetsWithDocuments(
  input: ChatCompletionInput,
  ctx: GatewayContext,
): Promise<ValidCompletion[]> {
  const { services } = ctx;
  const ids = input.documents ?? [];
  const documents = ids.length ? await services.domains.chatDocuments.forCompletion(ids, ctx) : [];
  const targets = await completionTargets(input, services.clients.chat, services.config.chatRoutes, documents);
  if (!documents.length) return targets;
  const texts = await Promise.all(
    documents.map(async (d) => ({ name: d.fileName, text: await services.domains.chatDocuments.text(d, ctx) })),
  );
  for (const t of targets) t.request = withDocuments(t.request, texts);
  return targets;
}

/**
 * The request with each document's text as a system message, after the caller's own leading system messages and
 * before the conversation: where Kimi's file guide puts a file's content, and a prefix every provider's cache keeps
 * from one turn to the next. A first line names the document (Kimi's own content answer carries its `filename`):
 * the model can then tell which document says what, and name it.
 */
export function withDocuments(
  request: ChatRequest,
  documents: ReadonlyArray<{ name: string; text: string }>,
): ChatRequest {
  const messages = request.messages;
  let at = 0;
  while (at < messages.length && messages[at].role === 'system') at++;
  const placed: ChatMessage[] = documents.map((d) => ({ role: 'system', content: documentMessage(d.name, d.text) }));
  return { ...request, messages: [...messages.slice(0, at), ...placed, ...messages.slice(at)] };
}

/** A document as its system message: `Document: <name>`, a blank line, its text. */
export const documentMessage = (name: string, text: string) => `Document: ${name}\n\n${text}`;
