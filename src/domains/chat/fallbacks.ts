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

/**
 * Calls the targets in order until one serves. `call` must settle once output has started (the first chunk of a
 * stream) and not later, so that nothing after the first token ever falls back. Each attempt is logged and counted.
 */
export async function firstServing<T>(
  ctx: GatewayContext,
  targets: readonly ValidCompletion[],
  call: (target: ValidCompletion, retry: Partial<RetryPolicy> | undefined) => Promise<T>,
): Promise<{ target: ValidCompletion; value: T; attempts: Attempt[] }> {
  const ledger = ctx.services.domains.chatUsage;
  const attempts: Attempt[] = [];
  for (const [i, target] of targets.entries()) {
    const provider = target.client.spec.id;
    const model = target.model.id;
    const last = i === targets.length - 1;
    try {
      await ledger.ensureBudget(provider, ctx);
      const value = await call(target, last ? undefined : ONCE);
      attempts.push({ provider, model, outcome: 'served', code: null });
      announceRetiring(ctx, provider, target.model);
      ledger.attempt(provider, model, 'served');
      if (targets.length > 1)
        ctx.log.info({ provider, model, attempt: i + 1, of: targets.length, outcome: 'served' }, 'chat attempt');
      return { target, value, attempts };
    } catch (error) {
      const { outcome, next } = ctx.signal.aborted
        ? { outcome: 'cancelled' as const, next: false }
        : classifyFailure(error);
      const code = error instanceof GatewayError ? error.code : ErrorCode.InternalServerError;
      attempts.push({ provider, model, outcome, code });
      ledger.attempt(provider, model, outcome);
      ctx.log.info(
        { provider, model, attempt: i + 1, of: targets.length, outcome, code, fallback: next && !last },
        'chat attempt',
      );
      if (last || !next) {
        if (error instanceof GatewayError && targets.length > 1) error.extensions.attempts = attempts;
        throw error;
      }
    }
  }
  throw new Error('no chat target');
}
