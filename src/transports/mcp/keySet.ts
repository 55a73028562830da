import type { JWTVerifyGetKey } from 'jose';

type Jose = typeof import('jose');
type RemoteKeySet = ReturnType<Jose['createRemoteJWKSet']>;

/** A token checked while the key set is not read again after a failed read: nothing to check it with. */
export class KeySetCoolingDown extends Error {
  constructor() {
    super('The JSON Web Key Set could not be read a moment ago and is not read again before its cooldown is over.');
    this.name = 'KeySetCoolingDown';
  }
}

/** Whether jose's error says the key set could not be read (a non-200, a timeout, bad JSON, no connection), not that the token is bad. */
export function keySetUnreadable(error: unknown, errors: Jose['errors']): boolean {
  if (error instanceof KeySetCoolingDown || error instanceof errors.JWKSTimeout) return true;
  if (error instanceof errors.JOSEError)
    return (
      !(error instanceof errors.JWTInvalid) &&
      !(error instanceof errors.JWSInvalid) &&
      /JSON Web Key Set/.test(error.message)
    );
  // fetch() itself failed (connection refused, DNS): jose passes its TypeError on.
  return error instanceof TypeError;
}

/**
 * MCP_JWT_JWKS_URL's key set, read at most once per cooldown while reads fail. jose reads it again for an unknown key
 * id at most once per cooldown after a read that worked, but a read that failed (the server answers 500, times out,
 * refuses the connection) leaves it as if never read: every token would read it again. So after a failed read, for
 * the cooldown, a token is checked against the keys held while they are fresh (an unknown key id is then refused, as
 * jose refuses one while cooling down), else refused as the key set being unreadable, without another read.
 */
export function keySetWithCooldown(
  jose: Jose,
  remote: RemoteKeySet,
  cooldownMs: number,
  now: () => number = () => Date.now(),
): JWTVerifyGetKey {
  let failedAt = -Infinity;
  let held: JWTVerifyGetKey | undefined;
  return async (header, token) => {
    if (now() - failedAt < cooldownMs) {
      if (!held || !remote.fresh) throw new KeySetCoolingDown();
      return held(header, token);
    }
    try {
      return await remote(header, token);
    } catch (error) {
      if (keySetUnreadable(error, jose.errors)) {
        failedAt = now();
        const jwks = remote.fresh ? remote.jwks() : undefined;
        held = jwks ? jose.createLocalJWKSet(jwks) : undefined;
      }
      throw error;
    }
  };
}
