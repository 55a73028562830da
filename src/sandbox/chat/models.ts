/** Ids of the four chat providers the sandbox emulates (docs/chat.md). */
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

/** Embedding and image models of the two providers that serve them (Ark: the sandbox account's endpoints). */
export const SANDBOX_MEDIA_MODELS = {
  glm: {
    embeddings: [
      { id: 'embedding-3', maxInputs: 64, dimensions: [256, 512, 1024, 2048], defaultDimensions: 2048 },
      { id: 'embedding-2', maxInputs: 16, dimensions: [1024], defaultDimensions: 1024, fixedDimensions: true },
    ],
    images: ['cogview-4', 'cogview-4-250304', 'cogview-3-flash'].map((id) => ({ id, sizes: /^\d{3,4}x\d{3,4}$/, defaultSize: '1024x1024' })),
  },
  ark: {
    embeddings: [
      { id: 'ep-20250101-doubao-embedding', maxInputs: 256, dimensions: [512, 1024, 2048, 2560], defaultDimensions: 2560 },
      { id: 'doubao-embedding-text-240715', maxInputs: 256, dimensions: [512, 1024, 2048, 2560], defaultDimensions: 2560 },
    ],
    images: ['ep-20250101-doubao-seedream', 'doubao-seedream-3-0-t2i-250415'].map((id) => ({ id, sizes: /^([1-4]K|\d{3,4}x\d{3,4})$/, defaultSize: '2048x2048' })),
  },
} as const;
