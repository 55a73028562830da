import type { ChatCompletionChunk, Resolvers } from '../../generated/resolvers.js';
import type { GatewayContext } from '../../runtime/context.js';
import { eventStream } from '../../subscriptions/eventStream.js';
import { chatClients, type ChatStream } from '../../upstreams/chat/client.js';
import type { ChatChunk } from '../../upstreams/chat/types.js';
import { firstServing } from './fallback.js';
import { JSONObjectScalar } from './jsonObject.js';
import { chunkOf, completionOf, providerOf } from './map.js';
import { createEmbeddings, generateImage } from './media.js';
import { completionTargets } from './targets.js';
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
      const targets = await targetsOf(input, ctx);
      const { target, value, attempts } = await firstServing(ctx, targets, (t, retry) => t.client.complete(t.request, t.model, ctx.signal, retry, ctx.credentials.client));
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
        const targets = await targetsOf(input, ctx);
        const { target, value } = await firstServing<StartedStream>(ctx, targets, async (t, retry) => {
          const stream = await t.client.stream(t.request, t.model, ctx.signal, retry, ctx.credentials.client);
          const chunks = stream[Symbol.asyncIterator]();
          try {
            return { stream, chunks, first: await chunks.next() };
          } catch (error) {
            stream.cancel();
            throw error;
          }
        });
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
