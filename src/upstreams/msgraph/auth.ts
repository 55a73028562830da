import type { GraphConfig } from '../../config/env.js';
import { ErrorCode, upstreamError } from '../../errors/codes.js';
import { MemorySharedValue, type Expiring, type SharedValue } from '../../state/sharedValue.js';
import type { GatewayCredentials } from '../credentials.js';
import type { UpstreamHttp } from '../http/client.js';
import { UPSTREAM } from './errors.js';

const SCOPE = 'https://graph.microsoft.com/.default';
/** Refresh this long before expiry (or at 90 % of a shorter lifetime), so no request carries a token about to lapse. */
const REFRESH_MARGIN_SECONDS = 300;

/** Which variable an identity-platform refusal points at, by its AADSTS number. */
function refusedVariable(aadsts: number | undefined, error: string | undefined): string {
  if (aadsts === 7000215 || aadsts === 7000222 || aadsts === 7000216) return 'GRAPH_CLIENT_SECRET';
  if (aadsts === 700016 || aadsts === 7000229) return 'GRAPH_CLIENT_ID';
  if (aadsts === 90002 || aadsts === 900023 || aadsts === 90023) return 'GRAPH_TENANT_ID';
  return error === 'invalid_client' ? 'GRAPH_CLIENT_SECRET' : 'GRAPH_TENANT_ID, GRAPH_CLIENT_ID or GRAPH_CLIENT_SECRET';
}

/**
 * The gateway's own token (client-credentials flow, application permissions), kept until shortly before
 * `expires_in` in a {@link SharedValue}: concurrent callers share one in-flight token request, and with Redis the
 * replicas share one token (one token request per cluster while it is valid).
 */
export class ApplicationToken {
  constructor(
    private readonly http: UpstreamHttp,
    private readonly config: GraphConfig,
    private readonly credentials: GatewayCredentials,
    private readonly token: SharedValue<string> = new MemorySharedValue<string>(),
  ) {}

  /** `Bearer …` for the next request (a token request it causes logs `requestId`); while a refusal of the client credentials is believed, that refusal at once. */
  async authorization(requestId?: string): Promise<string> {
    this.credentials.assertUsable(UPSTREAM);
    // No caller signal here: one caller going away must not fail the token every other caller waits for.
    return this.token.get(() => this.request(requestId));
  }

  /** The token held while it is good and the credentials are not refused, else undefined (then `authorization`). */
  current(): string | undefined {
    return this.credentials.refusal(UPSTREAM) ? undefined : this.token.peek();
  }

  private async request(requestId: string | undefined): Promise<Expiring<string>> {
    const { authorityUrl, tenantId, clientId, clientSecret } = this.config;
    const form = new URLSearchParams({
      client_id: clientId!,
      scope: SCOPE,
      client_secret: clientSecret!,
      grant_type: 'client_credentials',
    });
    const res = await this.http.send({
      method: 'POST',
      url: `${authorityUrl}/${encodeURIComponent(tenantId!)}/oauth2/v2.0/token`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      requestId,
      // The gateway's own token serves every caller until it expires: no one operation's request.
      tally: undefined,
    });
    let body: { access_token?: string; expires_in?: number; error?: string; error_codes?: number[] } = {};
    try {
      body = JSON.parse(res.text);
    } catch {
      // handled below as a missing token
    }
    if (res.status !== 200 || !body.access_token) {
      const aadsts = body.error_codes?.[0];
      const said = `${res.status} ${body.error ?? 'no error code'}${aadsts ? `, AADSTS${aadsts}` : ''}`;
      const details = { upstream: UPSTREAM, status: res.status, upstreamCode: body.error };
      if (res.status === 429) {
        throw upstreamError(
          ErrorCode.UpstreamRateLimited,
          `The identity platform is rate limiting the gateway's token requests (${said}); Microsoft Graph fields fail until it lets up.`,
          details,
        );
      }
      if (res.status >= 500 || res.status === 200) {
        // An outage of the authority (or a 200 without a token): nothing in the configuration to fix.
        throw upstreamError(
          res.status === 504 ? ErrorCode.UpstreamTimeout : ErrorCode.UpstreamError,
          `The identity platform at GRAPH_AUTHORITY_URL is failing (${said}): the gateway cannot get its Microsoft Graph token until it recovers. This is an upstream outage, not a configuration error.`,
          details,
        );
      }
      throw this.credentials.rejected(
        UPSTREAM,
        refusedVariable(aadsts, body.error),
        `The identity platform refused the gateway's client credentials (${said}).`,
        details,
      );
    }
    this.credentials.accepted(UPSTREAM);
    const lifetime = Number(body.expires_in) > 0 ? Number(body.expires_in) : 3599;
    const margin = Math.min(REFRESH_MARGIN_SECONDS, lifetime * 0.1);
    return { value: `Bearer ${body.access_token}`, ttlMs: (lifetime - margin) * 1000 };
  }
}
