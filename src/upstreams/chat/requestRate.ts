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
  return services.state.rateLimiter(`chat:${config.id}`, { perMinute: config.rpm, maxWaitMs: services.config.chatRateLimitWaitMs });
}
