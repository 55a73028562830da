import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { IncomingMessage } from 'node:http';
import type { McpAuthConfig } from '../../config/env.js';
import { ErrorCode, GatewayError } from '../../errors/codes.js';
import type { OperationPipeline } from '../../pipeline/index.js';
import { presentedApiKey } from '../clientIdentity.js';
import { keySetUnreadable, keySetWithCooldown } from './keySet.js';
import { protectedResource } from './protectedResource.js';

/** Who called /mcp, once let in. */
export interface McpCaller {
  /** The `x-api-key` presented (checked when MCP_AUTH is api-key). */
  apiKey?: string;
  /** The verified token's `sub`: the caller for fair share and everything else that belongs to a caller. */
  subject?: string;
  /** The verified token's scopes (`scope`, or Entra ID's `scp`); undefined when /mcp takes no tokens. */
  scopes?: ReadonlySet<string>;
  /** Let in without an API key (a token, or an open /mcp): the in-process call skips the key check. */
  authenticated: boolean;
}

/** A request /mcp refuses before reading its JSON-RPC message: the HTTP status, the challenge, the error. */
export interface McpRefusal {
  status: number;
  /** `WWW-Authenticate` (RFC 6750 section 3, with RFC 9728's `resource_metadata`). */
  challenge?: string;
  error: GatewayError;
}

/** Options of {@link createMcpAuth}. */
export interface McpAuthOptions {
  auth: McpAuthConfig;
  pipeline: OperationPipeline;
  /** Every scope a tool asks for, for the metadata's `scopes_supported`. */
  scopes: readonly string[];
  /**
   * The wait before the key set is read again: for an unknown key id (jose's cooldown) and after a read that failed
   * (keySet.ts). Tests shorten it. @default 30000
   */
  jwksCooldownMs?: number;
}

/** Checks /mcp's callers as MCP_AUTH says. */
export interface McpAuth {
  readonly mode: McpAuthConfig['mode'];
  /** The caller, or why the request is refused (401 with a challenge for a missing or bad token). */
  authenticate(req: IncomingMessage): Promise<McpCaller | McpRefusal>;
  /** 403 `insufficient_scope` when the caller's token lacks a scope `required` names (MCP_AUTH=jwt only). */
  scopeRefusal(
    req: IncomingMessage,
    caller: McpCaller,
    tool: string,
    required: readonly string[],
  ): McpRefusal | undefined;
  /** The RFC 9728 metadata and its URL, for MCP_AUTH=jwt; undefined otherwise. */
  resource(req: IncomingMessage): ReturnType<typeof protectedResource> | undefined;
}

/** Signature algorithms a key set's public keys verify; a symmetric `HS*` or `none` token is never accepted. */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Clock skew allowed between the authorization server and this gateway for `exp` and `nbf`. */
const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * /mcp's authentication (MCP_AUTH). `api-key`: one of GATEWAY_API_KEYS in `x-api-key`, as every other endpoint.
 * `jwt`: an OAuth 2.1 access token (`Authorization: Bearer …`) validated as a resource server does: its signature by a
 * key of MCP_JWT_JWKS_URL (fetched at the first token, kept, fetched again for an unknown key id or after a failed
 * read at most every 30 s),
 * its `iss`, `aud` (RFC 8707: issued for this server, never one meant for another), `exp` and `sub`. A missing or bad
 * token is 401 with `WWW-Authenticate` pointing at the metadata. The token is never forwarded upstream. `none`: anyone.
 */
export function createMcpAuth(options: McpAuthOptions): McpAuth {
  const { auth, pipeline, scopes } = options;
  if (auth.mode !== 'jwt') {
    return {
      mode: auth.mode,
      async authenticate(req) {
        const apiKey = presentedApiKey(req.headers);
        if (auth.mode === 'none') return { apiKey, authenticated: true };
        const refused = pipeline.authenticate(apiKey);
        return refused ? { status: 401, error: refused as GatewayError } : { apiKey, authenticated: false };
      },
      scopeRefusal: () => undefined,
      resource: () => undefined,
    };
  }
  // jose loads with the first token to check, as the MCP SDK does with the first call (sdk.ts): start-up carries neither.
  let verifier: Promise<{ jose: typeof import('jose'); keys: JWTVerifyGetKey }> | undefined;
  const cooldownMs = options.jwksCooldownMs ?? 30_000;
  const verifying = () =>
    (verifier ??= import('jose').then((jose) => ({
      jose,
      keys: keySetWithCooldown(
        jose,
        jose.createRemoteJWKSet(new URL(auth.jwksUrl), { cooldownDuration: cooldownMs }),
        cooldownMs,
      ),
    })));
  const resource = (req: IncomingMessage) =>
    protectedResource(req, { issuer: auth.issuer, audience: auth.audience, scopes });
  const challenge = (req: IncomingMessage, params: Record<string, string>) =>
    `Bearer ${Object.entries({ ...params, resource_metadata: resource(req).metadataUrl })
      .map(([k, v]) => `${k}="${v.replace(/["\\]/g, '')}"`)
      .join(', ')}`;

  return {
    mode: 'jwt',
    async authenticate(req) {
      const token = bearerToken(req.headers.authorization);
      if (token === undefined) {
        const error = new GatewayError(
          ErrorCode.Unauthenticated,
          `/mcp needs an OAuth access token: send "Authorization: Bearer <token>" from the authorization server its metadata names (${resource(req).metadataUrl}).`,
        );
        // RFC 6750 section 3.1: no error code when the request carried no credentials at all.
        return { status: 401, challenge: challenge(req, {}), error };
      }
      const { jose, keys } = await verifying();
      let payload: JWTPayload;
      try {
        ({ payload } = await jose.jwtVerify(token, keys, {
          issuer: auth.issuer,
          audience: auth.audience,
          algorithms: ALGORITHMS,
          requiredClaims: ['exp', 'sub'],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
        }));
      } catch (error) {
        const refused = tokenRefusal(error, auth, jose.errors);
        if (refused.status === 401)
          refused.challenge = challenge(req, { error: 'invalid_token', error_description: refused.error.message });
        return refused;
      }
      return { subject: payload.sub!, scopes: scopesOf(payload), authenticated: true };
    },
    scopeRefusal(req, caller, tool, required) {
      const missing = required.filter((s) => !caller.scopes?.has(s));
      if (!missing.length) return undefined;
      const error = new GatewayError(
        ErrorCode.Forbidden,
        `${tool} needs the scope${required.length > 1 ? 's' : ''} ${required.join(' ')}; the token lacks ${missing.join(' ')}: ask the authorization server for a token with ${required.length > 1 ? 'them' : 'it'}.`,
      );
      return {
        status: 403,
        challenge: challenge(req, {
          error: 'insufficient_scope',
          scope: required.join(' '),
          error_description: `${tool} needs ${required.join(' ')}`,
        }),
        error,
      };
    },
    resource,
  };
}

/** The token of an `Authorization: Bearer <token>` header (the scheme in any case), or undefined. */
function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return match?.[1];
}

/** The token's scopes: `scope` (RFC 9068, space-separated) or `scp` (Entra ID: a string or a list). */
function scopesOf(payload: JWTPayload): ReadonlySet<string> {
  const raw = payload.scope ?? payload.scp;
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(' ') : [];
  return new Set(list.filter((s): s is string => typeof s === 'string' && s !== ''));
}

/** What a token that did not verify is told: why, in words that name the fix, never the token or its claims' values. */
function tokenRefusal(
  error: unknown,
  auth: Extract<McpAuthConfig, { mode: 'jwt' }>,
  jose: typeof import('jose').errors,
): McpRefusal {
  const refuse = (message: string): McpRefusal => ({
    status: 401,
    error: new GatewayError(ErrorCode.Unauthenticated, message),
  });
  if (error instanceof jose.JWTExpired)
    return refuse('The access token has expired: get a new one from the authorization server.');
  if (error instanceof jose.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'aud':
        return refuse(
          `The access token was not issued for this server: its audience must be ${auth.audience} (MCP_JWT_AUDIENCE).`,
        );
      case 'iss':
        return refuse(
          `The access token was issued by another authorization server: its issuer must be ${auth.issuer} (MCP_JWT_ISSUER).`,
        );
      case 'sub':
        return refuse('The access token names no subject (sub): /mcp needs to know who the caller is.');
      case 'nbf':
        return refuse('The access token is not valid yet (nbf): check the clocks, or wait.');
      default:
        return refuse(`The access token's "${error.claim}" claim is missing or invalid.`);
    }
  }
  if (error instanceof jose.JWKSNoMatchingKey)
    return refuse(
      'The access token is signed by a key the authorization server does not publish at MCP_JWT_JWKS_URL: get a new token.',
    );
  if (error instanceof jose.JWSSignatureVerificationFailed)
    return refuse("The access token's signature does not verify: get a new token from the authorization server.");
  if (error instanceof jose.JOSEAlgNotAllowed)
    return refuse(
      'The access token is signed with an algorithm /mcp does not accept: it takes asymmetric signatures (RS, PS, ES, EdDSA).',
    );
  if (keySetUnreadable(error, jose)) return { status: 503, error: jwksUnreachable() };
  if (error instanceof jose.JOSEError)
    return refuse(
      'The access token is not a valid JWT: send the access token the authorization server issued, as it issued it.',
    );
  // fetch() of the key set failed (connection refused, DNS): the keys cannot be read, the token is not at fault.
  return { status: 503, error: jwksUnreachable() };
}

function jwksUnreachable(): GatewayError {
  return new GatewayError(
    ErrorCode.UpstreamError,
    "The authorization server's keys (MCP_JWT_JWKS_URL) could not be read, so no token can be checked now: try again shortly.",
    { upstream: 'jwks' },
  );
}
