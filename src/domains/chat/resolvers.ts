import type { ChatCompletionChunk, Resolvers } from '../../generated/resolvers.js';
import { eventStream } from '../../subscriptions/eventStream.js';
import { chatClients } from '../../upstreams/chat/client.js';
import { JSONObjectScalar } from './jsonObject.js';
import { chunkOf, completionOf, providerOf } from './map.js';
import { validateCompletion } from './validate.js';

/** What the subscription's source stream yields: a chunk, or the error that ends it. */
type StreamEvent = { chunk: ChatCompletionChunk } | { error: unknown };

export const resolvers: Resolvers = {
  JSONObject: JSONObjectScalar,
  Query: {
    chatProviders: (_root, _args, ctx) => [...chatClients(ctx.services).values()].map(providerOf),
  },
  Mutation: {
    createChatCompletion: async (_root, { input }, ctx) => {
      const { client, model, request } = validateCompletion(input, chatClients(ctx.services));
      const answer = await client.complete(request, model, ctx.signal);
      return completionOf(client.spec.id, model.id, answer);
    },
  },
  Subscription: {
    chatCompletionStream: {
      // Validation, the rate limiter and the upstream's status all answer before the first chunk, as one result
      // with errors; an error after that ends the stream the same way (see `resolve`), then it completes.
      subscribe: async (_root, { input }, ctx) => {
        const { client, model, request } = validateCompletion(input, chatClients(ctx.services));
        const stream = await client.stream(request, model, ctx.signal);
        return eventStream<StreamEvent>((sink) => {
          sink.signal.addEventListener('abort', () => stream.cancel(), { once: true });
          return (async () => {
            let chunks = 0;
            let last: ChatCompletionChunk | undefined;
            try {
              for await (const c of stream) {
                last = chunkOf(client.spec.id, model.id, c);
                chunks += 1;
                // Waits while the subscriber is behind: the upstream body is then not read (TCP backpressure).
                await sink.push({ chunk: last });
              }
            } catch (error) {
              sink.push({ error });
            }
            sink.end();
            // What was generated (and billed), also when the client left early.
            ctx.log.info(
              { provider: client.spec.id, model: model.id, chunks, finishReason: last?.finishReason ?? null, usage: last?.usage ?? null, cancelled: ctx.signal.aborted && !last?.finishReason },
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
