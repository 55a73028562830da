import type { ChatCompletionChunk, ChatCompletionInput } from '../../generated/types.js';
import type { GatewayContext } from '../../context/request.js';
import type { ChatStream } from '../../upstreams/chat/client.js';
import type { ChatChunk } from '../../upstreams/chat/types.js';
import { firstServing, type AdmittedTargets } from './fallbacks.js';
import { checkAnswer } from './jsonFormat.js';
import { targetsWithDocuments } from './documents/attach.js';
import type { ValidCompletion } from './validate.js';

/** What the subscription's source stream yields: a chunk, or the error that ends it. */
export type StreamEvent = { chunk: ChatCompletionChunk } | { error: unknown };

/** The completion's targets with this gateway's clients and routes, every one checked (see targets.ts), its documents in their prompts. */
export const targetsOf = (input: ChatCompletionInput, ctx: GatewayContext) => targetsWithDocuments(input, ctx);

/** An opened stream whose first chunk has arrived (or that ended without one): output has started. */
export interface StartedStream {
  stream: ChatStream;
  chunks: AsyncIterator<ChatChunk>;
  first: IteratorResult<ChatChunk>;
}

/**
 * Opens the first target's stream that serves, up to its first chunk (so a fallback is tried only before output);
 * from the target admission found, on the connection it waited for, when it did.
 */
export function openStream(ctx: GatewayContext, targets: readonly ValidCompletion[], admitted?: AdmittedTargets) {
  return firstServing<StartedStream>(
    ctx,
    targets,
    async (t, retry) => {
      const held = t === admitted?.targets[admitted.from] ? admitted.takeConnection() : undefined;
      const stream = await t.client.stream(t.request, t.model, ctx, retry, held);
      const chunks = stream[Symbol.asyncIterator]();
      try {
        return { stream, chunks, first: await chunks.next() };
      } catch (error) {
        stream.cancel();
        throw error;
      }
    },
    admitted,
  );
}

/**
 * The last chunk of a stream says what a whole answer would: whether the model reasoned, and the answer parsed when
 * JSON was asked for (`answer.text` is the content streamed; a mismatch is reported in `jsonError`, never thrown:
 * the text has been sent already).
 */
export function finishChunk(
  out: ChatCompletionChunk,
  target: Pick<ValidCompletion, 'reasoningExpected' | 'answerFormat'>,
  answer: { text: string; reasoned: boolean },
  c: ChatChunk,
): void {
  out.reasoningUsed = target.reasoningExpected || answer.reasoned || !!c.usage?.reasoningTokens;
  if (!target.answerFormat) return;
  const checked = checkAnswer(target.answerFormat, answer.text, c.finishReason);
  out.json = checked.json;
  out.jsonError = checked.error;
}
