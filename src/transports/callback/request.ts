import { ErrorCode, ErrorReason, GatewayError } from '../../errors/codes.js';

/**
 * A router's request for a subscription over Apollo's HTTP callback protocol (callbackSpec 1.0, PROTOCOL.md): the
 * `extensions.subscription` of its POST, checked before anything is sent to `callbackUrl`.
 */
export interface CallbackRequest {
  /** Where every message goes: on a host SUBSCRIPTION_CALLBACK_HOSTS lists, http(s), without credentials. */
  callbackUrl: URL;
  /** The router's id of the subscription, sent back as each message's `id`. */
  id: string;
  /** Sent back in each message so the router knows it is this gateway's; never logged. */
  verifier: string;
  /** A `check` within every period this long; 0: none. */
  heartbeatIntervalMs: number;
}

/** Longest `subscriptionId` and `verifier` taken (a router's are UUIDs): both are echoed in every message. */
export const MAX_CALLBACK_FIELD_LENGTH = 256;
/** Longest `callbackUrl` taken. */
export const MAX_CALLBACK_URL_LENGTH = 2048;
/**
 * Shortest heartbeat interval taken: every open subscription sends a `check` per interval, so a router asking for 1 ms
 * would have the gateway flood it (Apollo Router's default is 5 s, Hive Gateway's 50 s).
 */
export const MIN_HEARTBEAT_INTERVAL_MS = 100;
/** Longest heartbeat interval: Node's timers hold at most 2^31 - 1 ms (a longer one fires at once). */
export const MAX_HEARTBEAT_INTERVAL_MS = 2_147_483_647;
/** What Apollo Server's callback plugin assumes when a router sends no interval. */
const DEFAULT_HEARTBEAT_INTERVAL_MS = 5000;

const bad = (message: string) => new GatewayError(ErrorCode.BadUserInput, message, { http: { status: 400 } });

/**
 * The callback subscription a request's `extensions.subscription` asks for, or the refusal (before any outbound
 * request): a missing or mistyped field (BAD_USER_INPUT), a `callbackUrl` this gateway may not call (FORBIDDEN,
 * `reason: CALLBACK_HOST_NOT_ALLOWED`; see {@link allowedCallbackUrl}).
 */
export function readCallbackRequest(
  subscription: unknown,
  allowedHosts: readonly string[] | undefined,
): CallbackRequest | GatewayError {
  if (typeof subscription !== 'object' || subscription === null || Array.isArray(subscription))
    return bad(
      'extensions.subscription must be an object { callbackUrl, subscriptionId, verifier, heartbeatIntervalMs } (callbackSpec 1.0).',
    );
  const fields = subscription as Record<string, unknown>;
  for (const name of ['callbackUrl', 'subscriptionId', 'verifier'] as const) {
    const value = fields[name];
    if (typeof value !== 'string' || value === '')
      return bad(
        `extensions.subscription.${name} must be a non-empty string (callbackSpec 1.0 names it in camelCase${name === 'verifier' ? '' : `; not ${name === 'callbackUrl' ? 'callback_url' : 'subscription_id'}`}).`,
      );
  }
  const { subscriptionId: id, verifier } = fields as Record<string, string>;
  if (id.length > MAX_CALLBACK_FIELD_LENGTH || verifier.length > MAX_CALLBACK_FIELD_LENGTH)
    return bad(
      `extensions.subscription.subscriptionId and verifier must be at most ${MAX_CALLBACK_FIELD_LENGTH} characters each: use UUIDs.`,
    );
  const interval = fields.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
  if (
    typeof interval !== 'number' ||
    !Number.isInteger(interval) ||
    (interval !== 0 && (interval < MIN_HEARTBEAT_INTERVAL_MS || interval > MAX_HEARTBEAT_INTERVAL_MS))
  )
    return bad(
      `extensions.subscription.heartbeatIntervalMs is ${JSON.stringify(interval)}: send 0 (no heartbeat) or a whole number of milliseconds from ${MIN_HEARTBEAT_INTERVAL_MS} to ${MAX_HEARTBEAT_INTERVAL_MS}.`,
    );
  const callbackUrl = allowedCallbackUrl(fields.callbackUrl as string, allowedHosts);
  if (callbackUrl instanceof GatewayError) return callbackUrl;
  return { callbackUrl, id, verifier, heartbeatIntervalMs: interval };
}

/**
 * `text` as a URL this gateway may send callbacks to, or the refusal: http or https only, no user name or password in
 * it, and its host one of `allowedHosts` (SUBSCRIPTION_CALLBACK_HOSTS: `host` for any port, `host:port` for that
 * port), compared as the URL's own parse writes it (lower case, IPv4 normalised: `http://2130706433/` is `127.0.0.1`).
 * Unset, nothing is allowed. Without this, anyone who can send a subscription could have the gateway POST to any
 * address it reaches (request forgery into the internal network).
 */
export function allowedCallbackUrl(text: string, allowedHosts: readonly string[] | undefined): URL | GatewayError {
  if (!allowedHosts)
    return notAllowed(
      'Subscriptions over HTTP callbacks are off on this gateway: its operator lists the hosts a callbackUrl may name in SUBSCRIPTION_CALLBACK_HOSTS (e.g. router.internal:4000); until then subscribe over graphql-ws or SSE.',
    );
  if (text.length > MAX_CALLBACK_URL_LENGTH)
    return bad(`extensions.subscription.callbackUrl is longer than ${MAX_CALLBACK_URL_LENGTH} characters.`);
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url) return bad('extensions.subscription.callbackUrl is not an absolute URL.');
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return bad(`extensions.subscription.callbackUrl must be an http or https URL, not ${url.protocol}.`);
  if (url.username || url.password)
    return bad(
      'extensions.subscription.callbackUrl must not carry a user name or password: the router authenticates by the verifier.',
    );
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (!allowedHosts.includes(url.hostname) && !allowedHosts.includes(`${url.hostname}:${port}`))
    return notAllowed(
      `extensions.subscription.callbackUrl names ${JSON.stringify(`${url.hostname}:${port}`)}, which SUBSCRIPTION_CALLBACK_HOSTS does not list: the gateway calls back only the routers its operator lists there.`,
    );
  url.hash = '';
  return url;
}

function notAllowed(message: string): GatewayError {
  return new GatewayError(ErrorCode.Forbidden, message, {
    reason: ErrorReason.CallbackHostNotAllowed,
    http: { status: 403 },
  });
}
