import { createContext, setOperationValue, type GatewayContext } from '../../../context/request.js';
import type { CoreServices, GatewayServices } from '../../../context/services.js';
import { eventStream, type EventSink } from '../../../execution/eventStream.js';
import { shareEvent } from '../../../execution/sharedEvents.js';
import { staleCacheTags } from '../cacheTags.js';
import { ENTERPRISE_SESSION, EnterpriseSession } from '../session.js';
import type { FanOut, SharedState } from '../../../state/index.js';
import type { ChangeBatch, HealthChange, MessagePost, ServiceFilter } from './changes.js';
import { LiveMetrics } from './metrics.js';
import { LEASE_INTERVALS, LivePoller, type MessagesWanted, type PollClock } from './poller.js';
import { LiveSource } from './source.js';

/**
 * Everything the subscribers of one published batch share: one context with no caller in it, and its enterprise
 * session (its loaders and its GET cache), so a payload selection that needs more than the poll read costs one
 * upstream request per batch, not one per subscriber. It uses the gateway's own credentials, as the poll does.
 */
export class BatchScope {
  private batchContext: GatewayContext | undefined;
  private session: EnterpriseSession | undefined;

  constructor(
    private readonly services: GatewayServices,
    readonly poll: number,
    private readonly signal: AbortSignal,
  ) {}

  /** The context the batch's payloads are resolved in: no subscriber's credentials, API key or request id. */
  get context(): GatewayContext {
    this.batchContext ??= createContext(this.services, { requestId: `live-poll-${this.poll}`, signal: this.signal });
    return this.batchContext;
  }

  get enterprise(): EnterpriseSession {
    this.session ??= new EnterpriseSession(this.context);
    return this.session;
  }

  /**
   * Makes a subscriber's resolvers use this batch's session for the rest of this event. A subscription keeps one
   * context for its whole life; without this, its own session would serve every later event from its GET cache.
   */
  adopt(ctx: GatewayContext): void {
    setOperationValue(ctx, ENTERPRISE_SESSION, this.enterprise);
  }
}

export type HealthEvent = HealthChange & { scope: BatchScope };
export interface MessageEvent {
  post: MessagePost;
  scope: BatchScope;
}

/** One subscription of the feed, told when its stream ends (a method, not a closure per subscriber). */
class Subscriber<T> {
  /** Set when the stream starts, before the subscriber joins its set. */
  sink: EventSink<T> | undefined;

  constructor(
    readonly filter: ServiceFilter | undefined,
    private readonly set: Set<Subscriber<T>>,
    private readonly feed: { demandChanged(): void },
  ) {}

  ended(): void {
    if (this.set.delete(this)) this.feed.demandChanged();
  }
}

/** What a test may replace; the defaults are the gateway's shared state on real timers. */
export interface LiveHealthOptions {
  /**
   * Where the leader lease (`live-health`) and the channels (`live-health`, `live-health:wants`) live: in process, or
   * Redis with `REDIS_URL`, so one replica polls for the cluster and its changes reach every replica.
   * @default services.state
   */
  state?: SharedState;
  clock?: PollClock;
}

/**
 * Live service health of one replica: its subscribers, filtered fan-out of every batch the bus delivers, and the
 * poller, which runs while this replica has subscribers.
 */
export class LiveHealth {
  readonly poller: LivePoller;
  private readonly health = new Set<Subscriber<HealthEvent>>();
  private readonly messages = new Set<Subscriber<MessageEvent>>();
  private readonly metrics: LiveMetrics;
  private readonly bus: FanOut<ChangeBatch>;
  private listening: Promise<() => void> | undefined;
  /** The last batch's delivery: the next one waits for it. */
  private delivering: Promise<void> = Promise.resolve();
  private readonly closed = new AbortController();
  /** The whole services, from the first subscriber (see {@link join}). */
  private gateway: GatewayServices | undefined;
  /**
   * Routers listed in ROUTER_INVALIDATION_URLS are told of every change, so health is polled while they are, as if
   * one more subscriber stood for them.
   */
  private readonly standing: number;

  constructor(
    private readonly services: CoreServices,
    options: LiveHealthOptions = {},
  ) {
    this.metrics = new LiveMetrics(services.metrics.registry);
    const state = options.state ?? services.state;
    const intervalMs = services.config.graph.pollIntervalMs;
    this.bus = state.channel<ChangeBatch>('live-health');
    const client = services.clients.graph;
    const routers = services.clients.routers;
    const source = new LiveSource(client, async (signal) => ({
      authorization: await client.authorization(undefined),
      signal,
      requestId: 'live-health-poll',
    }));
    this.poller = new LivePoller({
      intervalMs,
      source,
      // While Redis fails every replica polls on its own: subscribers keep hearing of changes, at a replica's cost.
      lease: state.leaderLease('live-health', { ttlMs: intervalMs * LEASE_INTERVALS, whenUnavailable: 'lead' }),
      bus: this.bus,
      wants: state.channel<MessagesWanted>('live-health:wants'),
      metrics: this.metrics,
      log: services.log.child({ component: 'live-health' }),
      clock: options.clock,
      changed: routers && ((batch) => routers.invalidate(staleCacheTags(batch))),
    });
    this.standing = routers ? 1 : 0;
    if (routers) this.demandChanged();
  }

  /** Open live subscriptions on this replica. */
  get subscriberCount(): number {
    return this.health.size + this.messages.size;
  }

  /** A subscriber's stream of health changes; `services` are its context's, in which each batch is resolved. */
  healthChanges(
    filter: ServiceFilter | undefined,
    services: GatewayServices,
    signal: AbortSignal,
  ): AsyncIterableIterator<HealthEvent> {
    return this.join(this.health, filter, services, signal);
  }

  messagePosts(
    filter: ServiceFilter | undefined,
    services: GatewayServices,
    signal: AbortSignal,
  ): AsyncIterableIterator<MessageEvent> {
    return this.join(this.messages, filter, services, signal);
  }

  async close(): Promise<void> {
    this.closed.abort();
    for (const s of [...this.health, ...this.messages]) s.sink?.end();
    await this.poller.close();
    (await this.listening)?.();
  }

  private join<T>(
    set: Set<Subscriber<T>>,
    filter: ServiceFilter | undefined,
    services: GatewayServices,
    signal: AbortSignal,
  ): AsyncIterableIterator<T> {
    // The gateway's services, whole (its domains' state, the trusted operations), as every subscriber's context has
    // them: this feed is built before them, from the core services.
    this.gateway ??= services;
    const subscriber = new Subscriber<T>(filter, set, this);
    return eventStream<T>(
      (sink) => {
        subscriber.sink = sink;
        set.add(subscriber);
        this.listening ??= this.bus.subscribe((batch) => this.deliver(batch));
        this.demandChanged();
      },
      signal,
      subscriber,
    );
  }

  /** Subscribers joined or left: the gauge and the poller's demand follow. */
  demandChanged(): void {
    this.metrics.subscriptions.set({ subscription: 'serviceHealthChanged' }, this.health.size);
    this.metrics.subscriptions.set({ subscription: 'serviceMessagePosted' }, this.messages.size);
    this.poller.setDemand({ health: this.health.size + this.standing, messages: this.messages.size });
  }

  /**
   * Hands each change to the subscribers whose filter it passes; nothing outside a filter is ever sent. Every
   * subscriber gets the same event object, shared (execution/sharedEvents.ts): its payload is resolved in the batch's
   * context with the gateway's own credentials, the same for whoever subscribed, so subscribers that selected the same
   * fields with the same variables are executed and serialised once per change. Those executions are started first
   * and awaited, then every subscriber's turn comes in one loop: a subscriber waiting for its next event takes the
   * settled result at once (execution/eventStream.ts `DirectConsumer`), with no promise per subscriber. Batches are
   * handed on in the order they came.
   */
  private deliver(batch: ChangeBatch): void {
    this.delivering = this.delivering
      .then(() => this.deliverNow(batch))
      .catch((error: unknown) =>
        this.services.log.error({ err: String((error as Error)?.stack ?? error) }, 'live-health delivery failed'),
      );
  }

  private deliverNow(batch: ChangeBatch): Promise<void> | undefined {
    if (!this.gateway) return undefined;
    const scope = new BatchScope(this.gateway, batch.poll, this.closed.signal);
    const shared = <T extends object>(event: T) => shareEvent(event, scope.context);
    // Who gets what, decided when the batch came: a subscriber joining while its executions run hears the next one.
    const recipients: Array<EventSink<HealthEvent> | EventSink<MessageEvent> | HealthEvent | MessageEvent> = [];
    for (const change of batch.health) {
      const event = shared<HealthEvent>({ ...change, scope });
      for (const s of this.health) if (!s.filter || s.filter.health(change)) recipients.push(s.sink!, event);
    }
    for (const post of batch.messages) {
      const event = shared<MessageEvent>({ post, scope });
      for (const s of this.messages) if (!s.filter || s.filter.message(post)) recipients.push(s.sink!, event);
    }
    let executions: Set<Promise<unknown>> | undefined;
    for (let i = 0; i < recipients.length; i += 2) {
      const execution = (recipients[i] as EventSink<object>).prepare(recipients[i + 1] as object);
      if (execution) (executions ??= new Set()).add(execution);
    }
    // Pushes are not awaited: one slow subscriber must not hold the fan-out for the others (push never rejects; a
    // client that stops reading is closed as a slow client by its transport, transports/outboundBuffer.ts).
    const push = () => {
      for (let i = 0; i < recipients.length; i += 2)
        void (recipients[i] as EventSink<object>).push(recipients[i + 1] as object);
    };
    if (!executions) {
      push();
      return undefined;
    }
    // A failed execution reaches its subscribers through their own next(), as before.
    return Promise.allSettled(executions).then(push);
  }
}

declare module '../../../context/services.js' {
  interface DomainServices {
    /** This replica's live service health (its poller runs only while it has subscribers). */
    liveHealth: LiveHealth;
  }
}

declare module '../../domain.js' {
  interface DomainServicesOptions {
    liveHealth?: LiveHealthOptions;
  }
}

/**
 * Calls `drop` when the live feed reports a change (this replica's poll or another's, through the shared channel):
 * the enterprise domain's cached answers are stale then (its Domain's `staleAnswers`).
 */
export function whenLiveHealthChanges(services: CoreServices, drop: () => void): Promise<() => void> {
  return services.state.channel<ChangeBatch>('live-health').subscribe((batch) => {
    if (batch.health.length || batch.messages.length) drop();
  });
}

/** The replica's live health, built at start-up (its Domain's `services`, domains/enterprise/index.ts); a test may pass options (a hand-driven clock, a state shared by two gateways in one process). */
export function createLiveHealth(services: CoreServices, options?: LiveHealthOptions): LiveHealth {
  const live = new LiveHealth(services, options);
  services.onClose.push(() => live.close());
  return live;
}
