import { ErrorCode, upstreamError } from '../../errors/codes.js';
import { followAbort, unfollowAbort, type CancelSource } from './cancellation.js';

/** What a waiting request is given: the slot's release, called once when its connection is done. */
type Release = () => void;

interface Waiter {
  grant: (release: Release) => void;
}

/**
 * The connections of one provider, shared fairly between clients: at most `slots` requests at once (the pool's
 * connection limit), one client at most `slots - reserved` of them, so a client that arrives while another holds
 * every slot it may is served at once; requests beyond that wait in one line per client, and a freed slot goes to
 * the next client in turn (round robin), not to whichever client queued the most. A client is the API key a request
 * presented, or its remote address.
 */
export class FairQueue {
  private busy = 0;
  private readonly held = new Map<string, number>();
  /** Lines of waiting requests by client; the map's order is the turn order. */
  private readonly lines = new Map<string, Waiter[]>();
  /** Most slots one client may hold. */
  readonly perClient: number;

  /**
   * @param slots requests at once (the provider's connection limit).
   * @param reserved slots one client cannot take, kept for the others. @default an eighth of `slots`, at least 1
   */
  constructor(
    readonly slots: number,
    readonly upstream: string,
    reserved = Math.max(1, Math.floor(slots / 8)),
  ) {
    this.perClient = Math.max(1, slots - reserved);
  }

  /** Requests waiting for a slot, all clients together. */
  get waiting(): number {
    let n = 0;
    for (const line of this.lines.values()) n += line.length;
    return n;
  }

  /** A slot for `client` at once when one is free and nobody of its own waits before it: no promise, no line. */
  tryAcquire(client: string): Release | undefined {
    return !this.lines.has(client) && this.fits(client) ? this.take(client) : undefined;
  }

  /**
   * Resolves with the release of a slot for `client`; aborting `signal` while it waits leaves the line. An operation's
   * controller is followed as it is: a stream waiting in line makes no AbortSignal, listener or Map for its wait.
   */
  acquire(client: string, signal?: CancelSource): Promise<Release> {
    if (signal?.aborted) return Promise.reject(aborted(this.upstream));
    const now = this.tryAcquire(client);
    if (now) return Promise.resolve(now);
    return new Promise<Release>((resolve, reject) => {
      const onAbort = () => {
        const line = this.lines.get(client);
        const at = line?.indexOf(waiter) ?? -1;
        if (at >= 0) line!.splice(at, 1);
        if (line?.length === 0) this.lines.delete(client);
        reject(aborted(this.upstream));
      };
      const waiter: Waiter = {
        grant: (release) => {
          if (signal) unfollowAbort(signal, onAbort);
          resolve(release);
        },
      };
      // Called once: an abort ends the wait, and a grant unfollows first.
      if (signal) followAbort(signal, onAbort);
      const line = this.lines.get(client);
      if (line) line.push(waiter);
      else this.lines.set(client, [waiter]);
    });
  }

  private fits(client: string): boolean {
    return this.busy < this.slots && (this.held.get(client) ?? 0) < this.perClient;
  }

  private take(client: string): Release {
    this.busy++;
    this.held.set(client, (this.held.get(client) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy--;
      const left = this.held.get(client)! - 1;
      if (left === 0) this.held.delete(client);
      else this.held.set(client, left);
      this.next();
    };
  }

  /** Gives free slots to waiting clients in turn; a served client goes to the back of the turn order. */
  private next(): void {
    while (this.busy < this.slots) {
      let served = false;
      for (const [client, line] of this.lines) {
        if (!this.fits(client)) continue;
        const waiter = line.shift()!;
        this.lines.delete(client);
        if (line.length > 0) this.lines.set(client, line);
        waiter.grant(this.take(client));
        served = true;
        break;
      }
      if (!served) return;
    }
  }
}

function aborted(upstream: string) {
  return upstreamError(
    ErrorCode.UpstreamError,
    `The request to ${upstream} was cancelled while it waited for a connection.`,
    { upstream },
  );
}
