import { randomBytes } from 'node:crypto';
import { GraphError, GraphErrorCode } from './errors.js';

/** The bearer token every Graph request may use without asking the identity platform first. */
export const SANDBOX_TOKEN = 'sandbox';

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const HEADER = b64url(JSON.stringify({ typ: 'JWT', alg: 'none', kid: 'sandbox' }));
const WWW_AUTHENTICATE =
  'Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000"';

/** Tokens issued by the login emulator and accepted by the Graph emulator, with their expiry. */
export class TokenStore {
  private readonly expiries = new Map<string, number>();
  private issued = 0;

  /** A new JWT-shaped token, distinct on every call, valid for `lifetimeSeconds` from `now`. */
  issue(now: number, lifetimeSeconds: number): string {
    const exp = now + lifetimeSeconds * 1000;
    const payload = {
      aud: 'https://graph.microsoft.com',
      iss: 'https://sts.windows.net/sandbox/',
      iat: Math.floor(now / 1000),
      exp: Math.floor(exp / 1000),
      appid: 'sandbox',
      tid: 'sandbox',
      roles: ['ServiceHealth.Read.All', 'ServiceMessage.Read.All'],
      uti: String(++this.issued),
    };
    const token = `${HEADER}.${b64url(JSON.stringify(payload))}.${b64url(randomBytes(16))}`;
    // Long benchmarks issue many tokens: forget expired ones now and then.
    if (this.expiries.size > 10_000) for (const [t, e] of this.expiries) if (e <= now) this.expiries.delete(t);
    this.expiries.set(token, exp);
    return token;
  }

  /** Throws the 401 Graph answers for a missing, unknown or expired bearer token. */
  authenticate(authorization: string | undefined, now: number): void {
    const token = /^Bearer\s+(.*)$/i.exec(authorization ?? '')?.[1]?.trim();
    if (token === SANDBOX_TOKEN) return;
    const fail = (message: string) =>
      new GraphError(401, GraphErrorCode.InvalidAuthenticationToken, message, undefined, {
        'www-authenticate': WWW_AUTHENTICATE,
      });
    if (!token) throw fail('Access token is empty.');
    const expiry = this.expiries.get(token);
    if (expiry === undefined) {
      throw fail(
        token.includes('.')
          ? 'Access token validation failure. Invalid audience.'
          : "IDX14100: JWT is not well formed, there are no dots (.).\nThe token needs to be in JWS or JWE Compact Serialization Format. (JWS): 'EncodedHeader.EndcodedPayload.EncodedSignature'. (JWE): 'EncodedProtectedHeader.EncodedEncryptedKey.EncodedInitializationVector.EncodedCiphertext.EncodedAuthenticationTag'.",
      );
    }
    if (expiry <= now) throw fail('Lifetime validation failed, the token is expired.');
  }
}
