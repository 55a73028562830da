/** Ids of the four chat providers the sandbox emulates (CONTRACT.md §3). */
export type ChatProviderName = 'glm' | 'ark' | 'deepseek' | 'moonshot';

export const CHAT_PROVIDER_NAMES: readonly ChatProviderName[] = ['glm', 'ark', 'deepseek', 'moonshot'];

/** One model an emulator accepts. */
export interface SandboxModel {
  id: string;
  /** Prompt tokens (as the sandbox counts them) the model accepts before the provider's "too long" error. */
  contextWindow: number;
  /** Accepts `image_url` content parts. @default false */
  vision?: boolean;
  /** `always`: emits `reasoning_content` before `content`; `on-request`: only with `thinking: {type: "enabled"}`. */
  reasoning?: 'always' | 'on-request';
}

/**
 * The models each emulator serves. Exported so the gateway's provider registry can cross-check its own tables;
 * the emulators never read gateway code.
 */
export const SANDBOX_MODELS: Readonly<Record<ChatProviderName, readonly SandboxModel[]>> = {
  glm: [
    { id: 'glm-4-flash', contextWindow: 128_000 },
    { id: 'glm-4-plus', contextWindow: 128_000 },
    { id: 'glm-4v-plus', contextWindow: 8_000, vision: true },
    { id: 'glm-4.5-air', contextWindow: 128_000, reasoning: 'on-request' },
    { id: 'glm-4.6', contextWindow: 200_000, reasoning: 'on-request' },
    { id: 'glm-4.7', contextWindow: 200_000, reasoning: 'on-request' },
    { id: 'glm-5', contextWindow: 200_000, reasoning: 'on-request' },
  ],
  // Ark calls name an inference endpoint (ep-…) or a dated model id; the sandbox account owns these three endpoints.
  ark: [
    { id: 'ep-20250101-doubao-pro', contextWindow: 32_768 },
    { id: 'ep-20250101-doubao-lite', contextWindow: 32_768 },
    { id: 'ep-20250101-doubao-vision', contextWindow: 32_768, vision: true },
    { id: 'doubao-seed-1-6-251015', contextWindow: 256_000 },
  ],
  deepseek: [
    { id: 'deepseek-chat', contextWindow: 65_536 },
    { id: 'deepseek-coder', contextWindow: 32_768 },
    { id: 'deepseek-reasoner', contextWindow: 65_536, reasoning: 'always' },
  ],
  moonshot: [
    { id: 'moonshot-v1-8k', contextWindow: 8_192 },
    { id: 'moonshot-v1-32k', contextWindow: 32_768 },
    { id: 'moonshot-v1-128k', contextWindow: 131_072 },
    { id: 'kimi-latest', contextWindow: 131_072, vision: true },
    { id: 'moonshot-v1-8k-vision-preview', contextWindow: 8_192, vision: true },
  ],
};
