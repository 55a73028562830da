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
  /**
   * `always`: reasons whatever `thinking` says; `on`: unless `thinking: {type: "disabled"}`; `off`: only with
   * `thinking: {type: "enabled"}`; absent: never (a `thinking` field is ignored, as fields outside a schema are).
   */
  reasoning?: 'always' | 'on' | 'off';
  /** Older names the provider still serves with this model (DeepSeek `deepseek-v4-flash`). */
  aliases?: readonly string[];
  /** Kimi K2.6: refuses any temperature but 1 while thinking and 0.6 without, and any top_p but 0.95. */
  fixedSampling?: boolean;
  /** What `GET /models` adds to its entry (Kimi: `context_length`, `supports_image_in`, `supports_reasoning`). */
  listing?: Readonly<Record<string, unknown>>;
  /** The `reasoning_effort` values this model takes, where they differ from its provider's (Kimi K3: low, high, max). */
  efforts?: Readonly<Record<string, string>>;
}

const kimi = (
  id: string,
  contextWindow: number,
  reasoning: 'on' | 'always',
  vision: boolean,
  efforts?: Readonly<Record<string, string>>,
): SandboxModel => ({
  id,
  contextWindow,
  reasoning,
  vision,
  fixedSampling: true,
  listing: {
    context_length: contextWindow,
    supports_image_in: vision,
    supports_video_in: false,
    supports_reasoning: true,
  },
  ...(efforts ? { efforts } : {}),
});
/** Kimi K3 and K3.1 Pro: top-level reasoning_effort low | high | max, default max [third party, docs/upstreams.md §3.6]. */
const K3_EFFORTS = { low: 'low', high: 'high', max: 'max' };
const moonshotV1 = (id: string, contextWindow: number, vision = false): SandboxModel => ({
  id,
  contextWindow,
  vision,
  listing: {
    context_length: contextWindow,
    supports_image_in: vision,
    supports_video_in: false,
    supports_reasoning: false,
  },
});

/**
 * The models each emulator serves, as the providers list them today (docs/upstreams.md §3.6): the retired names are
 * gone, so asking for them gets the provider's own "no such model" error. Exported so the gateway's tests can
 * cross-check its catalogue; the emulators never read gateway code.
 */
export const SANDBOX_MODELS: Readonly<Record<ChatProviderName, readonly SandboxModel[]>> = {
  glm: [
    // GLM-5.3 reasons whatever `thinking` says (a switch to off is accepted and ignored [third party, probe 2026-10-19]).
    { id: 'glm-5.3', contextWindow: 1_048_576, reasoning: 'always' },
    { id: 'glm-5.3-flash', contextWindow: 1_048_576, vision: true, reasoning: 'on' },
    { id: 'glm-5.2', contextWindow: 1_048_576, reasoning: 'on' },
    { id: 'glm-5.1', contextWindow: 200_000, reasoning: 'on' },
    { id: 'glm-5', contextWindow: 200_000, reasoning: 'on' },
    { id: 'glm-4.7', contextWindow: 200_000, reasoning: 'on' },
    { id: 'glm-4.6', contextWindow: 200_000, reasoning: 'on' },
    { id: 'glm-4.5-air', contextWindow: 128_000, reasoning: 'on' },
    { id: 'glm-4-flash', contextWindow: 128_000 },
    { id: 'glm-4-plus', contextWindow: 128_000 },
    { id: 'glm-4v-plus', contextWindow: 8_000, vision: true },
  ],
  // Ark calls name an inference endpoint (ep-…) or a dated model id; the sandbox account owns these three endpoints.
  ark: [
    { id: 'ep-20250101-doubao-pro', contextWindow: 32_768, reasoning: 'on' },
    { id: 'ep-20250101-doubao-lite', contextWindow: 32_768 },
    { id: 'ep-20250101-doubao-vision', contextWindow: 32_768, vision: true, reasoning: 'off' },
    { id: 'doubao-seed-1-6-251015', contextWindow: 256_000, vision: true, reasoning: 'on' },
    { id: 'doubao-seed-2-0-lite-260428', contextWindow: 256_000, vision: true, reasoning: 'on' },
    // Doubao Seed 2.0 (docs.byteplus.com/en/docs/modelark/1330310): images are not stated there, so refused here.
    ...['pro', 'lite', 'mini', 'code-preview'].map((size): SandboxModel => ({
      id: `doubao-seed-2-0-${size}-260215`,
      contextWindow: 256_000,
      reasoning: 'on',
    })),
    // Another vendor's model hosted on Ark under a dated id (shared/providers-2026.md (Q)); DeepSeek V3.2's 128K window.
    { id: 'deepseek-v3-2-251201', contextWindow: 131_072, reasoning: 'on' },
  ],
  deepseek: [
    {
      id: 'deepseek-flash',
      aliases: ['deepseek-v4-flash', 'deepseek-v4-flash-vision-exp'],
      contextWindow: 1_048_576,
      vision: true,
      reasoning: 'on',
    },
    { id: 'deepseek-v4-pro', contextWindow: 1_048_576, reasoning: 'on' },
  ],
  moonshot: [
    kimi('kimi-k2.6', 262_144, 'on', true),
    kimi('kimi-k2.5', 262_144, 'on', true),
    // Always reasoning: `thinking: {type: "disabled"}` is answered with a 400 (docs/upstreams.md §3.6).
    kimi('kimi-k2.7-code', 262_144, 'always', true),
    kimi('kimi-k2.7-code-highspeed', 262_144, 'always', true),
    kimi('kimi-k3', 1_048_576, 'always', true, K3_EFFORTS),
    // Images are not documented for K3.1 Pro: refused, the stricter reading.
    kimi('kimi-k3.1-pro', 1_048_576, 'always', false, K3_EFFORTS),
    kimi('kimi-k3.1-pro-highspeed', 1_048_576, 'always', false, K3_EFFORTS),
    moonshotV1('moonshot-v1-8k', 8_192),
    moonshotV1('moonshot-v1-32k', 32_768),
    moonshotV1('moonshot-v1-128k', 131_072),
    moonshotV1('moonshot-v1-8k-vision-preview', 8_192, true),
  ],
};

/** The model served under `name`, its own or an older alias. */
export const servedModel = (models: readonly SandboxModel[], name: string) =>
  models.find((m) => m.id === name || m.aliases?.includes(name));

/** Embedding and image models of the two providers that serve them (Ark: the sandbox account's endpoints). */
export const SANDBOX_MEDIA_MODELS = {
  glm: {
    embeddings: [
      { id: 'embedding-3', maxInputs: 64, dimensions: [256, 512, 1024, 2048], defaultDimensions: 2048 },
      { id: 'embedding-2', maxInputs: 16, dimensions: [1024], defaultDimensions: 1024, fixedDimensions: true },
    ],
    images: ['cogview-4', 'cogview-4-250304', 'cogview-3-flash'].map((id) => ({
      id,
      sizes: /^\d{3,4}x\d{3,4}$/,
      defaultSize: '1024x1024',
    })),
  },
  ark: {
    embeddings: [
      {
        id: 'ep-20250101-doubao-embedding',
        maxInputs: 256,
        dimensions: [512, 1024, 2048, 2560],
        defaultDimensions: 2560,
      },
      {
        id: 'doubao-embedding-text-240715',
        maxInputs: 256,
        dimensions: [512, 1024, 2048, 2560],
        defaultDimensions: 2560,
      },
    ],
    images: ['ep-20250101-doubao-seedream', 'doubao-seedream-3-0-t2i-250415'].map((id) => ({
      id,
      sizes: /^([1-4]K|\d{3,4}x\d{3,4})$/,
      defaultSize: '2048x2048',
    })),
  },
} as const;
