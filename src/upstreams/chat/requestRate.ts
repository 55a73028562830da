import type { ChatProviderConfig } from '../../config/env.js';
import type { UpstreamDependencies } from '../dependencies.js';
import type { RateLimiter } from '../../state/index.js';

export type { RateLimiter, RateVerdict } from '../../state/index.js';

/**
 * The `<ID>_RPM` limiter of one provider (sliding 60 s window, waiting up to CHAT_RATE_LIMIT_WAIT_MS for a slot),
 * one for every replica with Redis; undefined when the provider has no limit.
 */
export function chatRateLimiter(services: UpstreamDependencies, config: ChatProviderConfig): RateLimiter | undefined {
  if (!config.rpm) return undefined;
  return services.state.rateLimiter(`chat:${config.id}`, {
    perMinute: config.rpm,
    maxWaitMs: services.config.chatRateLimitWaitMs,
  });
}

const header = (headers: Record<string, string | string[] | undefined>, name: string): number | undefined => {
  const v = headers[name];
  const n = Number(Array.isArray(v) ? v[0] : v);
  return v === undefined || !Number.isFinite(n) ? undefined : n;
};

/**
 * A provider's own rate-limit headers, as its last answer sent them (Kimi: `X-RateLimit-Limit`, `-Remaining`,
 * `-Reset`): once it says nothing is left, calls wait for the reset instead of earning a 429. Kept per replica.
 */
export class HeaderRateWindow {
  private remaining: number | undefined;
  private resetAt = 0;
  limit: number | undefined;

  observe(headers: Record<string, string | string[] | undefined>, now: number): void {
    const remaining = header(headers, 'x-ratelimit-remaining');
    if (remaining === undefined) return;
    this.remaining = remaining;
    this.limit = header(headers, 'x-ratelimit-limit') ?? this.limit;
    // Seconds until the window resets; a value that large is an epoch time in seconds instead.
    const reset = header(headers, 'x-ratelimit-reset') ?? 1;
    this.resetAt = reset > 1e9 ? reset * 1000 : now + reset * 1000;
  }

  /** How long a call must wait before the provider would take it; 0 = now. */
  waitMs(now: number): number {
    if (this.remaining === undefined || this.remaining > 0 || now >= this.resetAt) return 0;
    return this.resetAt - now;
  }

  /** Counts a call sent, so that a burst stops at the last remaining slot rather than after it. */
  sent(): void {
    if (this.remaining !== undefined && this.remaining > 0) this.remaining -= 1;
  }
}
