import type { GraphQLFormattedError, FormattedExecutionResult } from 'graphql';
import type { GatewayServices } from '../../context/services.js';
import { UpstreamHttp } from '../../upstreams/http/client.js';
import type { CallbackRequest } from './request.js';

/** The protocol version this gateway speaks, sent as `subscription-protocol` on every message. */
export const CALLBACK_PROTOCOL = 'callback/1.0';

/** One message of the callback protocol (PROTOCOL.md): `check` (also the heartbeat), `next` or `complete`. */
export type CallbackMessage =
  | { action: 'check' }
  | { action: 'next'; payload: FormattedExecutionResult }
  | { action: 'complete'; errors?: readonly GraphQLFormattedError[] };

/**
 * What became of a message: the router took it; it answered 404 (the subscription is gone there); it answered
 * another status (or a `check` other than 204, or named a protocol version this gateway does not speak); or no answer
 * came in time.
 */
export type Delivery =
  | { kind: 'delivered' }
  | { kind: 'gone' }
  | { kind: 'refused'; status: number; why: string }
  | { kind: 'failed'; why: string };

/** Longest answer read from a router (its answers are empty): a larger one is cut and counted as failed. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Sends callback messages to routers through the shared HTTP layer (undici, upstreams/http/client.ts) as the
 * `callback` upstream: each attempt in `gateway_upstream_requests_total{upstream="callback"}`, connect and answer
 * bounded by `timeoutMs`, a POST retried only on 429 (the project's retry policy: a message may have been taken), no
 * redirect followed (a 3xx is a refusal, so a router cannot point the gateway elsewhere). No circuit breaker: one
 * router failing must not stop callbacks to another.
 */
export class CallbackSender {
  private readonly http: UpstreamHttp;

  constructor(services: GatewayServices, timeoutMs: number) {
    this.http = new UpstreamHttp({
      upstream: 'callback',
      metrics: services.metrics,
      log: services.log,
      redact: services.redact,
      connectTimeoutMs: timeoutMs,
      headersTimeoutMs: timeoutMs,
      bodyTimeoutMs: timeoutMs,
      totalTimeoutMs: timeoutMs,
      maxResponseBytes: MAX_ANSWER_BYTES,
      breaker: { threshold: 0 },
    });
  }

  /** Sends one message of `subscription` and says what became of it; never throws. */
  async send(subscription: CallbackRequest, message: CallbackMessage, requestId?: string): Promise<Delivery> {
    const body = JSON.stringify({
      kind: 'subscription',
      action: message.action,
      id: subscription.id,
      verifier: subscription.verifier,
      ...(message.action === 'next' && { payload: message.payload }),
      ...(message.action === 'complete' && message.errors?.length && { errors: message.errors }),
    });
    let status: number;
    let version: string | string[] | undefined;
    try {
      const answer = await this.http.send({
        method: 'POST',
        url: subscription.callbackUrl.href,
        headers: { 'content-type': 'application/json', 'subscription-protocol': CALLBACK_PROTOCOL },
        body,
        requestId,
        tally: undefined,
      });
      status = answer.status;
      version = answer.headers['subscription-protocol'];
    } catch (error) {
      return { kind: 'failed', why: (error as Error)?.message ?? String(error) };
    }
    if (status === 404) return { kind: 'gone' };
    // callbackSpec 1.0: a check is accepted with 204 (and the highest version the router speaks, when it says one:
    // Hive Gateway 2.15 sends none).
    const accepted = message.action === 'check' ? status === 204 : status >= 200 && status < 300;
    if (!accepted) return { kind: 'refused', status, why: `answered ${status}` };
    const versions = Array.isArray(version) ? version.join(',') : version;
    if (message.action === 'check' && versions !== undefined && !versions.includes(CALLBACK_PROTOCOL))
      return {
        kind: 'refused',
        status,
        why: `speaks ${JSON.stringify(versions.slice(0, 64))}, not ${CALLBACK_PROTOCOL}`,
      };
    return { kind: 'delivered' };
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
