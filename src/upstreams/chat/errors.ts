import { ErrorCode, upstreamError, type GatewayError } from '../../errors/codes.js';
import { credentialsRejected, type GatewayCredentials } from '../credentials.js';
import { parseRetryAfter } from '../http/retry.js';
import type { ChatProviderSpec, UpstreamErrorBody } from './provider.js';
import { errorBody } from './wire.js';

/**
 * Fields only the gateway writes, never from the caller's input: a refusal that names one blames the gateway's
 * request. (Its own reasoning switch and `tool_stream` are retried without and learned first: client.ts.)
 */
const GATEWAY_FIELDS = /stream_options|tool_stream/i;

/** When the provider's own code says nothing we know, the HTTP status decides. */
function byStatus(status: number): ErrorCode {
  if (status === 400 || status === 404 || status === 413 || status === 422) return ErrorCode.BadUserInput;
  if (status === 402) return ErrorCode.UpstreamQuotaExhausted;
  if (status === 408 || status === 504) return ErrorCode.UpstreamTimeout;
  if (status === 429) return ErrorCode.UpstreamRateLimited;
  return ErrorCode.UpstreamError;
}

const header = (headers: Record<string, string | string[] | undefined>, name: string) => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * A provider's error answer as a contract error: its own code in `upstreamCode`, the provider id in `upstream`.
 * A rejected key is the gateway's problem, never the caller's: UPSTREAM_ERROR with `reason: GATEWAY_CREDENTIALS_REJECTED`
 * (recorded in `credentials` when given), and the message names the variable to fix without repeating what the
 * provider said (DeepSeek echoes part of the key).
 */
export function providerError(
  p: ChatProviderSpec,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  credentials?: GatewayCredentials,
  /** The model asked for, named in a refusal so that the caller knows which one refused. */
  model?: string,
): GatewayError {
  let parsed: UpstreamErrorBody = {};
  try {
    parsed = errorBody(JSON.parse(text));
  } catch {
    parsed = { message: text.trim().slice(0, 200) || undefined };
  }
  const upstreamCode = parsed.code ?? parsed.type;
  const requestId = p.requestIdFrom?.(parsed) ?? header(headers, 'x-request-id') ?? header(headers, 'x-tt-logid');
  const retryAfter = parseRetryAfter(headers['retry-after']);
  const details = { upstream: p.id, status, upstreamCode, requestId, retryAfter };
  const said = upstreamCode ? ` (${upstreamCode})` : '';
  if (status === 401 || (status === 403 && /auth/i.test(`${parsed.type} ${parsed.code}`))) {
    const variable = `${p.id.toUpperCase().replace(/-/g, '_')}_API_KEY`;
    const message = `The ${p.id} service rejected the gateway's API key${said}.`;
    return credentials
      ? credentials.rejected(p.id, variable, message, details)
      : credentialsRejected(variable, message, details);
  }
  const code = p.classifyError?.(status, parsed) ?? byStatus(status);
  const message = parsed.message ? `: ${parsed.message}` : '.';
  if (code === ErrorCode.BadUserInput && GATEWAY_FIELDS.test(parsed.message ?? '')) {
    const error = upstreamError(
      ErrorCode.UpstreamError,
      `The ${p.id} service refused a request the gateway built, not something the caller sent${said}${message}`,
      details,
    );
    error.extensions.reason = 'GATEWAY_REQUEST_REFUSED';
    return error;
  }
  switch (code) {
    case ErrorCode.UpstreamRateLimited:
      return upstreamError(
        code,
        `The ${p.id} service is rate limiting the gateway${said}${retryAfter !== undefined ? `; retry in ${Math.ceil(retryAfter)} s` : '; retry in a few seconds'}.`,
        details,
      );
    case ErrorCode.UpstreamQuotaExhausted:
      return upstreamError(
        code,
        `The ${p.id} account of this gateway has run out of quota or balance${said}${message}`,
        details,
      );
    case ErrorCode.BadUserInput: {
      const error = upstreamError(
        code,
        `The ${p.id} service refused the request${model ? ` for model ${model}` : ''}${said}${message}`,
        details,
      );
      if (model) error.extensions.model = model;
      return error;
    }
    default:
      return upstreamError(code, `The ${p.id} service failed with HTTP ${status}${said}${message}`, details);
  }
}

/** A stream that broke off: an in-band error event, a cut connection, or an end without a finish reason. */
export function streamError(p: ChatProviderSpec, what: string, error?: UpstreamErrorBody): GatewayError {
  const upstreamCode = error?.code ?? error?.type;
  const said = error?.message ? `: ${error.message}` : '';
  return upstreamError(
    ErrorCode.UpstreamError,
    `The ${p.id} stream ${what}${upstreamCode ? ` (${upstreamCode})` : ''}${said}.`,
    { upstream: p.id, upstreamCode },
  );
}

/** A 2xx body the gateway cannot read. */
export function unreadableAnswer(p: ChatProviderSpec, status: number, reason: string): GatewayError {
  return upstreamError(
    ErrorCode.UpstreamError,
    `The ${p.id} service sent an answer the gateway cannot read (${reason}).`,
    { upstream: p.id, status },
  );
}
