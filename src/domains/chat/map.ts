import type { ChatCompletion as GraphCompletion, ChatCompletionChunk as GraphChunk, ChatProvider as GraphProvider, ChatRole as GraphRole, ChatAttemptOutcome as GraphOutcome } from '../../generated/types.js';
import type { ChatClient } from '../../upstreams/chat/client.js';
import type { ChatChunk, ChatCompletion, ChatRole, ChatUsage } from '../../upstreams/chat/types.js';
import type { Attempt } from './fallbacks.js';

/** Neutral shapes to graph shapes: the one place where upstream names become graph names. */

const ROLE: Readonly<Record<ChatRole, GraphRole>> = { system: 'SYSTEM', user: 'USER', assistant: 'ASSISTANT', tool: 'TOOL' };

export function providerOf(client: ChatClient): GraphProvider {
  const { spec, config } = client;
  const windows = spec.models.map((m) => m.contextWindow).filter((w): w is number => w !== undefined);
  return {
    id: spec.id,
    variant: spec.variant ?? null,
    models: spec.models.map((m) => m.id),
    modelDetails: spec.models.map((m) => ({
      id: m.id,
      upstreamModel: m.upstreamModel ?? m.id,
      vision: m.vision === true,
      contextWindow: m.contextWindow ?? null,
      maxOutputTokens: m.maxOutputTokens ?? null,
    })),
    live: config.mode === 'live',
    capabilities: {
      streaming: true,
      tools: true,
      vision: spec.models.some((m) => m.vision) || spec.acceptsRawModel !== undefined,
      contextWindow: windows.length ? Math.max(...windows) : null,
      temperatureMin: spec.temperature.min,
      temperatureMax: spec.temperature.max,
    },
    requestsPerMinute: config.rpm ?? null,
  };
}

const usageOf = (u: ChatUsage) => ({ ...u, reasoningTokens: u.reasoningTokens ?? null });

/** `provider` and `model` are the target that served it, `model` by the caller's name (not Ark's endpoint id). */
export function completionOf(provider: string, model: string, c: ChatCompletion, attempts: readonly Attempt[]): GraphCompletion {
  return {
    id: c.id,
    provider,
    model,
    created: c.created,
    content: c.choices[0]?.message.content ?? null,
    choices: c.choices.map((choice) => ({
      index: choice.index,
      message: { ...choice.message, role: ROLE[choice.message.role] },
      finishReason: choice.finishReason,
    })),
    usage: usageOf(c.usage),
    attempts: attempts.map((a) => ({ ...a, outcome: a.outcome.toUpperCase() as GraphOutcome })),
    graphSteps: [],
  };
}

export function chunkOf(provider: string, model: string, c: ChatChunk): GraphChunk {
  return {
    id: c.id,
    provider,
    model,
    index: c.index,
    delta: { ...c.delta, role: c.delta.role ? ROLE[c.delta.role] : null },
    finishReason: c.finishReason,
    usage: c.usage && usageOf(c.usage),
  };
}
