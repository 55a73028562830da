import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A signing key of the test's authorization server, by its key id. */
interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

/**
 * An OAuth authorization server as a resource server sees it: keys the test makes, their JSON Web Key Set served on
 * loopback (every read counted), and access tokens signed with them.
 */
export interface TestIssuer {
  issuer: string;
  jwksUrl: string;
  /** Reads of the key set so far. */
  jwksReads(): number;
  /** From now on the key set is answered with this status and an error body, or (200) served again. */
  answerJwks(status: number): void;
  /** A new key, published in the key set from now on when `publish` (the default). */
  addKey(kid: string, options?: { alg?: 'ES256' | 'RS256'; publish?: boolean }): Promise<void>;
  /** An access token: `iss`, `aud`, `sub`, `iat` and `exp` (in an hour) unless `claims` says otherwise. */
  token(claims?: JWTPayload & { aud?: string | string[] }, options?: { kid?: string }): Promise<string>;
  close(): Promise<void>;
}

export async function startTestIssuer(audience: string): Promise<TestIssuer> {
  const keys = new Map<string, SigningKey & { published: boolean }>();
  let reads = 0;
  let status = 200;
  const server: Server = createServer((req, res) => {
    reads++;
    if (status !== 200)
      return void res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":"server_error"}');
    const body = JSON.stringify({ keys: [...keys.values()].filter((k) => k.published).map((k) => k.jwk) });
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = `${origin}/`;
  const issuerApi: TestIssuer = {
    issuer,
    jwksUrl: `${origin}/.well-known/jwks.json`,
    jwksReads: () => reads,
    answerJwks: (next) => {
      status = next;
    },
    async addKey(kid, options = {}) {
      const alg = options.alg ?? 'ES256';
      const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
      keys.set(kid, {
        kid,
        alg,
        privateKey,
        jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' },
        published: options.publish ?? true,
      });
    },
    async token(claims = {}, options = {}) {
      const key = keys.get(options.kid ?? [...keys.keys()][0])!;
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: issuer,
        aud: audience,
        sub: 'agent-user-1',
        iat: now,
        exp: now + 3600,
        scope: '',
        ...claims,
      })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt' })
        .sign(key.privateKey);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  await issuerApi.addKey('key-1');
  return issuerApi;
}
