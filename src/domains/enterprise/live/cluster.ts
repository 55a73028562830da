/**
 * The two seams that let several gateway replicas share one poller: who polls (a leader lease) and how what it found
 * reaches every replica's subscribers (a change bus). In one process both are trivial; a Redis lease (SET NX PX) and
 * Redis pub/sub implement the same interfaces for a cluster.
 */

/** Leadership for a time-to-live: the holder polls; it must renew within the TTL or another replica may take over. */
export interface LeaderLease {
  /** Tries to become leader for `ttlMs`; true when this replica holds the lease. */
  acquire(ttlMs: number): Promise<boolean>;
  /** Extends a held lease by `ttlMs`; false when it was lost (expired and taken by another replica). */
  renew(ttlMs: number): Promise<boolean>;
  /** Gives the lease up at once, so another replica with subscribers can take over without waiting for the TTL. */
  release(): Promise<void>;
}

export type Unsubscribe = () => Promise<void>;

/** Fan-out of the leader's findings to every replica (the leader's own subscribers included). Messages are JSON. */
export interface ChangeBus<T> {
  publish(message: T): Promise<void>;
  subscribe(listener: (message: T) => void): Promise<Unsubscribe>;
}

/** One process is always its own leader. */
export class InProcessLeaderLease implements LeaderLease {
  async acquire(): Promise<boolean> {
    return true;
  }
  async renew(): Promise<boolean> {
    return true;
  }
  async release(): Promise<void> {}
}

/** Delivers to this process's listeners only, synchronously, in subscription order. */
export class InProcessChangeBus<T> implements ChangeBus<T> {
  private readonly listeners = new Set<(message: T) => void>();

  async publish(message: T): Promise<void> {
    for (const listener of [...this.listeners]) listener(message);
  }

  async subscribe(listener: (message: T) => void): Promise<Unsubscribe> {
    // A wrapper per call, so subscribing the same function twice gives two independent subscriptions.
    const entry = (message: T) => listener(message);
    this.listeners.add(entry);
    return async () => void this.listeners.delete(entry);
  }
}
