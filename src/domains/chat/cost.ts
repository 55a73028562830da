import type { CostHints } from '../../planning/cost.js';

/**
 * What the chat estimate knows of each field's cost (estimate.ts): a completion, a stream, embeddings and images each
 * call a provider; the provider list and usage are the gateway's own. A completion answers one choice (the gateway
 * asks for one) after a few attempts at most (its target and fallbacks).
 */
export const chatCostHints: CostHints = {
  'Mutation.createChatCompletion': { upstream: true },
  'Mutation.createEmbeddings': { upstream: true },
  'Mutation.generateImage': { upstream: true },
  'Subscription.chatCompletionStream': { upstream: true },
  'Query.chatProviders': { listSize: { assumedSize: 4 } },
  'ChatCompletion.choices': { listSize: { assumedSize: 1 } },
  'ChatCompletion.attempts': { listSize: { assumedSize: 1 } },
  'ImageGeneration.images': { listSize: { assumedSize: 1 } },
};
