import type { ChatProviderConfig } from '../../config/env.js';
import { SANDBOX_ARK_ENDPOINTS, arkProvider } from './ark.js';
import { deepseek } from './deepseek.js';
import { glm } from './glm.js';
import { moonshot } from './moonshot.js';
import type { ChatModelSpec, ChatProviderSpec } from './provider.js';

/** A provider added through `CHAT_PROVIDERS`: plain OpenAI-compatible, its models as configured, limits unknown. */
function openAiCompatible(config: ChatProviderConfig): ChatProviderSpec {
  return {
    id: config.id,
    // Unknown models: let the provider judge images and lengths.
    models: (config.models ?? []).map((id) => ({ id, vision: true })),
    temperature: { min: 0, max: 2 },
    toolChoices: ['none', 'auto', 'required', 'named'],
    streamUsageOption: true,
  };
}

/** The spec of one configured provider: built in by id, or OpenAI-compatible. */
export function providerSpec(config: ChatProviderConfig): ChatProviderSpec {
  switch (config.id) {
    case 'glm':
      return glm;
    case 'ark': {
      // In sandbox mode nobody configured endpoints: name the sandbox account's own.
      const endpoints = Object.keys(config.endpoints).length || config.mode === 'live' ? config.endpoints : SANDBOX_ARK_ENDPOINTS;
      return arkProvider(endpoints);
    }
    case 'deepseek':
      return deepseek;
    case 'moonshot':
      return moonshot;
    default:
      return openAiCompatible(config);
  }
}

/** The model spec for a name the caller gave, or undefined when the provider does not offer it. */
export function findModel(spec: ChatProviderSpec, name: string): ChatModelSpec | undefined {
  const known = spec.models.find((m) => m.id === name) ?? spec.models.find((m) => m.upstreamModel === name);
  if (known) return known;
  return spec.acceptsRawModel?.(name) ? { id: name, upstreamModel: name, vision: true } : undefined;
}
