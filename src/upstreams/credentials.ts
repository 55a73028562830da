import type { Logger } from 'pino';
import {
  ErrorCode,
  ErrorReason,
  upstreamError,
  type GatewayError,
  type UpstreamErrorDetails,
} from '../errors/codes.js';

/** How long a refused credential is believed before the upstream is asked again: doubled per refusal, up to the max. */
export interface CredentialBackoff {
  /** @default 30000 */
  initialMs: number;
  /** @default 600000 */
  maxMs: number;
}

export const DEFAULT_CREDENTIAL_BACKOFF: CredentialBackoff = { initialMs: 30_000, maxMs: 600_000 };

interface Rejection {
  error: GatewayError;
  /** The variable the operator has to fix, e.g. `GRAPH_CLIENT_SECRET`. */
  variable: string;
  since: number;
  until: number;
  windowMs: number;
}

/** What `/readyz` says of an upstream whose credential was refused. */
export interface RejectedCredential {
  upstream: string;
  variable: string;
  since: string;
  /** When the upstream is asked again. */
  retryAt: string;
}

/**
 * The gateway's own upstream credentials (Graph's client secret, OMDb's key, the chat providers' keys) as the
 * upstreams last judged them. A refusal is the operator's to fix, never the caller's: it becomes UPSTREAM_ERROR with
 * `reason: GATEWAY_CREDENTIALS_REJECTED` (UNAUTHENTICATED would tell frontends to log their user out), one
 * error-level log line naming the variable, and a backoff window in which callers get the same refusal without a
 * request, so a wrong secret costs one upstream request per window instead of one per operation.
 */
export class GatewayCredentials {
  private readonly rejections = new Map<string, Rejection>();

  constructor(
    private readonly log: Pick<Logger, 'error' | 'info'>,
    private readonly backoff: CredentialBackoff = DEFAULT_CREDENTIAL_BACKOFF,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws the refusal of `upstream` while its window runs; the caller then sends nothing. */
  assertUsable(upstream: string): void {
    const refusal = this.refusal(upstream);
    if (refusal) throw refusal;
  }

  /** The refusal of `upstream` while its window runs, else undefined. */
  refusal(upstream: string): GatewayError | undefined {
    const r = this.rejections.get(upstream);
    return r && this.now() < r.until ? r.error : undefined;
  }

  /**
   * Records that `upstream` refused the credential in `variable` and returns the error to throw. `message` says what
   * the upstream answered, without the credential.
   */
  rejected(upstream: string, variable: string, message: string, details: UpstreamErrorDetails): GatewayError {
    const previous = this.rejections.get(upstream);
    const windowMs = previous ? Math.min(previous.windowMs * 2, this.backoff.maxMs) : this.backoff.initialMs;
    const now = this.now();
    const error = credentialsRejected(variable, message, details);
    this.rejections.set(upstream, { error, variable, since: previous?.since ?? now, until: now + windowMs, windowMs });
    this.log.error(
      { upstream, variable, status: details.status, upstreamCode: details.upstreamCode, retryInMs: windowMs },
      `${upstream} rejected the gateway's own credentials: fix ${variable}; asking ${upstream} again in ${Math.round(windowMs / 1000)} s, refusing its fields meanwhile`,
    );
    return error;
  }

  /** The upstream accepted the credential: forget an earlier refusal. */
  accepted(upstream: string): void {
    if (this.rejections.delete(upstream))
      this.log.info({ upstream }, `${upstream} accepts the gateway's credentials again`);
  }

  /** Every upstream whose last answer refused the gateway's credential, for `/readyz`. */
  list(): RejectedCredential[] {
    return [...this.rejections].map(([upstream, r]) => ({
      upstream,
      variable: r.variable,
      since: new Date(r.since).toISOString(),
      retryAt: new Date(r.until).toISOString(),
    }));
  }
}

/** UPSTREAM_ERROR with `reason: GATEWAY_CREDENTIALS_REJECTED`, naming the variable to fix. */
export function credentialsRejected(variable: string, message: string, details: UpstreamErrorDetails): GatewayError {
  const error = upstreamError(
    ErrorCode.UpstreamError,
    `${message} Fix ${variable} in the gateway's configuration; the caller's request is not at fault.`,
    details,
  );
  error.extensions.reason = ErrorReason.GatewayCredentialsRejected;
  return error;
}
