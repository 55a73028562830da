import type { GraphConfig } from '../../config/env.js';
import { ErrorCode, upstreamError } from '../../errors.js';
import { MemorySharedValue, type Expiring, type SharedValue } from '../../state/sharedValue.js';
import type { UpstreamHttp } from '../http/client.js';
import { UPSTREAM } from './errors.js';

const SCOPE = 'https://graph.microsoft.com/.default';
/** Refresh this long before expiry (or at 90 % of a shorter lifetime), so no request carries a token about to lapse. */
const REFRESH_MARGIN_SECONDS = 300;

/**
 * The gateway's own token (client-credentials flow, application permissions), kept until shortly before
 * `expires_in` in a {@link SharedValue}: concurrent callers share one in-flight token request, and with Redis the
 * replicas share one token (one token request per cluster while it is valid).
 */
export class ApplicationToken {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly config: GraphConfig,
    private readonly token: SharedValue<string> = new MemorySharedValue<string>(),
  ) {}

  /** `Bearer …` for the next request; a token request it causes logs `requestId`. */
  authorization(requestId?: string): Promise<string> {
    // No caller signal here: one caller going away must not fail the token every other caller waits for.
    return this.token.get(() => this.request(requestId));
  }

  private async request(requestId: string | undefined): Promise<Expiring<string>> {
    const { authorityUrl, tenantId, clientId, clientSecret } = this.config;
    const form = new URLSearchParams({ client_id: clientId!, scope: SCOPE, client_secret: clientSecret!, grant_type: 'client_credentials' });
    const res = await this.http.send({
      method: 'POST',
      url: `${authorityUrl}/${encodeURIComponent(tenantId!)}/oauth2/v2.0/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      requestId,
    });
    let body: { access_token?: string; expires_in?: number; error?: string; error_codes?: number[] } = {};
    try {
      body = JSON.parse(res.text);
    } catch {
      // handled below as a missing token
    }
    if (res.status !== 200 || !body.access_token) {
      const aadsts = body.error_codes?.[0];
      const code = res.status === 429 ? ErrorCode.UpstreamRateLimited : res.status >= 500 ? ErrorCode.UpstreamError : ErrorCode.Unauthenticated;
      throw upstreamError(
        code,
        `The identity platform refused the gateway's client credentials (${res.status} ${body.error ?? 'no error code'}${aadsts ? `, AADSTS${aadsts}` : ''}). Check GRAPH_TENANT_ID, GRAPH_CLIENT_ID and GRAPH_CLIENT_SECRET.`,
        { upstream: UPSTREAM, status: res.status, upstreamCode: body.error },
      );
    }
    const lifetime = Number(body.expires_in) > 0 ? Number(body.expires_in) : 3599;
    const margin = Math.min(REFRESH_MARGIN_SECONDS, lifetime * 0.1);
    return { value: `Bearer ${body.access_token}`, ttlMs: (lifetime - margin) * 1000 };
  }
}
