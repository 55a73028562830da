import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { GatewayError } from '../../../errors/codes.js';
import type { RawServiceUpdateMessage } from '../../../upstreams/msgraph/types.js';
import type { FanOut, LeaderLease } from '../../../state/index.js';
import {
  diffHealth,
  diffMessages,
  fromCheckpoint,
  healthSnapshot,
  pollCheckpoint,
  type ChangeBatch,
  type HealthSnapshot,
  type MessageWindow,
  type PollCheckpoint,
} from './changes.js';
import type { LiveMetrics } from './metrics.js';
import type { LiveSource } from './source.js';

/** Where the poller's waits come from; tests drive it by hand. */
export interface PollClock {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: PollClock = {
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export type PollOutcome = 'ok' | 'rate_limited' | 'error';

/** Emitted as `poll` after every poll this replica made. */
export interface PollReport {
  poll: number;
  outcome: PollOutcome;
  /** Changes published (0 on a baseline poll and on failure). */
  changes: number;
  /** Wait before the next poll: the interval, or longer after a failure. */
  nextDelayMs: number;
}

/** How many subscribers of each kind this replica has. */
export interface Demand {
  health: number;
  messages: number;
}

/** A replica without the lease whose subscribers want message posts, told to the leader every interval. */
export interface MessagesWanted {
  /** The follower's lease holder id. */
  replica: string;
}

export interface LivePollerOptions {
  /** @default GRAPH_POLL_INTERVAL_MS */
  intervalMs: number;
  source: Pick<LiveSource, 'health' | 'messages'>;
  /** Who polls: one holder per cluster; its TTL outlives a few intervals, and it carries the last poll's checkpoint. */
  lease: LeaderLease;
  /** Where the leader publishes each poll's changes, for every replica's subscribers. */
  bus: FanOut<ChangeBatch>;
  /** Where followers say they want message posts polled too (the leader may have no such subscriber itself). */
  wants: FanOut<MessagesWanted>;
  metrics: LiveMetrics;
  log: Logger;
  /**
   * Told of each poll's changes once published, by the leader alone (so one replica tells the routers,
   * ROUTER_INVALIDATION_URLS); it must not block: the poll does not wait for it.
   */
  changed?: (batch: ChangeBatch) => void;
  /** @default real timers */
  clock?: PollClock;
}

/** Longest backoff after repeated failures without `Retry-After`, in intervals. */
const MAX_BACKOFF_INTERVALS = 8;
/** The lease outlives this many intervals, so one slow poll does not hand leadership over. */
export const LEASE_INTERVALS = 3;

/**
 * One poller per replica, polling only while this replica has live subscribers and holds the leader lease. Each poll
 * reads services with their issues (and the newest messages while any replica wants them), diffs them against the
 * previous poll, publishes the changes on the bus and leaves the snapshot on the lease (its checkpoint). The first
 * poll of a run is the baseline: it reports nothing, so subscribers only hear of changes after they joined. A replica
 * that takes the lease over carries on from the checkpoint when it was taken during this replica's run, so changes
 * between two leaders' polls are reported too. A failed poll keeps the snapshot and the subscribers and waits at
 * least `Retry-After` (else backs off exponentially); the next successful poll reports what changed meanwhile.
 */
export class LivePoller extends EventEmitter<{ poll: [PollReport] }> {
  private demand: Demand = { health: 0, messages: 0 };
  private run: AbortController | undefined;
  private timer: unknown;
  private leader = false;
  private health: HealthSnapshot | undefined;
  private messages: MessageWindow | undefined;
  private failures = 0;
  private polls = 0;
  private runStartedAt = 0;
  /** Followers that want message posts, until when (their last word plus the lease's lifetime). */
  private readonly followersWanting = new Map<string, number>();
  private listening: Promise<() => void> | undefined;
  private readonly clock: PollClock;

  constructor(private readonly options: LivePollerOptions) {
    super();
    this.clock = options.clock ?? realClock;
  }

  /** Polls made by this replica since it started. */
  get pollCount(): number {
    return this.polls;
  }

  /** Whether a next poll is scheduled; false once the last subscriber left. */
  get scheduled(): boolean {
    return this.timer !== undefined;
  }

  /** This replica's subscriber counts: polling starts with the first and stops with the last. */
  setDemand(demand: Demand): void {
    const wasActive = this.active;
    const wanted = this.demand.messages > 0;
    this.demand = { ...demand };
    // A messages feed that nobody reads goes stale; whoever subscribes next starts from a new baseline.
    if (!this.wantsMessages()) this.messages = undefined;
    if (!wanted && demand.messages > 0 && !this.leader) void this.tellLeader();
    if (!wasActive && this.active) this.start();
    else if (wasActive && !this.active) void this.stop();
  }

  async close(): Promise<void> {
    this.demand = { health: 0, messages: 0 };
    await this.stop();
    (await this.listening)?.();
  }

  private get active(): boolean {
    return this.demand.health + this.demand.messages > 0;
  }

  private start(): void {
    const run = new AbortController();
    this.run = run;
    this.runStartedAt = Date.now();
    this.listening ??= this.options.wants.subscribe((w) => {
      if (w.replica !== this.options.lease.holder) this.followersWanting.set(w.replica, Date.now() + this.leaseTtl);
    });
    void this.tick(run);
  }

  private get leaseTtl(): number {
    return this.options.intervalMs * LEASE_INTERVALS;
  }

  private wantsMessages(): boolean {
    if (this.demand.messages > 0) return true;
    const now = Date.now();
    for (const [replica, until] of this.followersWanting) {
      if (until > now) return true;
      this.followersWanting.delete(replica);
    }
    return false;
  }

  private async tellLeader(): Promise<void> {
    await this.options.wants.publish({ replica: this.options.lease.holder }).catch(() => undefined);
  }

  private async stop(): Promise<void> {
    this.run?.abort();
    this.run = undefined;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.forget();
    if (this.leader) {
      this.leader = false;
      await this.options.lease
        .release()
        .catch((error: unknown) =>
          this.options.log.warn({ err: String(error) }, 'live health: releasing the leader lease failed'),
        );
    }
  }

  private forget(): void {
    this.health = undefined;
    this.messages = undefined;
    this.failures = 0;
  }

  private async tick(run: AbortController): Promise<void> {
    const { intervalMs, lease, log } = this.options;
    let delay = intervalMs;
    try {
      const continuing = this.leader && (await lease.renew());
      const held = continuing || (await lease.acquire());
      if (run.signal.aborted) {
        if (held && !this.run) await lease.release();
        return;
      }
      if (!held) {
        // Another replica polls: what this one saw may be stale by the time it leads again.
        this.forget();
        if (this.demand.messages > 0) await this.tellLeader();
      } else if (!continuing) await this.resume();
      this.leader = held;
      if (held) delay = await this.poll(run.signal);
    } catch (error) {
      log.error({ err: String(error) }, 'live health: poll failed unexpectedly');
    } finally {
      if (!run.signal.aborted) {
        this.timer = this.clock.setTimeout(() => {
          this.timer = undefined;
          void this.tick(run);
        }, delay);
      }
    }
  }

  /**
   * This replica just took the lease: it carries on from the last leader's checkpoint when that poll ran while this
   * replica already had subscribers (older ones would report changes from before they joined); else a baseline.
   */
  private async resume(): Promise<void> {
    this.health = undefined;
    this.messages = undefined;
    const saved = await this.options.lease.lastCheckpoint<PollCheckpoint>();
    if (!saved || !(saved.polledAt >= this.runStartedAt)) return;
    const restored = fromCheckpoint(saved);
    this.health = restored.health;
    if (this.wantsMessages()) this.messages = restored.messages;
  }

  /** One poll; answers the wait before the next one. */
  private async poll(signal: AbortSignal): Promise<number> {
    const { intervalMs, source, metrics, log } = this.options;
    const poll = ++this.polls;
    const polledAt = Date.now();
    const detectedAt = new Date(polledAt).toISOString();
    const batch: ChangeBatch = { poll, health: [], messages: [] };
    let feed: 'health' | 'messages' = 'health';
    try {
      const services = await source.health(signal);
      if (signal.aborted) return intervalMs;
      const snapshot = healthSnapshot(services);
      if (this.health) batch.health = diffHealth(this.health, snapshot, detectedAt);
      this.health = snapshot;
      metrics.polls.inc({ feed, outcome: 'ok' });
      if (this.wantsMessages()) {
        feed = 'messages';
        const window = this.messages;
        const newestFirst = await source.messages(window, signal);
        if (signal.aborted) return intervalMs;
        const diff = diffMessages(window, newestFirst);
        this.messages = diff.window;
        batch.messages = diff.posts.map((message) => ({ message, serviceIds: this.serviceIds(message), detectedAt }));
        metrics.polls.inc({ feed, outcome: 'ok' });
      }
    } catch (error) {
      if (signal.aborted) return intervalMs;
      const status = (error as GatewayError).extensions?.status;
      const outcome: PollOutcome = status === 429 ? 'rate_limited' : 'error';
      metrics.polls.inc({ feed, outcome });
      this.failures++;
      const retryAfterMs = Number((error as GatewayError).extensions?.retryAfter ?? 0) * 1000;
      const nextDelayMs = Math.max(
        intervalMs * 2 ** Math.min(this.failures - 1, Math.log2(MAX_BACKOFF_INTERVALS)),
        retryAfterMs,
      );
      log.warn(
        { poll, feed, status, failures: this.failures, nextDelayMs, err: (error as Error).message },
        'live health: poll failed; subscribers stay, retrying later',
      );
      // Health changes found before the messages read failed are still news.
      await this.publish(batch);
      if (feed === 'messages') await this.checkpoint(polledAt);
      this.emit('poll', { poll, outcome, changes: batch.health.length, nextDelayMs });
      return nextDelayMs;
    }
    if (this.failures) log.info({ poll, failures: this.failures }, 'live health: polling recovered');
    this.failures = 0;
    const changes = await this.publish(batch);
    await this.checkpoint(polledAt);
    this.emit('poll', { poll, outcome: 'ok', changes, nextDelayMs: intervalMs });
    return intervalMs;
  }

  private async publish(batch: ChangeBatch): Promise<number> {
    const count = batch.health.length + batch.messages.length;
    if (count === 0) return 0;
    for (const change of batch.health) this.options.metrics.changes.inc({ kind: change.kind });
    if (batch.messages.length) this.options.metrics.changes.inc({ kind: 'MESSAGE_POSTED' }, batch.messages.length);
    try {
      await this.options.bus.publish(batch);
    } catch (error) {
      this.options.log.error({ poll: batch.poll, err: String(error) }, 'live health: publishing changes failed');
    }
    try {
      this.options.changed?.(batch);
    } catch (error) {
      this.options.log.error({ poll: batch.poll, err: String(error) }, 'live health: telling of changes failed');
    }
    return count;
  }

  /** Published first, then checkpointed: a leader dying in between makes its successor repeat, never miss, a change. */
  private async checkpoint(polledAt: number): Promise<void> {
    if (!this.health) return;
    await this.options.lease
      .checkpoint(pollCheckpoint(polledAt, this.health, this.messages))
      .catch((error: unknown) => {
        this.options.log.warn({ err: String(error) }, 'live health: checkpointing the poll failed');
      });
  }

  /** Ids of the services a post names, from the latest health snapshot. */
  private serviceIds(message: RawServiceUpdateMessage): string[] {
    const names = new Set((message.services ?? []).map((s) => s.toLowerCase()));
    return [...(this.health?.services.values() ?? [])]
      .filter((s) => names.has((s.raw.service ?? '').toLowerCase()))
      .map((s) => s.raw.id);
  }
}
