/**
 * When and how long to wait before sending an upstream request again. Modelled on the Microsoft Graph SDK's retry
 * handler: honour `Retry-After` (seconds or an HTTP date), else exponential backoff with full jitter, bounded both in
 * attempts and in total time.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. @default 4 */
  maxAttempts: number;
  /** First backoff step without `Retry-After`. @default 200 */
  baseDelayMs: number;
  /** Largest single wait, `Retry-After` included (the Graph SDK caps at 180 s). @default 30000 */
  maxDelayMs: number;
  /** All waits of one request together may not exceed this; past it the last error is returned. @default 60000 */
  budgetMs: number;
  /** Statuses worth another try. @default [429, 503, 504] */
  retryStatuses: readonly number[];
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 200,
  maxDelayMs: 30_000,
  budgetMs: 60_000,
  retryStatuses: [429, 503, 504],
};

/** Seconds from a `Retry-After` header (delta-seconds or HTTP-date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - now) / 1000);
}

/** The wait before attempt `attempt + 1` (attempt counts from 1), in ms. */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterSeconds: number | undefined,
  random = Math.random,
): number {
  if (retryAfterSeconds !== undefined) return Math.min(policy.maxDelayMs, Math.ceil(retryAfterSeconds * 1000));
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Whether a request may be sent again: writes only on 429, which means "not processed". */
export function isRetryable(policy: RetryPolicy, method: string, status: number | 'network'): boolean {
  const idempotent = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
  if (status === 'network') return idempotent;
  if (!policy.retryStatuses.includes(status)) return false;
  return idempotent || status === 429;
}

/**
 * The one retry decision of the gateway, for a whole request (the HTTP layer) and for Graph's `$batch` items alike:
 * the wait before attempt `attempt + 1` after an answer the caller found retryable, or undefined when the policy says
 * stop (attempts spent, or the wait would take all waits past `budgetMs`: a `Retry-After` longer than the budget
 * left is not waited for, the last answer goes back instead).
 */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  waitedMs: number,
  retryAfterSeconds: number | undefined,
): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  const delay = backoffDelay(policy, attempt, retryAfterSeconds);
  return waitedMs + delay > policy.budgetMs ? undefined : delay;
}
