import type { Resolvers } from '../../generated/resolvers.js';
import type { ChatCompletionChunk } from '../../generated/types.js';
import type { ChatChunk } from '../../upstreams/chat/types.js';
import { eventStream, READY } from '../../execution/eventStream.js';
import { takeAdmitted } from './admission.js';
import { firstServing } from './fallbacks.js';
import { completeWithGraphTools, graphToolPlan, streamWithGraphTools } from './graphTools.js';
import { JSONObjectScalar, JSONScalar } from './jsonObject.js';
import { chunkOf, completionOf, providerOf } from './map.js';
import { finishChunk } from './stream.js';
import { createEmbeddings, generateImage } from './media.js';
import { openStream, targetsOf, type StreamEvent } from './stream.js';
import { utcDay } from './usage/store.js';
import { UploadScalar, type FileUpload } from './documents/uploaded.js';

export const resolvers: Resolvers = {
  JSONObject: JSONObjectScalar,
  JSON: JSONScalar,
  Upload: UploadScalar,
  Query: {
    chatProviders: async (_root, _args, ctx) => {
      const clients = [...ctx.services.clients.chat.values()];
      // What the replicas learned from the providers' refusals (source LEARNED), one round trip per provider.
      await Promise.all(clients.map((c) => c.models.recallAll()));
      return clients.map(providerOf);
    },
    chatUsage: (_root, { day }, ctx) => ctx.services.domains.chatUsage.list(day ?? utcDay()),
    chatDocuments: (_root, _args, ctx) => ctx.services.domains.chatDocuments.list(ctx),
  },
  ChatDocument: {
    provider: (doc) => doc.provider,
    status: (doc) => (doc.status === 'ready' ? 'READY' : 'UNAVAILABLE'),
    createdAt: (doc) => new Date(doc.createdAt).toISOString(),
  },
  Mutation: {
    createChatCompletion: async (_root, { input }, ctx) => {
      const plan = graphToolPlan(input, ctx);
      if (plan) return completeWithGraphTools(input, plan, ctx);
      const targets = await targetsOf(input, ctx);
      const { target, value, attempts } = await firstServing(ctx, targets, (t, retry) =>
        t.client.complete(t.request, t.model, ctx, retry),
      );
      await ctx.services.domains.chatUsage.record(target.client.spec.id, target.model.id, value.usage, ctx);
      return completionOf(target.client.spec.id, target.model.id, value, attempts, target);
    },
    createEmbeddings: (_root, { input }, ctx) => createEmbeddings(input, ctx),
    uploadChatDocument: (_root, { file, provider }, ctx) =>
      ctx.services.domains.chatDocuments.upload(file as Promise<FileUpload>, provider, ctx),
    deleteChatDocument: (_root, { id }, ctx) => ctx.services.domains.chatDocuments.delete(id, ctx),
    generateImage: (_root, { input }, ctx) => generateImage(input, ctx),
  },
  Subscription: {
    chatCompletionStream: {
      // Validation, the rate limiter, the upstream's status and the first chunk all come before the subscription
      // yields: up to there a failure may move on to a fallback target, and the last one answers as one result with
      // errors. An error after that ends the stream (see `resolve`), then it completes.
      // Admission (admission.ts) checked it and waited for its connection; without it (a root field under a
      // directive), the same checks run here, before any waiting.
      subscribe: async (_root, { input }, ctx) => {
        const admitted = takeAdmitted(ctx);
        const plan = admitted ? admitted.plan : graphToolPlan(input, ctx);
        if (plan) return streamWithGraphTools(input, plan, ctx, admitted);
        const { target, value } = admitted
          ? await openStream(ctx, admitted.targets, admitted)
          : await openStream(ctx, await targetsOf(input, ctx));
        const provider = target.client.spec.id;
        const model = target.model.id;
        const { stream, chunks, first } = value;
        // Its end (the subscriber left, the operation ended) stops the upstream read: `onEnd`, no abort signal per stream.
        return eventStream<StreamEvent>(
          (sink) =>
            (async () => {
              let count = 0;
              let last: ChatCompletionChunk | undefined;
              const answer = { text: '', reasoned: false };
              const mapped = (c: ChatChunk): ChatCompletionChunk => {
                if (c.delta.reasoningContent) answer.reasoned = true;
                if (target.answerFormat && c.delta.content) answer.text += c.delta.content;
                const out = chunkOf(provider, model, c);
                if (c.finishReason) finishChunk(out, target, answer, c);
                return out;
              };
              try {
                // `next` is let go before each wait: an async function keeps its locals across an await, and the
                // provider's chunk would stay alive until the next one came (StreamReading in upstreams/chat/client.ts).
                let next: IteratorResult<ChatChunk> | undefined = first;
                while (next && !next.done) {
                  last = mapped(next.value);
                  next = undefined;
                  count += 1;
                  // Waits while the subscriber is behind: the upstream body is then not read (TCP backpressure).
                  const room = sink.push({ chunk: last });
                  if (room !== READY) await room;
                  // A chunk the body holds already is taken without a promise and a turn of its own.
                  next = stream.nextNow() ?? (await chunks.next());
                }
              } catch (error) {
                // Not awaited: the last value, kept past the high-water mark; end() keeps it for the consumer, and push never
                // rejects.
                void sink.push({ error });
              }
              sink.end();
              // What was generated (and billed), also when the client left early: without the provider's usage, each
              // chunk counts as one completion token.
              const usage = last?.usage ?? { totalTokens: count, completionTokens: count };
              await ctx.services.domains.chatUsage.record(provider, model, usage, ctx);
              // Asked of the gateway's logger: `ctx.log` makes a child logger, worth it only for a line that is written.
              if (!ctx.services.log.isLevelEnabled('info')) return;
              ctx.log.info(
                {
                  provider,
                  model,
                  chunks: count,
                  finishReason: last?.finishReason ?? null,
                  usage: last?.usage ?? null,
                  cancelled: ctx.signal.aborted && !last?.finishReason,
                },
                'chat stream',
              );
            })(),
          ctx.signal,
          () => stream.cancel(),
        );
      },
      resolve: (event: StreamEvent) => {
        if ('error' in event) throw event.error;
        return event.chunk;
      },
    },
  },
};
