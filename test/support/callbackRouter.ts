/**
 * A federation router's side of Apollo's HTTP callback protocol (callbackSpec 1.0), written from the spec
 * (https://www.apollographql.com/docs/graphos/routing/operations/subscriptions/callback-protocol, read 2026-11-28;
 * docs/upstreams.md) and no looser than it: it subscribes as a router does, and checks every message a subgraph sends
 * its callback endpoint — method, headers, body shape, `id` and `verifier`, that `check` comes before the subscription
 * is answered, the heartbeat period, nothing after `complete` or after it answered 404 — recording each breach in
 * `violations` (a test asserts there are none).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CallbackMessage {
  at: number;
  action: string;
  body: Record<string, any>;
}

/** One subscription as the router knows it. */
export interface RouterSubscription {
  id: string;
  verifier: string;
  heartbeatIntervalMs: number;
  /** Every message received for it, in order. */
  messages: CallbackMessage[];
  /** `checking` until its first `check` was accepted; `ended` after `complete`, a refused check, or once the router ended it. */
  state: 'checking' | 'active' | 'ended';
  /** When the subgraph answered the subscription's POST. */
  answeredAt?: number;
  /** The subgraph was told it ended (a 404, a refused check, or its own `complete`): any later message is a breach. */
  told?: boolean;
  /** Resolves at `complete`. */
  completed: Promise<CallbackMessage>;
  complete?: (message: CallbackMessage) => void;
}

/** How the router answers a `check`: a status (204 is the spec's yes), or never (a router that hangs). */
export type CheckAnswer = number | 'hang';

const ACTIONS = new Set(['check', 'next', 'complete']);
const BASE_FIELDS = ['kind', 'action', 'id', 'verifier'];

export class CallbackRouter {
  readonly subscriptions = new Map<string, RouterSubscription>();
  readonly violations: string[] = [];
  /** Every request the endpoint received, valid or not. */
  received = 0;
  checkAnswer: CheckAnswer = 204;
  /** The protocol version the router names in its answer to a `check`. */
  checkProtocol = 'callback/1.0';
  /** How long the router takes to answer each `next` (a slow router). */
  nextDelayMs = 0;
  /** Most messages of one subscription the router held unanswered at once (the spec's emitter sends them in order). */
  maxInFlight = 0;
  private readonly inFlight = new Map<string, number>();
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(host = '127.0.0.1'): Promise<CallbackRouter> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    const router = new CallbackRouter(server, `http://${host}:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => void router.receive(req, res));
    return router;
  }

  callbackUrl(id: string): string {
    return `${this.origin}/callback/${id}`;
  }

  /**
   * Subscribes as a router does: a fresh id and verifier, the POST with `Accept: application/json;callbackSpec=1.0`.
   * Gives the subgraph's answer to the POST and the subscription's record.
   */
  async subscribe(
    gatewayUrl: string,
    query: string,
    options: {
      variables?: Record<string, unknown>;
      heartbeatIntervalMs?: number;
      callbackUrl?: string;
      headers?: Record<string, string>;
    } = {},
  ): Promise<{ status: number; body: any; subscription: RouterSubscription }> {
    const id = randomUUID();
    const subscription: RouterSubscription = {
      id,
      verifier: randomUUID(),
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 5000,
      messages: [],
      state: 'checking',
      completed: undefined as never,
    };
    subscription.completed = new Promise((resolve) => (subscription.complete = resolve));
    this.subscriptions.set(id, subscription);
    const res = await fetch(gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json;callbackSpec=1.0', ...options.headers },
      body: JSON.stringify({
        query,
        variables: options.variables,
        extensions: {
          subscription: {
            callbackUrl: options.callbackUrl ?? this.callbackUrl(id),
            subscriptionId: id,
            verifier: subscription.verifier,
            heartbeatIntervalMs: subscription.heartbeatIntervalMs,
          },
        },
      }),
    });
    const body = (await res.json()) as any;
    subscription.answeredAt = performance.now();
    const accepted = res.status === 200 && body?.data === null && !body.errors;
    // callbackSpec 1.0: the subgraph answers only after the router accepted its check.
    if (accepted && !this.messagesOf(subscription, 'check').length)
      this.violations.push(`${id} answered {data: null} before any check`);
    if (!accepted) subscription.state = 'ended';
    return { status: res.status, body, subscription };
  }

  /** The router ends a subscription (its client left): every later message for it is answered 404. */
  terminate(id: string): void {
    const s = this.subscriptions.get(id);
    if (s) s.state = 'ended';
  }

  /** Messages of one action for one subscription. */
  messagesOf(s: RouterSubscription, action: string): CallbackMessage[] {
    return s.messages.filter((m) => m.action === action);
  }

  /**
   * Heartbeat breaches of an active subscription: a gap longer than its interval (plus `slackMs` for a loaded machine)
   * from the answer to its POST to the first `check`, or between two `check`s, until `until`.
   */
  heartbeatGaps(s: RouterSubscription, slackMs: number, until = performance.now()): number[] {
    const times = [
      s.answeredAt!,
      ...this.messagesOf(s, 'check')
        .map((m) => m.at)
        .filter((t) => t > s.answeredAt!),
      until,
    ];
    const gaps: number[] = [];
    for (let i = 1; i < times.length; i++) {
      const gap = times[i] - times[i - 1];
      if (gap > s.heartbeatIntervalMs + slackMs) gaps.push(Math.round(gap));
    }
    return gaps;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.received++;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const at = performance.now();
    const text = Buffer.concat(chunks).toString('utf8');
    const fail = (status: number, violation?: string) => {
      if (violation) this.violations.push(violation);
      res.writeHead(status).end();
    };
    if (req.method !== 'POST') return fail(405, `${req.method} instead of POST`);
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
      return fail(400, `content-type ${req.headers['content-type']}`);
    if (req.headers['subscription-protocol'] !== 'callback/1.0')
      return fail(400, `subscription-protocol ${req.headers['subscription-protocol']}`);
    let body: Record<string, any>;
    try {
      body = JSON.parse(text) as Record<string, any>;
    } catch {
      return fail(400, `a body that is not JSON: ${text.slice(0, 80)}`);
    }
    if (body.kind !== 'subscription') return fail(400, `kind ${body.kind}`);
    if (!ACTIONS.has(body.action)) return fail(400, `action ${body.action}`);
    const pathId = (req.url ?? '').split('/').pop();
    const s = typeof body.id === 'string' ? this.subscriptions.get(body.id) : undefined;
    if (!s) return fail(404, `a message for an unknown id ${body.id}`);
    if (pathId !== s.id) return fail(400, `id ${body.id} sent to ${req.url}`);
    if (body.verifier !== s.verifier) return fail(400, `a wrong verifier for ${s.id}`);
    const allowed = [
      ...BASE_FIELDS,
      ...(body.action === 'next' ? ['payload'] : body.action === 'complete' ? ['errors'] : []),
    ];
    const extra = Object.keys(body).filter((k) => !allowed.includes(k));
    if (extra.length) this.violations.push(`${body.action} with ${extra.join(', ')}`);
    if (body.action === 'next') {
      const p = body.payload as Record<string, unknown> | undefined;
      if (!p || typeof p !== 'object' || !('data' in p || 'errors' in p))
        this.violations.push(`next without a GraphQL result: ${text.slice(0, 120)}`);
    }
    if (body.action === 'complete' && body.errors !== undefined) {
      const errors = body.errors as unknown;
      if (!Array.isArray(errors) || errors.some((e) => typeof (e as { message?: unknown })?.message !== 'string'))
        this.violations.push(`complete with errors that are not GraphQL errors: ${text.slice(0, 120)}`);
    }
    // Ended here: the spec's 404, and the subgraph must not send again.
    if (s.state === 'ended') {
      const breach = s.told ? `${body.action} after the subscription ended` : undefined;
      s.told = true;
      return fail(404, breach);
    }
    if (s.state === 'checking' && body.action !== 'check') this.violations.push(`${body.action} before a check`);
    const message = { at, action: body.action as string, body };
    s.messages.push(message);
    if (body.action === 'check') {
      if (this.checkAnswer === 'hang' && s.state === 'checking') {
        this.hanging.add(res);
        return;
      }
      const status = s.state === 'checking' ? this.checkAnswer : 204;
      s.state = status === 204 ? 'active' : 'ended';
      s.told = s.state === 'ended';
      res.writeHead(status as number, { 'subscription-protocol': this.checkProtocol }).end();
      return;
    }
    if (body.action === 'next' && this.nextDelayMs > 0) {
      const held = (this.inFlight.get(s.id) ?? 0) + 1;
      this.inFlight.set(s.id, held);
      this.maxInFlight = Math.max(this.maxInFlight, held);
      await new Promise((resolve) => setTimeout(resolve, this.nextDelayMs));
      this.inFlight.set(s.id, held - 1);
    }
    if (body.action === 'complete') {
      s.state = 'ended';
      s.told = true;
      s.complete?.(message);
    }
    res.writeHead(200).end();
  }
}
