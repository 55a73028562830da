import type { Resolvers } from '../../generated/resolvers.js';
import type { GraphiqlExample } from '../../runtime/graphiqlExample.js';
import { resolvers } from './resolvers.js';

/** Chat completions over four providers: resolvers and GraphiQL tabs. */
export const chatResolvers: Resolvers = resolvers;
export const chatExamples: GraphiqlExample[] = [
  {
    title: 'Chat providers, their models and capabilities',
    query: `query ChatProviders {
  chatProviders {
    id
    variant
    live
    models
    capabilities { streaming tools vision contextWindow }
  }
}`,
  },
  {
    title: 'A chat completion',
    query: `mutation Complete($input: ChatCompletionInput!) {
  createChatCompletion(input: $input) {
    id
    model
    content
    choices { finishReason message { toolCalls { id name arguments } } }
    usage { promptTokens completionTokens totalTokens }
  }
}`,
    variables: JSON.stringify(
      { input: { provider: 'deepseek', model: 'deepseek-chat', messages: [{ role: 'USER', content: 'Say hello in one sentence.' }], maxTokens: 100 } },
      null,
      2,
    ),
  },
  {
    title: 'A chat completion, token by token over the WebSocket',
    query: `subscription Stream($input: ChatCompletionInput!) {
  chatCompletionStream(input: $input) {
    delta { content toolCalls { index id name arguments } }
    finishReason
    usage { promptTokens completionTokens totalTokens }
  }
}`,
    variables: JSON.stringify(
      {
        input: {
          provider: 'glm',
          model: 'glm-4-flash',
          messages: [
            { role: 'SYSTEM', content: 'You are a concise assistant.' },
            { role: 'USER', content: 'What does a GraphQL gateway do?' },
          ],
          temperature: 0.7,
        },
      },
      null,
      2,
    ),
  },
];
export { estimateChatRequests } from './estimate.js';
