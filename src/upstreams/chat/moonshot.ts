import { ErrorCode } from '../../errors/codes.js';
import { MOONSHOT_CATALOGUE } from './models/moonshot.js';
import type { ChatProviderSpec } from './provider.js';
import { thinkingSwitch } from './reasoning.js';

const BY_TYPE: Readonly<Record<string, ErrorCode>> = {
  content_filter: ErrorCode.BadUserInput,
  invalid_request_error: ErrorCode.BadUserInput,
  resource_not_found_error: ErrorCode.BadUserInput,
  invalid_authentication_error: ErrorCode.UpstreamError,
  incorrect_api_key_error: ErrorCode.UpstreamError,
  permission_denied_error: ErrorCode.UpstreamError,
  exceeded_current_quota_error: ErrorCode.UpstreamQuotaExhausted,
  rate_limit_reached_error: ErrorCode.UpstreamRateLimited,
  engine_overloaded_error: ErrorCode.UpstreamRateLimited,
  server_error: ErrorCode.UpstreamError,
  unexpected_output: ErrorCode.UpstreamError,
};

/** Kimi's file-extract formats (platform.kimi.ai/docs/api/files-upload, read 2026-11-26). */
const KIMI_FILE_EXTENSIONS = new Set(
  (
    '.pdf .txt .csv .doc .docx .xls .xlsx .ppt .pptx .md .jpeg .png .bmp .gif .svg .svgz .webp .ico .xbm .dib .pjp .tif .pjpeg .avif .dot .apng ' +
    '.epub .tiff .jfif .html .json .mobi .log .go .h .c .cpp .cxx .cc .cs .java .js .css .jsp .php .py .py3 .asp .yaml .yml .ini .conf .ts .tsx'
  ).split(' '),
);

/**
 * (S) Moonshot AI (Kimi): usage arrives inside the last choice of a stream, without asking; its answers carry
 * `X-RateLimit-*` headers; its files API keeps documents and extracts their text. While K2.6 reasons it refuses a forced tool choice and a tool-call turn without its reasoning.
 */
export const moonshot: ChatProviderSpec = {
  id: 'moonshot',
  variant: 'S',
  catalogue: MOONSHOT_CATALOGUE,
  // K2.6: `thinking: {"type": "enabled" | "disabled"}`; K3 and K3.1 Pro: top-level reasoning_effort low | high | max
  // [third party citing platform.kimi.ai/docs/guide/use-thinking-effort, read 2026-11-28]; only models with effort take it.
  reasoning: { toggle: thinkingSwitch, efforts: { LOW: 'low', HIGH: 'high', MAX: 'max' } },
  refusesForcedToolChoiceWhileReasoning: true,
  needsReasoningWithToolCalls: true,
  rateLimitHeaders: true,
  // "At most 1,000 files, 100 MB each, 10 GB in all" (read as MiB and GiB: the error says "max file size is 100MB").
  files: {
    maxFiles: 1000,
    maxFileBytes: 100 * 1024 * 1024,
    maxTotalBytes: 10 * 1024 * 1024 * 1024,
    extensions: KIMI_FILE_EXTENSIONS,
  },
  countsTokens: true,
  temperature: { min: 0, max: 1 },
  toolChoices: ['none', 'auto', 'named'],
  streamUsageOption: false,
  // The type is Moonshot's only code: keep it as the upstream code.
  classifyError: (_status, error) => (error.type ? BY_TYPE[error.type] : undefined),
};
