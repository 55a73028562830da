import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from '../http.js';
import type { Emulator, EmulatorContext, SandboxRequest } from '../types.js';
import type { TokenStore } from './auth.js';

/** The one tenant, client id and client secret the sandbox knows. */
const SANDBOX = 'sandbox';
const GRAPH_SCOPES = ['https://graph.microsoft.com/.default', '00000003-0000-0000-c000-000000000000/.default'];
const TOKEN_PATH = /^\/([^/]+)\/oauth2\/v2\.0\/token\/?$/;

/** An identity-platform error: the OAuth `error` and the AADSTS number with its sentence. */
interface AadError {
  status: number;
  error: string;
  code: number;
  message: string;
}

const aad = (status: number, error: string, code: number, message: string): AadError => ({
  status,
  error,
  code,
  message,
});

/** Timestamp as the identity platform writes it: `2013-12-31 06:31:41Z`. */
const aadTimestamp = (now: number) => new Date(now).toISOString().slice(0, 19).replace('T', ' ') + 'Z';

function aadBody(e: AadError, now: number, correlationId: string): unknown {
  const traceId = randomUUID();
  const timestamp = aadTimestamp(now);
  return {
    error: e.error,
    error_description: `AADSTS${e.code}: ${e.message}\r\nTrace ID: ${traceId}\r\nCorrelation ID: ${correlationId}\r\nTimestamp: ${timestamp}`,
    error_codes: [e.code],
    timestamp,
    trace_id: traceId,
    correlation_id: correlationId,
  };
}

/** Checks a client-credentials request in the order the identity platform does; undefined when it is good. */
function validate(tenant: string, form: URLSearchParams): AadError | undefined {
  if (tenant.toLowerCase() !== SANDBOX) {
    if (/^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(tenant) || tenant.includes('.')) {
      return aad(
        400,
        'invalid_request',
        90002,
        `Tenant '${tenant}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud. Check with your subscription administrator, this may happen if there are no active subscriptions for the tenant.`,
      );
    }
    return aad(
      400,
      'invalid_request',
      900023,
      `Specified tenant identifier '${tenant}' is neither a valid DNS name, nor a valid external domain.`,
    );
  }
  const missing = (name: string) =>
    aad(400, 'invalid_request', 900144, `The request body must contain the following parameter: '${name}'.`);
  const grant = form.get('grant_type');
  if (!grant) return missing('grant_type');
  if (grant !== 'client_credentials')
    return aad(400, 'unsupported_grant_type', 70003, `The app requested an unsupported grant type '${grant}'.`);
  const clientId = form.get('client_id');
  if (!clientId) return missing('client_id');
  const scope = form.get('scope');
  if (!scope) {
    return aad(
      400,
      'invalid_request',
      90014,
      "The required field 'scope' is missing from the credential. Ensure that you have all the necessary parameters for the login request.",
    );
  }
  if (!GRAPH_SCOPES.includes(scope)) {
    if (scope.endsWith('/.default') && !scope.includes(' ')) {
      const resource = scope.slice(0, -'/.default'.length);
      return aad(
        400,
        'invalid_resource',
        500011,
        `The resource principal named ${resource} was not found in the tenant named ${tenant}. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You might have sent your authentication request to the wrong tenant.`,
      );
    }
    return aad(
      400,
      'invalid_scope',
      1002012,
      `The provided value for scope ${scope} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`,
    );
  }
  if (clientId !== SANDBOX) {
    return aad(
      400,
      'unauthorized_client',
      700016,
      `Application with identifier '${clientId}' was not found in the directory '${tenant}'. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant. You may have sent your authentication request to the wrong tenant.`,
    );
  }
  const secret = form.get('client_secret');
  if (!secret && !form.get('client_assertion')) {
    return aad(
      400,
      'invalid_client',
      7000216,
      "'client_assertion', 'client_secret' or 'request' is required for the 'client_credentials' grant type.",
    );
  }
  if (secret !== SANDBOX) {
    return aad(
      401,
      'invalid_client',
      7000215,
      `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${clientId}'.`,
    );
  }
  return undefined;
}

const NO_STORE = { 'cache-control': 'no-store, no-cache', pragma: 'no-cache' };

/** The identity platform's token endpoint (client-credentials flow), issuing tokens the Graph emulator accepts. */
export function createLoginEmulator(tokens: TokenStore): Emulator {
  return {
    name: 'login',
    handle(req: SandboxRequest, res: ServerResponse, ctx: EmulatorContext) {
      const now = ctx.now();
      const sent = req.headers['client-request-id'];
      const correlationId = typeof sent === 'string' && sent ? sent : randomUUID();
      const headers = { ...NO_STORE, 'x-ms-request-id': randomUUID(), 'client-request-id': correlationId };
      const fail = (e: AadError) => sendJson(res, e.status, aadBody(e, now, correlationId), headers);
      const m = TOKEN_PATH.exec(req.path);
      if (!m)
        return fail(
          aad(
            404,
            'invalid_request',
            900561,
            `No endpoint at '${req.path}'; the token endpoint is /{tenant}/oauth2/v2.0/token.`,
          ),
        );
      if (req.method !== 'POST')
        return fail(
          aad(
            400,
            'invalid_request',
            900561,
            `The endpoint only accepts POST, OPTIONS requests. Received a ${req.method} request.`,
          ),
        );
      let tenant = m[1];
      try {
        tenant = decodeURIComponent(tenant);
      } catch {
        // keep the raw segment; it fails validation as an unknown tenant anyway
      }
      const error = validate(tenant, new URLSearchParams(req.body.toString('utf8')));
      if (error) return fail(error);
      const lifetime = ctx.settings.tokenLifetimeSeconds;
      sendJson(
        res,
        200,
        {
          token_type: 'Bearer',
          expires_in: lifetime,
          ext_expires_in: lifetime,
          access_token: tokens.issue(now, lifetime),
        },
        headers,
      );
    },
    faultResponse(status, ctx) {
      const e =
        status === 429
          ? aad(
              429,
              'temporarily_unavailable',
              50196,
              'The server terminated an operation because it encountered a client request loop. Retry after the time given in Retry-After.',
            )
          : status >= 500
            ? aad(status, 'temporarily_unavailable', 90033, 'A transient error has occurred. Please try again.')
            : aad(status, 'invalid_request', 90014, 'The request was rejected.');
      return { body: aadBody(e, ctx.now(), randomUUID()), headers: NO_STORE };
    },
    reset() {},
  };
}
