import type { ChatCompletion as GraphCompletion, ChatCompletionChunk, ChatCompletionInput, ChatGraphStep, ChatMessageInput, Resolvers } from '../../generated/resolvers.js';
import type { GatewayContext } from '../../runtime/context.js';
import { eventStream } from '../../subscriptions/eventStream.js';
import { chatClients, type ChatStream } from '../../upstreams/chat/client.js';
import type { ChatChunk, ChatUsage } from '../../upstreams/chat/types.js';
import { firstServing, type Attempt } from './fallback.js';
import { addUsage, assistantTurn, finalCompletion, graphToolPlan, runGraphCall, stepChunk, StreamedToolCalls, turnInput, withinBounds, type GraphToolPlan } from './graphTools.js';
import { JSONObjectScalar } from './jsonObject.js';
import { chunkOf, completionOf, providerOf } from './map.js';
import { createEmbeddings, generateImage } from './media.js';
import { completionTargets } from './targets.js';
import type { ValidCompletion } from './validate.js';
import { chatLedger } from './usage/ledger.js';
import { utcDay } from './usage/store.js';

/** What the subscription's source stream yields: a chunk, or the error that ends it. */
type StreamEvent = { chunk: ChatCompletionChunk } | { error: unknown };

const targetsOf = (input: Parameters<typeof completionTargets>[0], ctx: GatewayContext) =>
  completionTargets(input, chatClients(ctx.services), ctx.services.config.chatRoutes);

/** An opened stream whose first chunk has arrived (or that ended without one): output has started. */
interface StartedStream {
  stream: ChatStream;
  chunks: AsyncIterator<ChatChunk>;
  first: IteratorResult<ChatChunk>;
}

export const resolvers: Resolvers = {
  JSONObject: JSONObjectScalar,
  Query: {
    chatProviders: (_root, _args, ctx) => [...chatClients(ctx.services).values()].map(providerOf),
    chatUsage: (_root, { day }, ctx) => chatLedger(ctx.services).list(day ?? utcDay()),
  },
  Mutation: {
    createChatCompletion: async (_root, { input }, ctx) => {
      const plan = graphToolPlan(input, ctx);
      if (plan) return completeWithGraphTools(input, plan, ctx);
      const targets = await targetsOf(input, ctx);
      const { target, value, attempts } = await firstServing(ctx, targets, (t, retry) => t.client.complete(t.request, t.model, ctx.signal, retry));
      await chatLedger(ctx.services).record(target.client.spec.id, target.model.id, value.usage);
      return completionOf(target.client.spec.id, target.model.id, value, attempts);
    },
    createEmbeddings: (_root, { input }, ctx) => createEmbeddings(input, ctx),
    generateImage: (_root, { input }, ctx) => generateImage(input, ctx),
  },
  Subscription: {
    chatCompletionStream: {
      // Validation, the rate limiter, the upstream's status and the first chunk all come before the subscription
      // yields: up to there a failure may move on to a fallback target, and the last one answers as one result with
      // errors. An error after that ends the stream (see `resolve`), then it completes.
      subscribe: async (_root, { input }, ctx) => {
        const plan = graphToolPlan(input, ctx);
        if (plan) return streamWithGraphTools(input, plan, ctx);
        const { target, value } = await openStream(ctx, await targetsOf(input, ctx));
        const provider = target.client.spec.id;
        const model = target.model.id;
        const { stream, chunks, first } = value;
        return eventStream<StreamEvent>((sink) => {
          sink.signal.addEventListener('abort', () => stream.cancel(), { once: true });
          return (async () => {
            let count = 0;
            let last: ChatCompletionChunk | undefined;
            try {
              for (let next = first; !next.done; next = await chunks.next()) {
                last = chunkOf(provider, model, next.value);
                count += 1;
                // Waits while the subscriber is behind: the upstream body is then not read (TCP backpressure).
                await sink.push({ chunk: last });
              }
            } catch (error) {
              sink.push({ error });
            }
            sink.end();
            // What was generated (and billed), also when the client left early: without the provider's usage, each
            // chunk counts as one completion token.
            const usage = last?.usage ?? { totalTokens: count, completionTokens: count };
            await chatLedger(ctx.services).record(provider, model, usage);
            ctx.log.info(
              { provider, model, chunks: count, finishReason: last?.finishReason ?? null, usage: last?.usage ?? null, cancelled: ctx.signal.aborted && !last?.finishReason },
              'chat stream',
            );
          })();
        }, ctx.signal);
      },
      resolve: (event: StreamEvent) => {
        if ('error' in event) throw event.error;
        return event.chunk;
      },
    },
  },
};

/** Opens the first target's stream that serves, up to its first chunk (so a fallback is tried only before output). */
function openStream(ctx: GatewayContext, targets: readonly ValidCompletion[]) {
  return firstServing<StartedStream>(ctx, targets, async (t, retry) => {
    const stream = await t.client.stream(t.request, t.model, ctx.signal, retry);
    const chunks = stream[Symbol.asyncIterator]();
    try {
      return { stream, chunks, first: await chunks.next() };
    } catch (error) {
      stream.cancel();
      throw error;
    }
  });
}

/**
 * A completion with graph tools: each turn is one completion with the operations offered as tools; the model's calls
 * are run as those operations and their results added to the conversation, until it answers or a bound stops it.
 */
async function completeWithGraphTools(input: ChatCompletionInput, plan: GraphToolPlan, ctx: GatewayContext): Promise<GraphCompletion> {
  const messages: ChatMessageInput[] = [...input.messages];
  const steps: ChatGraphStep[] = [];
  const attempts: Attempt[] = [];
  let usage: ChatUsage | undefined;
  for (let turn = 1; ; turn++) {
    const targets = await targetsOf(turnInput(input, plan, messages), ctx);
    const { target, value, attempts: tried } = await firstServing(ctx, targets, (t, retry) => t.client.complete(t.request, t.model, ctx.signal, retry));
    attempts.push(...tried);
    await chatLedger(ctx.services).record(target.client.spec.id, target.model.id, value.usage);
    usage = addUsage(usage, value.usage);
    const completion = completionOf(target.client.spec.id, target.model.id, value, attempts);
    const choice = value.choices[0];
    const calls = choice?.finishReason === 'TOOL_CALLS' ? (choice.message.toolCalls ?? []) : [];
    if (calls.length === 0) return finalCompletion(completion, steps, usage, false);
    if (!withinBounds(plan, turn, steps.length, calls)) return finalCompletion(completion, steps, usage, true);
    messages.push(assistantTurn(choice.message.content, calls));
    for (const call of calls) {
      const { step, message } = await runGraphCall(ctx, plan, call, turn);
      steps.push(step);
      messages.push(message);
    }
  }
}

/**
 * The same loop streamed: the model's text as it comes, one chunk per operation called (the call, its arguments and
 * the start of its result), and a last chunk with the finish and the usage of all turns. The first turn opens before
 * the subscription yields, as a plain stream does; a failure after that ends the stream with the error.
 */
async function streamWithGraphTools(input: ChatCompletionInput, plan: GraphToolPlan, ctx: GatewayContext) {
  const messages: ChatMessageInput[] = [...input.messages];
  let opened = await openStream(ctx, await targetsOf(turnInput(input, plan, messages), ctx));
  return eventStream<StreamEvent>((sink) => {
    sink.signal.addEventListener('abort', () => opened.value.stream.cancel(), { once: true });
    return (async () => {
      const steps: ChatGraphStep[] = [];
      let usage: ChatUsage | undefined;
      let turn = 1;
      let finish: ChatCompletionChunk['finishReason'] = null;
      try {
        for (;; turn++) {
          const provider = opened.target.client.spec.id;
          const model = opened.target.model.id;
          const calls = new StreamedToolCalls();
          let id = '';
          let text = '';
          let count = 0;
          let turnUsage: ChatUsage | null = null;
          finish = null;
          const { chunks, first } = opened.value;
          for (let next = first; !next.done; next = await chunks.next()) {
            const c = next.value;
            count += 1;
            id = c.id;
            calls.add(c);
            finish = c.finishReason ?? finish;
            turnUsage = c.usage ?? turnUsage;
            if (!c.delta.content && !c.delta.reasoningContent) continue;
            text += c.delta.content ?? '';
            await sink.push({ chunk: chunkOf(provider, model, { ...c, delta: { ...c.delta, toolCalls: null }, finishReason: null, usage: null }) });
          }
          const used = turnUsage ?? { promptTokens: 0, completionTokens: count, totalTokens: count };
          await chatLedger(ctx.services).record(provider, model, used);
          usage = addUsage(usage, used);
          const list = finish === 'TOOL_CALLS' ? calls.list() : [];
          if (list.length > 0 && !withinBounds(plan, turn, steps.length, list)) finish = 'GRAPH_TOOL_LIMIT';
          else if (list.length > 0) {
            messages.push(assistantTurn(text || null, list));
            for (const call of list) {
              const { step, message } = await runGraphCall(ctx, plan, call, turn);
              steps.push(step);
              messages.push(message);
              await sink.push({ chunk: stepChunk({ id, provider, model }, step) });
            }
            opened = await openStream(ctx, await targetsOf(turnInput(input, plan, messages), ctx));
            continue;
          }
          const empty = { role: null, content: null, reasoningContent: null, toolCalls: null };
          await sink.push({ chunk: { id, provider, model, index: 0, delta: empty, finishReason: finish, usage: { ...usage, reasoningTokens: usage.reasoningTokens ?? null }, graphStep: null } });
          break;
        }
      } catch (error) {
        sink.push({ error });
      }
      sink.end();
      ctx.log.info({ graphTools: [...plan.names], turns: turn, graphSteps: steps.length, finishReason: finish, usage: usage ?? null }, 'chat stream with graph tools');
    })();
  }, ctx.signal);
}
