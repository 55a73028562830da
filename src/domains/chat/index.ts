import type { Resolvers } from '../../generated/resolvers.js';
import type { GraphiqlExample } from '../graphiqlExample.js';
import { resolvers } from './resolvers.js';

/** Chat completions over four providers, fallbacks, usage, documents, embeddings and images: resolvers and GraphiQL tabs. */
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
    modelDetails { id contextWindow maxOutputTokens reasoning reasoningEffort json source factSources { contextWindow reasoning } }
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
    reasoningUsed
    choices { finishReason message { reasoningContent toolCalls { id name arguments } } }
    usage { promptTokens completionTokens totalTokens reasoningTokens cachedPromptTokens }
  }
}`,
    variables: JSON.stringify(
      { input: { provider: 'deepseek', model: 'deepseek-flash', messages: [{ role: 'USER', content: 'Say hello in one sentence.' }], reasoning: { enabled: false }, maxTokens: 100 } },
      null,
      2,
    ),
  },
  {
    title: 'Reasoning, then a JSON answer checked against a schema',
    query: `mutation Structured($input: ChatCompletionInput!) {
  createChatCompletion(input: $input) {
    reasoningUsed
    json
    jsonError
    usage { completionTokens reasoningTokens }
  }
}`,
    variables: JSON.stringify(
      {
        input: {
          provider: 'ark',
          model: 'doubao-pro',
          messages: [{ role: 'USER', content: 'Plan a weekend trip.' }],
          reasoning: { effort: 'LOW' },
          responseFormat: { type: 'JSON_SCHEMA', schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 3 } }, required: ['city', 'days'] } },
        },
      },
      null,
      2,
    ),
  },
  {
    title: 'A chat completion, token by token over the WebSocket',
    query: `subscription Stream($input: ChatCompletionInput!) {
  chatCompletionStream(input: $input) {
    delta { reasoningContent content toolCalls { index id name arguments } }
    finishReason
    reasoningUsed
    usage { promptTokens completionTokens totalTokens reasoningTokens }
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
          fallbacks: [{ provider: 'deepseek', model: 'deepseek-flash' }],
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
    delta { reasoningContent content }
    finishReason
    reasoningUsed
    usage { totalTokens reasoningTokens }
  }
}`,
    variables: JSON.stringify(
      {
        input: {
          provider: 'deepseek',
          model: 'deepseek-flash',
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
    title: 'Your chat documents (upload one as a GraphQL multipart request, see docs/chat.md, "Documents"; name it in a completion\'s documents)',
    query: `query ChatDocuments {
  chatDocuments { id provider fileName bytes tokens status createdAt }
}`,
  },
  {
    title: "Today's token usage per provider and model",
    query: `query ChatUsage {
  chatUsage { day provider model promptTokens cachedPromptTokens completionTokens reasoningTokens totalTokens requests }
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
