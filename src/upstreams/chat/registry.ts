import type { ChatProviderConfig } from '../../config/env.js';
import { SANDBOX_ARK_ENDPOINTS, arkProvider, isChatEndpointName } from './ark.js';
import { deepseek } from './deepseek.js';
import { glm } from './glm.js';
import { ChatModels } from './models/index.js';
import type { LearnedFactsStore } from './models/learned.js';
import { operatorFacts } from './models/offer.js';
import { moonshot } from './moonshot.js';
import type { ChatProviderSpec } from './provider.js';

/** A provider added through `CHAT_PROVIDERS`: plain OpenAI-compatible, its models as configured, limits unknown. */
function openAiCompatible(config: ChatProviderConfig): ChatProviderSpec {
  return {
    id: config.id,
    catalogue: { models: [], retired: [] },
    temperature: { min: 0, max: 2 },
    toolChoices: ['none', 'auto', 'required', 'named'],
    streamUsageOption: true,
  };
}

/** The sandbox account's endpoints stand in for ARK_ENDPOINTS when nobody configured any. */
function arkEndpoints(config: ChatProviderConfig): Readonly<Record<string, string>> {
  return Object.keys(config.endpoints).length || config.mode === 'live' ? config.endpoints : SANDBOX_ARK_ENDPOINTS;
}

/** The spec of one configured provider: built in by id, or OpenAI-compatible. */
export function providerSpec(config: ChatProviderConfig): ChatProviderSpec {
  switch (config.id) {
    case 'glm':
      return glm;
    case 'ark':
      return arkProvider(arkEndpoints(config));
    case 'deepseek':
      return deepseek;
    case 'moonshot':
      return moonshot;
    default:
      return openAiCompatible(config);
  }
}

/**
 * The models a provider offers: its catalogue until its `GET /models` is read (live mode), the operator's names
 * (ARK_ENDPOINTS, CHAT_PROVIDERS, `<ID>_MODELS`) and facts (`<ID>_MODELS`, `<ID>_CONTEXT_WINDOWS`) on top.
 */
export function providerModels(
  spec: ChatProviderSpec,
  config: ChatProviderConfig,
  warn: (names: string[]) => void,
  catalogue = spec.catalogue,
  learned?: LearnedFactsStore,
): ChatModels {
  const endpoints = config.id === 'ark' ? arkEndpoints(config) : {};
  const names = Object.fromEntries(Object.entries(endpoints).filter(([name]) => isChatEndpointName(name)));
  const operator = operatorFacts(config);
  // An Ark name that carries its window (`doubao-pro-128k`) says it: the operator's fact, unless stated otherwise.
  for (const name of Object.keys(names)) {
    const k = /(\d+)k\b/i.exec(name);
    if (k && operator[name]?.contextWindow === undefined)
      operator[name] = { ...operator[name], contextWindow: Number(k[1]) * 1024 };
  }
  return new ChatModels(
    {
      catalogue,
      names,
      namesSource: config.id === 'ark' && !Object.keys(config.endpoints).length ? 'catalogue' : 'operator',
      operator,
      operatorNames: Object.keys(config.modelFacts ?? {}),
      configured: config.models,
    },
    spec.acceptsRawModel,
    warn,
    learned,
  );
}
