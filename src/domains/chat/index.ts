import type { Resolvers } from '../../generated/resolvers.js';
import type { GraphiqlExample } from '../graphiqlExample.js';
import { resolvers } from './resolvers.js';

/** Chat completions over four providers, fallbacks, usage, embeddings and images: resolvers and GraphiQL tabs. */
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
  {
    title: 'A completion with fallbacks (or a CHAT_ROUTES route)',
    query: `mutation CompleteWithFallbacks($input: ChatCompletionInput!) {
  createChatCompletion(input: $input) {
    provider
    model
    content
    attempts { provider model outcome code }
    usage { promptTokens completionTokens totalTokens reasoningTokens }
  }
}`,
    variables: JSON.stringify(
      {
        input: {
          provider: 'glm',
          model: 'glm-4-flash',
          fallbacks: [{ provider: 'deepseek', model: 'deepseek-chat' }],
          messages: [{ role: 'USER', content: 'Name three uses of a message queue.' }],
          maxTokens: 200,
        },
      },
      null,
      2,
    ),
  },
  {
    title: 'Chat grounded in the graph: the model calls trusted operations (graphTools)',
    query: `subscription GraphGroundedChat($input: ChatCompletionInput!) {
  chatCompletionStream(input: $input) {
    graphStep { turn operation arguments result errorCode }
    delta { content }
    finishReason
    usage { totalTokens }
  }
}`,
    variables: JSON.stringify(
      {
        input: {
          provider: 'deepseek',
          model: 'deepseek-chat',
          messages: [
            { role: 'SYSTEM', content: 'Answer from the service health the tools return.' },
            { role: 'USER', content: 'Is Exchange degraded right now?' },
          ],
          graphTools: ['ServiceHealthOverview', 'ServiceHealth', 'RecentServiceIssues'],
        },
      },
      null,
      2,
    ),
  },
  {
    title: "Today's token usage per provider and model",
    query: `query ChatUsage {
  chatUsage { day provider model promptTokens completionTokens reasoningTokens totalTokens requests }
}`,
  },
  {
    title: 'Embeddings (GLM embedding-3)',
    query: `mutation Embed($input: CreateEmbeddingsInput!) {
  createEmbeddings(input: $input) {
    provider
    model
    requests
    data { index embedding }
    usage { promptTokens totalTokens }
  }
}`,
    variables: JSON.stringify({ input: { provider: 'glm', model: 'embedding-3', input: ['The sky is blue.', 'The sea is deep.'], dimensions: 256 } }, null, 2),
  },
  {
    title: 'Generate an image (Ark Seedream)',
    query: `mutation Image($input: GenerateImageInput!) {
  generateImage(input: $input) {
    provider
    model
    images { url b64Json size }
    contentFilter { role level }
    usage { generatedImages totalTokens }
  }
}`,
    variables: JSON.stringify({ input: { provider: 'ark', model: 'doubao-seedream', prompt: 'A lighthouse on a cliff at dusk', size: '2K', n: 1 } }, null, 2),
  },
];
export { estimateChatRequests } from './estimate.js';
