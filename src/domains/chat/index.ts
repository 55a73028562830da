import type { Domain } from '../domain.js';
import type { GraphiqlExample } from '../graphiqlExample.js';
import { useChatStreamAdmission } from './admission.js';
import { chatCostHints } from './cost.js';
import { ChatDocuments } from './documents/service.js';
import { estimateChatRequests } from './estimate.js';
import { resolvers } from './resolvers.js';
import { createChatLedger } from './usage/ledger.js';

export const chatExamples: GraphiqlExample[] = [
  {
    title:
      'Chat: a completion, the providers and their models, JSON checked against a schema, fallbacks, usage. Run offers each',
    query: `# A whole answer, in one response.
mutation Chat($chat: ChatCompletionInput!) {
  createChatCompletion(input: $chat) {
    id
    model
    content
    reasoningUsed
    choices { finishReason message { reasoningContent toolCalls { id name arguments } } }
    usage { promptTokens completionTokens totalTokens reasoningTokens cachedPromptTokens }
  }
}

# The providers, their models and what each can do.
query Providers {
  chatProviders {
    id
    variant
    live
    models
    capabilities { streaming tools vision contextWindow }
    modelDetails { id contextWindow maxOutputTokens reasoning reasoningEffort json source factSources { contextWindow reasoning } deprecatedOn retiresOn successor }
  }
}

# Reasoning, then a JSON answer checked against a
# schema.
mutation Structured($structured: ChatCompletionInput!) {
  createChatCompletion(input: $structured) {
    reasoningUsed
    json
    jsonError
    usage { completionTokens reasoningTokens }
  }
}

# A completion with fallbacks (or a CHAT_ROUTES route):
# which attempts it took.
mutation Fallbacks($fallbacks: ChatCompletionInput!) {
  createChatCompletion(input: $fallbacks) {
    provider
    model
    content
    attempts { provider model outcome code }
    usage { promptTokens completionTokens totalTokens reasoningTokens }
  }
}

# Today's token usage per provider and model.
query Usage {
  chatUsage { day provider model promptTokens cachedPromptTokens completionTokens reasoningTokens totalTokens requests }
}

# Your documents (upload one as a GraphQL multipart
# request: docs/chat.md, "Documents"; name them in a
# completion's documents).
query Documents {
  chatDocuments { id provider fileName bytes tokens status createdAt }
}`,
    variables: JSON.stringify(
      {
        chat: {
          provider: 'deepseek',
          model: 'deepseek-flash',
          messages: [{ role: 'USER', content: 'What is a GraphQL gateway, in one sentence?' }],
          reasoning: { enabled: false },
          maxTokens: 100,
        },
        structured: {
          provider: 'ark',
          model: 'doubao-pro',
          messages: [{ role: 'USER', content: 'Plan a weekend trip.' }],
          reasoning: { effort: 'LOW' },
          responseFormat: {
            type: 'JSON_SCHEMA',
            schema: {
              type: 'object',
              properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 3 } },
              required: ['city', 'days'],
            },
          },
        },
        fallbacks: {
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
    title:
      'Chat token by token over the WebSocket: the Stream panel on the left adds the deltas up as they arrive. Run offers Stream and Grounded',
    query: `# An answer token by token: the model's reasoning
# first, then its content.
subscription Stream($stream: ChatCompletionInput!) {
  chatCompletionStream(input: $stream) {
    provider
    model
    delta { reasoningContent content }
    finishReason
    usage { promptTokens completionTokens totalTokens reasoningTokens }
  }
}

# Chat grounded in the graph: the model calls trusted
# operations (graphTools), the gateway runs them, and
# the model answers from what they returned.
subscription Grounded($grounded: ChatCompletionInput!) {
  chatCompletionStream(input: $grounded) {
    provider
    model
    graphStep { turn operation arguments result errorCode }
    delta { reasoningContent content }
    finishReason
    reasoningUsed
    usage { totalTokens reasoningTokens }
  }
}`,
    variables: JSON.stringify(
      {
        stream: {
          provider: 'glm',
          model: 'glm-4.7',
          messages: [
            { role: 'SYSTEM', content: 'You are a concise assistant.' },
            { role: 'USER', content: 'What does a GraphQL gateway do?' },
          ],
          temperature: 0.7,
        },
        grounded: {
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
    title: 'Embeddings (GLM embedding-3) and an image (Ark Seedream). Run offers each',
    query: `# Two texts as vectors of 256 dimensions.
mutation Embed($embed: CreateEmbeddingsInput!) {
  createEmbeddings(input: $embed) {
    provider
    model
    requests
    data { index embedding }
    usage { promptTokens totalTokens }
  }
}

# One generated image.
mutation Image($image: GenerateImageInput!) {
  generateImage(input: $image) {
    provider
    model
    images { url b64Json size }
    contentFilter { role level }
    usage { generatedImages totalTokens }
  }
}`,
    variables: JSON.stringify(
      {
        embed: {
          provider: 'glm',
          model: 'embedding-3',
          input: ['The sky is blue.', 'The sea is deep.'],
          dimensions: 256,
        },
        image: {
          provider: 'ark',
          model: 'doubao-seedream',
          prompt: 'A lighthouse on a cliff at dusk',
          size: '2K',
          n: 1,
        },
      },
      null,
      2,
    ),
  },
];

/**
 * Chat completions over four providers, fallbacks, usage, embeddings and images: its resolvers, the providers'
 * estimate, its cost hints, GraphiQL tabs, its start-up state (the usage ledger, the uploaded documents), and its
 * rule: a chat stream admitted in line, arguments first (admission.ts).
 */
export const chat: Domain = {
  name: 'chat',
  resolvers,
  estimate: estimateChatRequests,
  costHints: chatCostHints,
  examples: chatExamples,
  services: (services) => ({ chatUsage: createChatLedger(services), chatDocuments: new ChatDocuments(services) }),
  rules: ({ schema }) => [useChatStreamAdmission({ schema })],
};
