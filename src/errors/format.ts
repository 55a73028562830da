import type { GraphQLFormattedError } from 'graphql';
import type { Logger } from 'pino';
import { ErrorCode, ErrorReason, RETRYABLE_REASONS } from './codes.js';

/** An error as graphql-js, Apollo or a transport hands it over. */
export type ErrorLike = {
  message: string;
  extensions?: Record<string, unknown>;
  path?: readonly (string | number)[];
  locations?: readonly { line: number; column: number }[];
};

/** Decides whether an occurrence of `cause` is logged: the repeats left out since its last line, or undefined to leave it out. */
export interface LogLimiter {
  take(cause: string): number | undefined;
}

/** What an operation's errors are noted on: the codes for its log line, and its logger (with its request id). */
export interface ErrorSink {
  readonly errorCodes: { add(code: string): unknown };
  readonly context: { readonly log: Logger };
}

/**
 * Formats errors for the client, the one formatter of every entry (each transport, /mcp, chat graph tools); `op`,
 * when given, notes their codes for its log line and logs masked details with its request id. `quiet` masks without
 * logging (for a caller that logged them with their operation already).
 */
export type ErrorFormatter = (errors: readonly ErrorLike[], op?: ErrorSink, quiet?: boolean) => GraphQLFormattedError[];

/** Extensions of an upstream error that stay in production: the gateway's own fields, or opaque tokens. */
const KEPT = new Set([
  'code',
  'upstream',
  'status',
  'retryAfter',
  'upstreamCode',
  'upstreamRequestId',
  'attempts',
  'reason',
  'argument',
]);
/** An upstream's code or request id passes only as a short token: anything longer or with spaces is prose. */
const TOKEN = /^[\w.:-]{1,64}$/;

/**
 * Every error the client sees: a contract code (errors.ts), secrets redacted, `extensions.http` (how a refusal sets
 * its HTTP status) removed, and in production no upstream's words: an error that carries what an upstream answered
 * (an HTML error page, a provider's message echoing part of a key) gets a generic message naming the upstream and
 * its status, and the original (redacted) goes to the log.
 */
export function createErrorFormatter(options: {
  production: boolean;
  /** ERROR_STACK_TRACES: answers keep `extensions.stacktrace` (never in production). */
  stackTraces?: boolean;
  redact: (text: string) => string;
  log: Logger;
  /** Which unexpected errors reach the log: once per cause a while (observability/oncePerCause.ts). @default every one */
  unexpectedLog?: LogLimiter;
}): ErrorFormatter {
  const { production, redact, log } = options;
  const stackTraces = options.stackTraces === true && !production;
  const limiter = options.unexpectedLog ?? { take: () => 0 };
  const one = (error: ErrorLike, op: ErrorSink | undefined, quiet: boolean | undefined): GraphQLFormattedError => {
    let formatted = formatError(error as GraphQLFormattedError, { stackTraces, production, redact });
    if (op && !quiet) logUnexpected(error, formatted, op, redact, limiter);
    if (formatted.extensions && 'http' in formatted.extensions) {
      const { http: _http, ...rest } = formatted.extensions;
      formatted = { ...formatted, extensions: rest };
    }
    if (production && carriesUpstreamText(formatted.extensions))
      formatted = masked(formatted, quiet ? undefined : (op?.context.log ?? log));
    op?.errorCodes.add(String(formatted.extensions?.code));
    return formatted;
  };
  return (errors, op, quiet) => errors.map((e) => one(e, op, quiet));
}

/**
 * Apollo's own codes for requests that never reached execution. The contract allows only the codes above, so they
 * become BAD_USER_INPUT and the original stays in `extensions.reason` for tooling that knows Apollo's names.
 */
const CODES = new Set<string>(Object.values(ErrorCode));

const REQUEST_ERROR_CODES = new Set<string>([
  ErrorReason.GraphqlParseFailed,
  ErrorReason.GraphqlValidationFailed,
  ErrorReason.BadRequest,
  ErrorReason.OperationResolutionFailure,
  ErrorReason.PersistedQueryNotFound,
  ErrorReason.PersistedQueryNotSupported,
]);

interface FormatErrorOptions {
  /** Hide messages of unexpected errors. */
  production: boolean;
  /** Keep `extensions.stacktrace` (ERROR_STACK_TRACES, never in production). */
  stackTraces: boolean;
  /** Removes secrets from any text that leaves the process. */
  redact: (text: string) => string;
}

/** Maps one error onto a contract code and masks an unexpected one in production (Apollo's codes included). */
function formatError(formatted: GraphQLFormattedError, options: FormatErrorOptions): GraphQLFormattedError {
  const ext = { ...formatted.extensions } as Record<string, unknown>;
  const original = typeof ext.code === 'string' ? ext.code : undefined;
  let message = options.redact(formatted.message);
  const tokens = /Document contains more th(?:an|at) (\d+) tokens/.exec(message);
  if (typeof ext.limit === 'string' && original !== ErrorCode.RateLimited) {
    // An operation limit (see pipeline/limitValidation.ts); Apollo re-codes validation errors, the marker survives.
    ext.code = ErrorCode.QueryTooComplex;
    delete ext.reason;
  } else if (tokens) {
    ext.code = ErrorCode.QueryTooComplex;
    ext.limit = 'GATEWAY_MAX_TOKENS';
    ext.max = Number(tokens[1]);
    delete ext.reason;
    message = `Token limit of ${tokens[1]} exceeded: simplify the operation or raise GATEWAY_MAX_TOKENS.`;
  } else if (original && REQUEST_ERROR_CODES.has(original)) {
    ext.code = ErrorCode.BadUserInput;
    ext.reason = original;
  } else if (!original || !CODES.has(original)) {
    ext.code = ErrorCode.InternalServerError;
    if (original) ext.reason = original;
  }
  if (ext.code === ErrorCode.InternalServerError && options.production && !RETRYABLE_REASONS.has(ext.reason)) {
    message = 'Internal server error. Quote the x-request-id response header when reporting it.';
    delete ext.reason;
  }
  if (!options.stackTraces) delete ext.stacktrace;
  else if (Array.isArray(ext.stacktrace)) ext.stacktrace = (ext.stacktrace as string[]).map(options.redact);
  return { ...formatted, message, extensions: ext };
}

/** Codes whose message may repeat an upstream's answer: failures, and refusals the upstream itself answered. */
const FAILURES = new Set<unknown>([ErrorCode.UpstreamError, ErrorCode.UpstreamTimeout]);
const ANSWERED = new Set<unknown>([
  ErrorCode.UpstreamRateLimited,
  ErrorCode.UpstreamQuotaExhausted,
  ErrorCode.BadUserInput,
]);

/** An upstream that failed, or refused in its own words (it answered with a status); the gateway's own refusals
 * (its quota guard, a token budget, an open circuit) name an upstream but carry no status and say nothing it said. */
function carriesUpstreamText(ext: Record<string, unknown> | undefined): boolean {
  if (typeof ext?.upstream !== 'string') return false;
  return FAILURES.has(ext.code) || (ext.status !== undefined && ANSWERED.has(ext.code));
}

function masked(formatted: GraphQLFormattedError, log: Logger | undefined): GraphQLFormattedError {
  const ext = formatted.extensions as Record<string, unknown>;
  const upstream = String(ext.upstream).slice(0, 64);
  const status = typeof ext.status === 'number' ? ext.status : undefined;
  log?.warn(
    { upstream, status, code: ext.code, upstreamMessage: formatted.message.slice(0, 2000) },
    'upstream error masked for the client',
  );
  const extensions: Record<string, unknown> = {};
  for (const key in ext) if (KEPT.has(key)) extensions[key] = ext[key];
  for (const key of ['upstreamCode', 'upstreamRequestId'])
    if (extensions[key] !== undefined && !TOKEN.test(String(extensions[key]))) delete extensions[key];
  return { ...formatted, message: genericMessage(String(ext.code), upstream, status), extensions };
}

/** What a client is told of an upstream failure in production. */
export function genericMessage(code: string, upstream: string, status: number | undefined): string {
  const http = status === undefined ? '' : ` (HTTP ${status})`;
  switch (code) {
    case ErrorCode.UpstreamRateLimited:
      return `The ${upstream} service is rate limiting the gateway${http}; retry later (see extensions.retryAfter).`;
    case ErrorCode.UpstreamQuotaExhausted:
      return `The ${upstream} service reports the gateway's quota exhausted${http}.`;
    case ErrorCode.UpstreamTimeout:
      return `The ${upstream} service did not answer in time${http}.`;
    case ErrorCode.BadUserInput:
      return `The ${upstream} service refused the request${http}.`;
    default:
      return `The ${upstream} service failed${http}. Quote the x-request-id response header when reporting it.`;
  }
}

/**
 * An unexpected error (a bug: thrown without a code, not a refusal or an upstream's failure) goes to the log with its
 * stack and the operation's request id, whether or not the answer carries the stack (ERROR_STACK_TRACES). A refusal
 * coded INTERNAL_SERVER_ERROR on purpose (a pipeline rule that failed) was logged where it was made.
 */
function logUnexpected(
  error: ErrorLike,
  formatted: GraphQLFormattedError,
  op: ErrorSink,
  redact: (text: string) => string,
  limiter: LogLimiter,
): void {
  if (
    formatted.extensions?.code !== ErrorCode.InternalServerError ||
    formatted.extensions.reason === ErrorReason.ShuttingDown
  )
    return;
  // What was thrown (a resolver's TypeError), or graphql-js's own error (a null in a non-null field); the direct path
  // hands over JSON, with the stack in extensions when the error had no code.
  const thrown = (error as { originalError?: unknown }).originalError;
  const source = thrown instanceof Error ? thrown : error instanceof Error ? error : undefined;
  if ((source as { extensions?: { code?: unknown } } | undefined)?.extensions?.code !== undefined) return;
  const stack =
    source?.stack ??
    (Array.isArray(error.extensions?.stacktrace) ? (error.extensions.stacktrace as string[]).join('\n') : undefined);
  if (stack === undefined) return;
  // A bug every request hits is one line a minute with the count of repeats, not a stack per request. Its cause is
  // where it was thrown: the error's name and first frames.
  const frames = stack
    .split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .slice(0, 3);
  const suppressed = limiter.take(
    `${source?.name ?? 'Error'}\n${frames.length ? frames.join('\n') : error.message.slice(0, 200)}`,
  );
  if (suppressed === undefined) return;
  op.context.log.error(
    { path: formatted.path, err: redact(stack), ...(suppressed ? { suppressed } : {}) },
    `unexpected error: ${redact(error.message)}`,
  );
}
