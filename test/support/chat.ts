import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startTestGateway, type TestGateway } from './gateway.js';
import type { Client } from 'graphql-ws';
import { collect, wsClient } from './ws.js';

/** The four built-in providers with a text model and a model that reasons by default (used for tools). */
export const PROVIDERS = [
  { id: 'glm', model: 'glm-4-flash', toolModel: 'glm-4.7' },
  { id: 'ark', model: 'doubao-pro', toolModel: 'doubao-pro' },
  { id: 'deepseek', model: 'deepseek-flash', toolModel: 'deepseek-flash' },
  { id: 'moonshot', model: 'moonshot-v1-8k', toolModel: 'kimi-k2.6' },
] as const;

export const COMPLETION = `mutation Complete($input: ChatCompletionInput!) {
  createChatCompletion(input: $input) {
    id provider model created content
    choices { index finishReason message { role content reasoningContent toolCalls { id name arguments } } }
    usage { promptTokens completionTokens totalTokens }
  }
}`;

export const STREAM = `subscription Stream($input: ChatCompletionInput!) {
  chatCompletionStream(input: $input) {
    id provider model index
    delta { role content reasoningContent toolCalls { index id name arguments } }
    finishReason
    usage { promptTokens completionTokens totalTokens }
  }
}`;

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  reasoningTokens?: number | null;
  cachedPromptTokens?: number | null;
}

export interface Chunk {
  id: string;
  provider: string;
  model: string;
  index: number;
  delta: {
    role: string | null;
    content: string | null;
    reasoningContent: string | null;
    toolCalls: Array<{ index: number; id: string | null; name: string | null; arguments: string | null }> | null;
  };
  finishReason: string | null;
  usage: Usage | null;
}

export interface GraphError {
  message: string;
  extensions: Record<string, any>;
}

/** Runs one subscription to its end: the chunks, and the errors it ended with (if any). */
export async function streamAll(
  client: Client,
  input: Record<string, unknown>,
  timeoutMs?: number,
): Promise<{ chunks: Chunk[]; errors?: GraphError[] }> {
  const { results, error } = await collect<{ chatCompletionStream: Chunk }>(client, STREAM, { input }, timeoutMs);
  const chunks = results.filter((r) => r.data?.chatCompletionStream).map((r) => r.data!.chatCompletionStream);
  const errors = (results.find((r) => r.errors?.length)?.errors ?? (error as GraphError[] | undefined)) as
    | GraphError[]
    | undefined;
  return { chunks, errors };
}

/** One subscription on its own short-lived WebSocket client. */
export async function streamOnce(
  t: TestGateway,
  input: Record<string, unknown>,
): Promise<{ chunks: Chunk[]; errors?: GraphError[] }> {
  const client = wsClient(t.gateway.wsUrl);
  try {
    return await streamAll(client, input);
  } finally {
    await client.dispose();
  }
}

export const text = (chunks: Chunk[]) => chunks.map((c) => c.delta.content ?? '').join('');

/** Polls `check` every 20 ms until it holds or `timeoutMs` passes; returns whether it held. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 2_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Polls until `value()` stops changing for `quietMs`, within `timeoutMs`; returns the last value. */
export async function settled(value: () => number, quietMs: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = value();
  let since = Date.now();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    const now = value();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return now;
  }
  throw new Error(`still changing after ${timeoutMs} ms (at ${last})`);
}

export const user = (content: string) => ({ role: 'USER', content });

export const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'Current weather in a city',
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      days: { type: 'integer', minimum: 1, maximum: 7 },
    },
    required: ['city'],
  },
};

/** A gateway on the sandbox for one chat test file: 1 ms between tokens, record and faults cleared before each test. */
export function useChatGateway(): { readonly t: TestGateway } {
  let t: TestGateway | undefined;
  beforeAll(async () => {
    t = await startTestGateway({}, { chatTokenDelayMs: 1 });
  });
  afterAll(() => t?.close());
  beforeEach(() => {
    t!.clearUpstreamRequests();
    t!.sandbox.faults.clear();
  });
  return {
    get t() {
      return t!;
    },
  };
}
