import type { FormattedExecutionResult, GraphQLFormattedError } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayServices } from '../../context/services.js';
import { ErrorCode, ErrorReason, GatewayError } from '../../errors/codes.js';
import {
  OperationFailed,
  type OperationPayload,
  type OperationPipeline,
  type OperationStream,
} from '../../pipeline/index.js';
import type { ClientResolver } from '../clientIdentity.js';
import { httpCaller } from '../http/httpCaller.js';
import { APPLICATION_JSON, sendErrors, sendRefusal } from '../http/response.js';
import { readCallbackRequest, type CallbackRequest } from './request.js';
import { CallbackSender, type CallbackMessage, type Delivery } from './sender.js';

/** Options of {@link createCallbackSubscriptions}. */
export interface CallbackSubscriptionsOptions {
  pipeline: OperationPipeline;
  services: GatewayServices;
  clients: ClientResolver;
  /** Time a router has to answer one callback message (connect included). @default 5000 */
  timeoutMs?: number;
}

/** What the HTTP router hands a callback subscription's POST to, and what closes them at shutdown. */
export interface CallbackSubscriptions {
  /** A POST whose body carries `extensions.subscription` (classify.ts). */
  serve(req: IncomingMessage, res: ServerResponse, requestId: string, payload: OperationPayload): Promise<void>;
  /** Subscriptions running now. */
  readonly open: number;
  /** Waits for running subscriptions to end (the pipeline's drain ended them: their `complete` is on its way). */
  stop(): Promise<void>;
}

/**
 * Subscriptions over Apollo's HTTP callback protocol (callbackSpec 1.0, PROTOCOL.md beside this file) on `/graphql`:
 * the router's POST is one operation of the pipeline's entry (the same admission, caps, cost and fair share as over
 * graphql-ws); once admitted, a `check` to its `callbackUrl`, and only when the router accepts it the subscription
 * starts and the POST is answered `{"data": null}`; its events go to the router as `next` messages, its end as
 * `complete` (with the errors when it failed), with a `check` as heartbeat. One message in flight per subscription:
 * the next event is read from the operation only once the router took the last one, so a slow router pauses the
 * upstream, as a slow WebSocket client does. A 404 from the router (or no answer in time) ends the subscription there.
 */
export function createCallbackSubscriptions(options: CallbackSubscriptionsOptions): CallbackSubscriptions {
  const { pipeline, services, clients } = options;
  const timeoutMs = options.timeoutMs ?? 5000;
  const sender = new CallbackSender(services, timeoutMs);
  const running = new Set<CallbackSubscription>();
  const allowedHosts = services.config.trust.subscriptionCallbackHosts;

  return {
    get open() {
      return running.size;
    },

    async serve(req, res, requestId, payload) {
      // Checked before anything else runs, and refused by the entry (logged and counted as any refusal) before admission.
      const request = readCallbackRequest(payload.extensions?.subscription, allowedHosts);
      const cancel = new AbortController();
      let started!: () => void;
      const subscribed = new Promise<'started'>((resolve) => (started = () => resolve('started')));
      const answer = await pipeline.execute(payload, httpCaller(req, requestId, 'callback', clients), {
        signal: cancel.signal,
        stream: true,
        subscriptionStarted() {
          services.metrics.subscriptionsStarted.inc();
          started();
        },
        refuse: (type) =>
          type !== 'subscription' ? notSubscription(type) : request instanceof Error ? request : undefined,
      });
      if (answer.kind === 'refused') return sendErrors(req, res, answer.status ?? 400, answer.errors);
      if (answer.kind !== 'stream' || request instanceof Error) throw new Error('a subscription stream was asked for');

      const subscription = new CallbackSubscription(request, answer.results, cancel, sender, requestId, services);
      const checked = await sender.send(request, { action: 'check' }, requestId);
      if (checked.kind !== 'delivered') {
        await answer.results.return();
        services.log.warn(
          { requestId, delivery: checked.kind, why: 'why' in checked ? checked.why : undefined },
          'callback subscription not started: its router did not accept the check',
        );
        // callbackSpec 1.0: a subscription whose check failed is answered with a 4xx status, whatever the Accept.
        return sendRefusal(req, res, 400, pipeline.format([checkFailed(checked)]));
      }
      running.add(subscription);
      subscription.beat();
      // Subscribing (the resolver's own checks, a provider's connection) only now that the router listens.
      const first = answer.results.next();
      const outcome = await Promise.race([
        subscribed,
        first.then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        ),
      ]);
      if (outcome !== 'started') {
        // Its resolver refused it: the router gets the errors on its request, and no message.
        subscription.stopBeating();
        running.delete(subscription);
        await answer.results.return();
        const errors =
          'error' in outcome
            ? outcome.error instanceof OperationFailed
              ? outcome.error.errors
              : pipeline.format([internalError(outcome.error)])
            : outcome.result.value?.errors;
        // No errors: it ended before it began, because the router already ended it (a heartbeat answered 404).
        if (!errors?.length) return sendRefusal(req, res, 400, pipeline.format([checkFailed(subscription.closedBy)]));
        return sendErrors(req, res, 400, errors);
      }
      res.writeHead(200, { 'content-type': APPLICATION_JSON, 'cache-control': 'no-store' });
      res.end('{"data":null}\n');
      void subscription.run(first).finally(() => running.delete(subscription));
    },

    async stop() {
      await Promise.allSettled([...running].map((s) => s.ended));
      await sender.close();
    },
  };
}

/**
 * One callback subscription after the router accepted its `check`: its events as `next` messages, one in flight, then
 * `complete`; a `check` each heartbeat period; ended by the router's 404, by a message it refused or did not take in
 * time, or by its operation's end.
 */
class CallbackSubscription {
  /** Settles once the subscription ended and its last message was answered. */
  readonly ended: Promise<void>;
  private resolveEnded!: () => void;
  /** The one message in flight (or none): every message waits for the one before it. */
  private tail: Promise<unknown> = Promise.resolve();
  /** A heartbeat waits or is in flight: another one would only queue behind it. */
  private checking = false;
  /** Why the router no longer takes messages for it, once it does not. */
  private closed: Exclude<Delivery, { kind: 'delivered' }> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly request: CallbackRequest,
    private readonly results: OperationStream,
    private readonly cancel: AbortController,
    private readonly sender: CallbackSender,
    private readonly requestId: string,
    private readonly services: GatewayServices,
  ) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
  }

  /** Why the router no longer takes its messages (`failed` when it has not said). */
  get closedBy(): Exclude<Delivery, { kind: 'delivered' }> {
    return this.closed ?? { kind: 'failed', why: 'the subscription ended before it began' };
  }

  /** Starts the heartbeat: a `check` within every `heartbeatIntervalMs`, sent ahead of it by a margin for the wire. */
  beat(): void {
    const interval = this.request.heartbeatIntervalMs;
    if (interval === 0) return;
    this.heartbeat = setInterval(() => {
      if (this.checking || this.closed) return;
      this.checking = true;
      void this.send({ action: 'check' }).finally(() => (this.checking = false));
    }, heartbeatPeriod(interval));
    this.heartbeat.unref();
  }

  stopBeating(): void {
    clearInterval(this.heartbeat);
  }

  /** Sends the events from `first` on, then `complete`; settles {@link ended}. */
  async run(first: Promise<IteratorResult<FormattedExecutionResult>>): Promise<void> {
    let completion: CallbackMessage = { action: 'complete' };
    try {
      for (let next = await first; !next.done && !this.closed; next = await this.results.next()) {
        await this.send({ action: 'next', payload: next.value });
      }
    } catch (error) {
      const errors: readonly GraphQLFormattedError[] =
        error instanceof OperationFailed ? error.errors : [{ message: 'Internal server error' }];
      if (!(error instanceof OperationFailed))
        this.services.log.error(
          { requestId: this.requestId, err: this.services.redact(String((error as Error)?.stack ?? error)) },
          'callback subscription failed',
        );
      completion = { action: 'complete', errors };
    } finally {
      this.stopBeating();
    }
    if (!this.closed) await this.send(completion);
    await this.results.return();
    this.resolveEnded();
  }

  /** Sends `message` once the message before it was answered; a router that no longer takes them ends the subscription. */
  private send(message: CallbackMessage): Promise<void> {
    const sent = this.tail.then(async () => {
      if (this.closed) return;
      const delivery = await this.sender.send(this.request, message, this.requestId);
      if (delivery.kind !== 'delivered') this.close(delivery, message.action);
    });
    this.tail = sent;
    return sent;
  }

  /** The router no longer takes messages: the operation ends here (its caps and upstream work released), no `complete`. */
  private close(delivery: Exclude<Delivery, { kind: 'delivered' }>, action: CallbackMessage['action']): void {
    if (this.closed) return;
    this.closed = delivery;
    this.stopBeating();
    if (delivery.kind === 'failed')
      this.services.metrics.streamSlowClientCloses.inc({ transport: 'callback', reason: 'stalled' });
    if (delivery.kind === 'refused' || delivery.kind === 'failed')
      this.services.log.warn(
        { requestId: this.requestId, action, why: delivery.why },
        'ending a callback subscription: its router did not take a message',
      );
    // Aborting first: a source blocked on its upstream ends on the signal; return() alone would wait for its next event.
    this.cancel.abort();
    void this.results.return();
  }
}

/**
 * How often a heartbeat `check` goes out for an interval the router asked for: the spec asks one within every period,
 * and Hive Gateway ends a subscription that heard nothing for exactly one interval, so it leaves a quarter of the
 * interval early: room for a loaded router to take it in time.
 */
export function heartbeatPeriod(intervalMs: number): number {
  return intervalMs - Math.floor(intervalMs / 4);
}

function notSubscription(type: string): GatewayError {
  return new GatewayError(
    ErrorCode.BadUserInput,
    `extensions.subscription asks for a subscription over HTTP callbacks, but this operation is a ${type}: send it without extensions.subscription.`,
    { http: { status: 400 } },
  );
}

function checkFailed(delivery: Exclude<Delivery, { kind: 'delivered' }>): GatewayError {
  const why =
    delivery.kind === 'gone'
      ? 'answered 404'
      : delivery.kind === 'refused'
        ? delivery.why
        : `did not answer (${delivery.why})`;
  return new GatewayError(
    ErrorCode.BadUserInput,
    `The router's callbackUrl ${why} to the callback protocol's check (callbackSpec 1.0 asks 204 with subscription-protocol: callback/1.0): the subscription did not start.`,
    { reason: ErrorReason.CallbackCheckFailed },
  );
}

function internalError(error: unknown): GatewayError {
  return new GatewayError(ErrorCode.InternalServerError, (error as Error)?.message ?? String(error));
}
