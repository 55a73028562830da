import { ErrorCode } from '../../errors/codes.js';
import { GLM_CATALOGUE } from './models/glm.js';
import type { ChatProviderSpec } from './provider.js';
import { thinkingSwitch } from './reasoning.js';

/** GLM business codes by meaning (docs/upstreams.md 3.1); the HTTP status alone would call arrears a rate limit. */
function classify(code: number): ErrorCode | undefined {
  if (code >= 1000 && code <= 1005) return ErrorCode.UpstreamError; // the gateway's key
  if (code === 1113) return ErrorCode.UpstreamQuotaExhausted; // arrears, no balance
  if (code >= 1110 && code <= 1121) return ErrorCode.UpstreamError; // account inactive, locked
  if (code >= 1210 && code <= 1215) return ErrorCode.BadUserInput; // parameters, unknown model
  if (code === 1261 || code === 1301) return ErrorCode.BadUserInput; // prompt too long, unsafe content
  if (code === 1302 || code === 1303 || code === 1305) return ErrorCode.UpstreamRateLimited; // concurrency, frequency, traffic
  if (code === 1304 || (code >= 1308 && code <= 1313)) return ErrorCode.UpstreamQuotaExhausted; // daily quota, usage caps
  return undefined;
}

/** CogView 4 takes 512..2048 px per side in steps of 16 (CogView 3 Flash: the same presets). */
const COGVIEW_SIZE = {
  test: (size: string) => {
    const m = /^(\d+)x(\d+)$/.exec(size);
    return !!m && [m[1], m[2]].every((v) => Number(v) >= 512 && Number(v) <= 2048 && Number(v) % 16 === 0);
  },
  hint: 'WIDTHxHEIGHT with each side 512..2048 and a multiple of 16, e.g. 1024x1024 or 768x1344',
};

/** (P) Zhipu AI / BigModel GLM. */
export const glm: ChatProviderSpec = {
  id: 'glm',
  variant: 'P',
  catalogue: GLM_CATALOGUE,
  // reasoning_effort from GLM-5.2 on: max (default), xhigh, high, medium, low, minimal, none (docs.bigmodel.cn
  // thinking guide, read 2026-11-28; a third party's probe says 5.3 acts only on low/high/max: the vendor is followed).
  reasoning: {
    toggle: thinkingSwitch,
    efforts: { MINIMAL: 'minimal', LOW: 'low', MEDIUM: 'medium', HIGH: 'high', MAX: 'max' },
  },
  temperature: { min: 0, max: 1 },
  // The docs: "one stop word supported", although the schema takes 4.
  maxStop: 1,
  userLength: { min: 6, max: 128 },
  // NONE is honoured by not offering the tools at all (see adjustBody).
  toolChoices: ['none', 'auto'],
  // Usage comes on the last chunk on its own; GLM refuses `stream_options`.
  streamUsageOption: false,
  adjustBody(body, req, stream, model) {
    if (req.toolChoice === 'none') {
      delete body.tools;
      delete body.tool_choice;
    }
    if (body.user !== undefined) {
      body.user_id = body.user;
      delete body.user;
    }
    // Without it GLM sends each tool call whole at the end; with it, arguments stream like text.
    if (stream && body.tools && model?.toolStream) body.tool_stream = true;
  },
  finishReasons: {
    sensitive: 'CONTENT_FILTER',
    network_error: 'UPSTREAM_ERROR',
    model_context_window_exceeded: 'CONTEXT_WINDOW_EXCEEDED',
  },
  classifyError(_status, error) {
    const code = Number(error.code);
    return Number.isInteger(code) ? classify(code) : undefined;
  },
  embeddings: {
    models: [
      // "embedding-3: an array of at most 64 texts, 3072 tokens each; 256, 512, 1024 or 2048 dimensions (default 2048)".
      { id: 'embedding-3', maxInputs: 64, dimensions: [256, 512, 1024, 2048] },
      // embedding-2: 512 tokens per text and 8K per call, so at most 16 full-length texts; always 1024 dimensions.
      { id: 'embedding-2', maxInputs: 16, dimensions: [1024], acceptsDimensions: false },
    ],
  },
  images: {
    models: ['cogview-4', 'cogview-4-250304', 'cogview-3-flash'].map((id) => ({
      id,
      size: COGVIEW_SIZE,
      formats: ['url'] as const,
    })),
  },
};
