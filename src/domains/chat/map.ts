import type {
  ChatCompletion as GraphCompletion,
  ChatCompletionChunk as GraphChunk,
  ChatProvider as GraphProvider,
  ChatRole as GraphRole,
  ChatAttemptOutcome as GraphOutcome,
  ChatModel as GraphModel,
  ChatModelSource as GraphSource,
  ChatReasoningSupport as GraphReasoning,
} from '../../generated/types.js';
import { ErrorCode, upstreamError } from '../../errors/codes.js';
import type { ChatClient } from '../../upstreams/chat/client.js';
import type { ModelSource, ReasoningSupport } from '../../upstreams/chat/models/index.js';
import type { ModelFact } from '../../upstreams/chat/models/types.js';
import type { ChatModelSpec } from '../../upstreams/chat/provider.js';
import type { ChatChunk, ChatCompletion, ChatRole, ChatUsage } from '../../upstreams/chat/types.js';
import type { Attempt } from './fallbacks.js';
import { checkAnswer } from './jsonFormat.js';
import type { ValidCompletion } from './validate.js';

/** A strict JSON_SCHEMA answer that does not match: the provider was asked for it, so it failed, not the caller. */
export const jsonRefused = (provider: string, error: string) =>
  upstreamError(
    ErrorCode.UpstreamError,
    `The ${provider} answer was not the JSON asked for: ${error}. Retry, or set responseFormat.strict false to get the text with jsonError.`,
    { upstream: provider, upstreamCode: 'JSON_SCHEMA_MISMATCH' },
  );

/** Neutral shapes to graph shapes: the one place where upstream names become graph names. */

const ROLE: Readonly<Record<ChatRole, GraphRole>> = {
  system: 'SYSTEM',
  user: 'USER',
  assistant: 'ASSISTANT',
  tool: 'TOOL',
};

const REASONING: Readonly<Record<ReasoningSupport, GraphReasoning>> = {
  none: 'NONE',
  'optional-off': 'OPTIONAL_OFF',
  'optional-on': 'OPTIONAL_ON',
  always: 'ALWAYS',
};
const SOURCE: Readonly<Record<ModelSource, GraphSource>> = {
  catalogue: 'CATALOGUE',
  provider: 'PROVIDER',
  operator: 'OPERATOR',
  learned: 'LEARNED',
};

function modelOf(m: ChatModelSpec): GraphModel {
  const source = (fact: ModelFact) => (m.factSources[fact] ? SOURCE[m.factSources[fact]] : null);
  return {
    id: m.id,
    upstreamModel: m.upstreamModel ?? m.id,
    vision: m.vision ?? null,
    contextWindow: m.contextWindow ?? null,
    maxOutputTokens: m.maxOutputTokens ?? null,
    reasoning: m.reasoning ? REASONING[m.reasoning] : null,
    reasoningEffort: m.effort ?? null,
    tools: m.tools,
    json: m.json,
    toolStream: m.toolStream,
    source: SOURCE[m.offeredBy],
    factSources: {
      contextWindow: source('contextWindow'),
      maxOutputTokens: source('maxOutputTokens'),
      reasoning: source('reasoning'),
      vision: source('vision'),
      tools: source('tools'),
      json: source('json'),
      toolStream: m.toolStreamSource ? SOURCE[m.toolStreamSource] : m.reference ? 'CATALOGUE' : null,
    },
    reference: m.reference ?? null,
    deprecatedOn: m.deprecation?.deprecatedOn ?? null,
    retiresOn: m.deprecation?.retiresOn ?? null,
    successor: m.deprecation?.successor ?? null,
  };
}

export function providerOf(client: ChatClient): GraphProvider {
  const { spec, config, models } = client;
  const offered = models.list;
  const windows = offered.map((m) => m.contextWindow).filter((w): w is number => w !== undefined);
  return {
    id: spec.id,
    variant: spec.variant ?? null,
    models: offered.map((m) => m.id),
    modelDetails: offered.map(modelOf),
    live: config.mode === 'live',
    capabilities: {
      streaming: true,
      tools: true,
      vision: offered.some((m) => m.vision !== false) || spec.acceptsRawModel !== undefined,
      contextWindow: windows.length ? Math.max(...windows) : null,
      temperatureMin: spec.temperature.min,
      temperatureMax: spec.temperature.max,
    },
    requestsPerMinute: config.rpm ?? null,
    maxConcurrentRequests: client.connections.slots,
    modelsListedAt: models.listedAt === undefined ? null : new Date(models.listedAt).toISOString(),
  };
}

export const usageOf = (u: ChatUsage) => ({
  ...u,
  reasoningTokens: u.reasoningTokens ?? null,
  cachedPromptTokens: u.cachedPromptTokens ?? null,
});

/** Whether the model reasoned: as expected from the request and model, or because the answer shows reasoning. */
export const reasoned = (expected: boolean, c: ChatCompletion) =>
  expected || !!c.usage.reasoningTokens || c.choices.some((choice) => !!choice.message.reasoningContent);

/** `provider` and `model` are the target that served it, `model` by the caller's name (not Ark's endpoint id). */
export function completionOf(
  provider: string,
  model: string,
  c: ChatCompletion,
  attempts: readonly Attempt[],
  target?: Pick<ValidCompletion, 'reasoningExpected' | 'answerFormat'>,
): GraphCompletion {
  const content = c.choices[0]?.message.content ?? null;
  const checked = target?.answerFormat
    ? checkAnswer(target.answerFormat, content, c.choices[0]?.finishReason ?? null)
    : undefined;
  if (checked?.error && target?.answerFormat?.strict && target.answerFormat.schema)
    throw jsonRefused(provider, checked.error);
  return {
    reasoningUsed: reasoned(target?.reasoningExpected ?? false, c),
    json: checked?.json ?? null,
    jsonError: checked?.error ?? null,
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
    reasoningUsed: null,
    json: null,
    jsonError: null,
  };
}
