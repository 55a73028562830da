import { ErrorCode, GatewayError } from '../../errors/codes.js';
import type { GatewayContext } from '../../context/request.js';
import { UpstreamCode } from '../../upstreams/codes.js';
import type { RetryPolicy } from '../../upstreams/http/retry.js';
import { announceRetiring } from './retiring.js';
import { DAILY_TOKEN_BUDGET, type AttemptOutcome } from './usage/ledger.js';
import type { ValidCompletion } from './validate.js';

/** One target tried, as `ChatCompletion.attempts` and the error's `extensions.attempts` show it. */
export interface Attempt {
  provider: string;
  model: string;
  outcome: AttemptOutcome;
  /** The contract code of the failure; null when this target served. */
  code: string | null;
}

/** A target that is not the last one is tried once: a 429 moves on to the next target instead of waiting. */
const ONCE: Partial<RetryPolicy> = { maxAttempts: 1 };

/**
 * Why an attempt failed, and whether the next target may be tried: rate limits, quota or budget exhaustion,
 * timeouts, 5xx, an unreachable provider and an open circuit do; the caller's mistakes and a rejected key do not.
 */
export function classifyFailure(error: unknown): { outcome: AttemptOutcome; next: boolean } {
  if (!(error instanceof GatewayError)) return { outcome: 'upstream_error', next: false };
  const ext = error.extensions as { status?: number; upstreamCode?: string };
  switch (error.code) {
    case ErrorCode.UpstreamRateLimited:
      return { outcome: 'rate_limited', next: true };
    case ErrorCode.UpstreamQuotaExhausted:
      return { outcome: ext.upstreamCode === DAILY_TOKEN_BUDGET ? 'budget_exhausted' : 'quota_exhausted', next: true };
    case ErrorCode.UpstreamTimeout:
      return { outcome: 'timeout', next: true };
    case ErrorCode.UpstreamError:
      if (ext.upstreamCode === UpstreamCode.CircuitOpen) return { outcome: 'circuit_open', next: true };
      // No status: no answer at all, or a stream that broke before its first chunk.
      return { outcome: 'upstream_error', next: ext.status === undefined || ext.status >= 500 };
    default:
      return { outcome: 'refused', next: false };
  }
}

/** Where {@link firstServing} starts: the first target that may be called, and the attempts of those skipped before it. */
export interface FirstTarget {
  readonly from: number;
  readonly attempts: readonly Attempt[];
}

/** A completion's targets as admission checked them, and the connection it waited for (admission.ts). */
export interface AdmittedTargets extends FirstTarget {
  readonly targets: readonly ValidCompletion[];
  /** The release of the connection of `targets[from]`'s provider, the first time (the stream then holds it). */
  takeConnection(): (() => void) | undefined;
}

const FROM_THE_FIRST: FirstTarget = { from: 0, attempts: [] };

/**
 * Calls the targets in order until one serves, from `start` (what admission found, {@link firstCallable}). `call`
 * must settle once output has started (the first chunk of a stream) and not later, so that nothing after the first
 * token ever falls back. Each attempt is logged and counted.
 */
export async function firstServing<T>(
  ctx: GatewayContext,
  targets: readonly ValidCompletion[],
  call: (target: ValidCompletion, retry: Partial<RetryPolicy> | undefined) => Promise<T>,
  start: FirstTarget = FROM_THE_FIRST,
): Promise<{ target: ValidCompletion; value: T; attempts: Attempt[] }> {
  const ledger = ctx.services.domains.chatUsage;
  const attempts: Attempt[] = [...start.attempts];
  for (let i = start.from; i < targets.length; i++) {
    const target = targets[i];
    const provider = target.client.spec.id;
    const model = target.model.id;
    const last = i === targets.length - 1;
    try {
      // Again after admission: a wait in line for a connection may have let the day's budget run out.
      if (ledger.budgeted(provider)) await ledger.ensureBudget(provider, ctx);
      const value = await call(target, last ? undefined : ONCE);
      attempts.push({ provider, model, outcome: 'served', code: null });
      announceRetiring(ctx, provider, target.model);
      ledger.attempt(provider, model, 'served');
      if (targets.length > 1)
        ctx.log.info({ provider, model, attempt: i + 1, of: targets.length, outcome: 'served' }, 'chat attempt');
      return { target, value, attempts };
    } catch (error) {
      failedAttempt(ctx, targets, i, error, attempts);
    }
  }
  throw new Error('no chat target');
}

/**
 * The first target that may be called without asking its provider, as {@link firstServing} would reach it: a spent
 * daily token budget or a provider whose key was rejected moves on to the next target (logged and counted as an
 * attempt), the last one's refusal is thrown. For admission, before a stream waits for its provider's connection.
 */
export async function firstCallable(ctx: GatewayContext, targets: readonly ValidCompletion[]): Promise<FirstTarget> {
  const ledger = ctx.services.domains.chatUsage;
  const attempts: Attempt[] = [];
  for (let i = 0; i < targets.length; i++) {
    const { client } = targets[i];
    try {
      client.credentials.assertUsable(client.spec.id);
      if (ledger.budgeted(client.spec.id)) await ledger.ensureBudget(client.spec.id, ctx);
      return i === 0 ? FROM_THE_FIRST : { from: i, attempts };
    } catch (error) {
      failedAttempt(ctx, targets, i, error, attempts);
    }
  }
  throw new Error('no chat target');
}

/** Target `i` failed: its attempt recorded, and its error thrown unless the next target may be tried. */
function failedAttempt(
  ctx: GatewayContext,
  targets: readonly ValidCompletion[],
  i: number,
  error: unknown,
  attempts: Attempt[],
): void {
  const provider = targets[i].client.spec.id;
  const model = targets[i].model.id;
  const last = i === targets.length - 1;
  const { outcome, next } = ctx.signal.aborted
    ? { outcome: 'cancelled' as const, next: false }
    : classifyFailure(error);
  const code = error instanceof GatewayError ? error.code : ErrorCode.InternalServerError;
  attempts.push({ provider, model, outcome, code });
  ctx.services.domains.chatUsage.attempt(provider, model, outcome);
  ctx.log.info(
    { provider, model, attempt: i + 1, of: targets.length, outcome, code, fallback: next && !last },
    'chat attempt',
  );
  if (last || !next) {
    if (error instanceof GatewayError && targets.length > 1) error.extensions.attempts = attempts;
    throw error;
  }
}
