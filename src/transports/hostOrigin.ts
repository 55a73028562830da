import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import type { TrustConfig } from '../config/env.js';
import { ErrorCode, ErrorReason, GatewayError } from '../errors/codes.js';
import { OncePerCause } from '../observability/oncePerCause.js';

/** Longest Host or Origin repeated in a refusal. */
const MAX_ECHO = 100;
/** Distinct `Host` values whose verdict is kept: clients send a handful; past it a value is judged each time. */
const MAX_REMEMBERED_HOSTS = 64;
/** A refusal is logged at most once in this window, and at most {@link MAX_LOGGED_REFUSALS} different ones in it. */
const REFUSAL_LOG_WINDOW_MS = 60_000;
const MAX_LOGGED_REFUSALS = 64;

/**
 * Where a browser's request is going, which decides the variable its origin needs: `/graphql` over HTTP needs
 * CORS_ORIGINS (the browser withholds the answers from a page without CORS headers, and preflights most requests), a
 * WebSocket and the other endpoints need only to be admitted (ALLOWED_ORIGINS or CORS_ORIGINS).
 */
export type OriginTarget = 'graphql' | 'websocket' | 'endpoint';

/**
 * The Host and Origin checks every request passes before any route (HTTP, the WebSocket upgrade, `/mcp`, GraphiQL,
 * health and metrics):
 * - `Host` must be one of ALLOWED_HOSTS, or an IP address. A page on `evil.example` whose name the attacker rebinds
 *   to 127.0.0.1 reaches a gateway on a laptop with `Host: evil.example`, and its own origin: CORS and CSRF
 *   prevention cannot tell it from a same-origin page, the Host check can. An address cannot be rebound, and load
 *   balancers probe by address, so addresses always pass.
 * - a browser's `Origin` must be the request's own origin, or one of ALLOWED_ORIGINS (CORS_ORIGINS included). It stops
 *   what CORS does not: a cross-site WebSocket (browsers send no preflight for one) and `/mcp`, which a page could
 *   otherwise call with its visitor's network position. A request without `Origin` (a server, curl, a router) passes.
 * Both refusals are FORBIDDEN (HTTP 403) naming the variable that would allow it, and a line in the log that says
 * the same (logRefusal).
 */
export class HostOriginCheck {
  private readonly anyHost: boolean;
  private readonly names: ReadonlySet<string>;
  /** `.example.com` entries, as `example.com`: the domain and its subdomains. */
  private readonly domains: readonly string[];
  private readonly anyOrigin: boolean;
  private readonly origins: ReadonlySet<string>;
  /** The verdict per `Host` value seen (bounded). */
  private readonly hosts = new Map<string, boolean>();

  /** Which refusals reach the log: the values come from clients, who could otherwise fill it. */
  private readonly logged = new OncePerCause({ windowMs: REFUSAL_LOG_WINDOW_MS, maxPerWindow: MAX_LOGGED_REFUSALS });

  constructor(
    private readonly trust: Pick<TrustConfig, 'allowedHosts' | 'allowedOrigins'>,
    /** Where refusals are said (logRefusal); none in unit tests. */
    private readonly log?: Pick<Logger, 'warn'>,
  ) {
    this.anyHost = trust.allowedHosts.includes('*');
    this.names = new Set(trust.allowedHosts.filter((h) => !h.startsWith('.')));
    this.domains = trust.allowedHosts.filter((h) => h.startsWith('.')).map((h) => h.slice(1));
    this.anyOrigin = trust.allowedOrigins.includes('*');
    this.origins = new Set(trust.allowedOrigins.filter((o) => o !== '*').map((o) => new URL(o).origin));
  }

  /** FORBIDDEN when the request's Host or Origin is not allowed; undefined lets it in. */
  refusal(headers: IncomingHttpHeaders, target: OriginTarget = 'endpoint'): GatewayError | undefined {
    const host = headers.host;
    if (!this.anyHost && host !== undefined && !this.hostAllowed(host)) {
      return forbidden(
        ErrorReason.HostNotAllowed,
        `Host ${JSON.stringify(host.slice(0, MAX_ECHO))} is not a name this gateway answers to: list it in ALLOWED_HOSTS (a page that reaches the gateway through a name of its own, as DNS rebinding does, is refused).`,
      );
    }
    const origin = headers.origin;
    if (origin === undefined || this.anyOrigin || this.origins.has(origin) || sameOrigin(origin, host))
      return undefined;
    return originRefusal(origin, target);
  }

  /**
   * Says a refusal in the log, with the same words the client got, so that whoever runs the gateway sees which origin
   * (or Host) knocked and what to set. Each at most once a minute, and at most 64 different ones a minute: the values
   * come from clients, who could otherwise fill the log.
   */
  logRefusal(refusal: GatewayError, details: { path: string; origin?: string; host?: string }, now = Date.now()): void {
    const suppressed = this.log && this.logged.take(refusal.message, now);
    if (suppressed === undefined) return;
    this.log!.warn(
      { ...details, reason: refusal.extensions.reason, ...(suppressed ? { suppressed } : {}) },
      `refused a request to ${details.path}: ${refusal.message}`,
    );
  }

  /** What the checks allow, for the start-up log line. */
  describe(listenHost: string): string {
    const hosts = this.anyHost
      ? 'any Host'
      : `Host ${[...this.names, ...this.domains.map((d) => `*.${d}`)].join(', ')} or an IP address`;
    const origins = this.anyOrigin
      ? 'any browser Origin'
      : `browser Origin the same origin${this.origins.size ? ` or ${[...this.origins].join(', ')}` : ''}`;
    // A wildcard listen address takes connections from other machines, under names the gateway cannot know.
    const hint =
      !this.anyHost && (listenHost === '0.0.0.0' || listenHost === '::')
        ? `; HOST ${listenHost} listens on every interface: list the names clients use in ALLOWED_HOSTS`
        : '';
    return `requests are answered for ${hosts} (ALLOWED_HOSTS) and ${origins} (ALLOWED_ORIGINS)${hint}`;
  }

  private hostAllowed(host: string): boolean {
    let allowed = this.hosts.get(host);
    if (allowed === undefined) {
      allowed = this.judge(host);
      if (this.hosts.size < MAX_REMEMBERED_HOSTS) this.hosts.set(host, allowed);
    }
    return allowed;
  }

  private judge(host: string): boolean {
    const name = hostName(host);
    if (name === undefined) return false;
    if (isIP(name) || this.names.has(name)) return true;
    return this.domains.some((d) => name === d || name.endsWith(`.${d}`));
  }
}

/** The name of a `Host` header, lower case, without its port or a final dot; an IPv6 literal without its brackets. */
function hostName(host: string): string | undefined {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? undefined : host.slice(1, end);
  }
  const colon = host.indexOf(':');
  const name = (colon === -1 ? host : host.slice(0, colon)).toLowerCase();
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** Whether a browser's Origin is the request's own origin (its host and port; the scheme may be a TLS proxy's). */
function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined || !URL.canParse(origin)) return false;
  return new URL(origin).host === host.toLowerCase();
}

/**
 * The refusal of a browser's `Origin`, naming the variable that would admit it there (and the value, when the
 * header is a well-formed origin).
 */
export function originRefusal(origin: string, target: OriginTarget): GatewayError {
  const shown = JSON.stringify(origin.slice(0, MAX_ECHO));
  const value = URL.canParse(origin) && new URL(origin).origin === origin ? origin : undefined;
  switch (target) {
    case 'graphql':
      return forbidden(
        ErrorReason.OriginNotAllowed,
        `Origin ${shown} may not call /graphql from a browser page: list it in CORS_ORIGINS${value ? ` (CORS_ORIGINS=${value})` : ''}, which lets its pages send requests and read the answers (ALLOWED_ORIGINS alone admits only their WebSockets).`,
      );
    case 'websocket':
      return forbidden(
        ErrorReason.OriginNotAllowed,
        `Origin ${shown} may not open a WebSocket to this gateway: list it in CORS_ORIGINS or ALLOWED_ORIGINS${value ? ` (CORS_ORIGINS=${value})` : ''}.`,
      );
    case 'endpoint':
      return forbidden(
        ErrorReason.OriginNotAllowed,
        `Origin ${shown} may not call this gateway from a browser: list it in ALLOWED_ORIGINS (or CORS_ORIGINS), or call from the gateway's own origin.`,
      );
  }
}

function forbidden(reason: ErrorReason, message: string): GatewayError {
  return new GatewayError(ErrorCode.Forbidden, message, { reason, http: { status: 403 } });
}
