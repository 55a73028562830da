import { Cancellation, followAbort, unfollowAbort, type CancelSource } from './cancellation.js';
import type { Settle } from './settle.js';

/**
 * Coalesces identical upstream requests in flight across operations: the first caller of a key starts the request,
 * later callers of the same key wait on it. A caller's `signal` stops only its own wait; the shared request is
 * cancelled when every caller waiting on it is gone. The key is held in memory only, never logged.
 *
 * Not undici's `interceptors.deduplicate` (7.30.2): that one shares at the dispatcher, after the work in front of the
 * request, so OMDb's quota would be reserved and its shared cache read once per caller instead of once per flight;
 * it shares raw bodies (each caller would parse its own), and it cannot be told to forget flights after a Graph write.
 */
export class InFlight<T> {
  private readonly flights = new Flights<T>();

  /**
   * `start` runs once per key in flight, with the flight's cancellation (the request aborts it itself on its total
   * timeout, and follows it instead of making one of its own); it returns the answer's promise, or nothing and hands
   * the answer to `flight` itself (no promise of the request's own between it and the waiters). `onCoalesced` is told
   * when a caller joins an existing flight.
   */
  run(
    key: string,
    start: (cancel: Cancellation, flight: Settle<T>) => Promise<T> | void,
    signal?: CancelSource,
    onCoalesced?: () => void,
  ): Promise<T> {
    let flight = this.flights.get(key);
    if (flight) {
      onCoalesced?.();
      return flight.wait(signal);
    }
    flight = new Flight(key, this.flights);
    this.flights.set(key, flight);
    // The first caller waits before the request starts: one that settles at once (an open circuit) finds it waiting.
    const waiting = flight.wait(signal);
    flight.start(start);
    return waiting;
  }

  /** Later callers start fresh requests (e.g. after a write, so no read begun before it answers one begun after). */
  forget(): void {
    this.flights.clear();
  }
}

/** One caller waiting on a flight: its promise's functions, and its signal's listener while it waits. */
interface Waiter<T> {
  resolve: (answer: T) => void;
  reject: (error: unknown) => void;
  signal: CancelSource | undefined;
  leave: (() => void) | undefined;
}

/**
 * One shared upstream request and the callers waiting on it. Its answer is handed to each waiter as it comes (from
 * the request itself, or from one `then` of its promise): no promise of the flight's own beside each waiter's.
 */
class Flight<T> implements Settle<T> {
  readonly cancel = new Cancellation();
  /** Made with the first waiter, one slot long: most flights have one (a `push` onto `[]` reserves 17). */
  private waiters: Array<Waiter<T>> | undefined = undefined;

  constructor(
    private readonly key: string,
    private readonly table: Flights<T>,
  ) {}

  start(start: (cancel: Cancellation, flight: Settle<T>) => Promise<T> | void): void {
    let request: Promise<T> | void;
    try {
      request = start(this.cancel, this);
    } catch (error) {
      return this.reject(error);
    }
    request?.then(
      (answer) => this.settle(true, answer),
      (error: unknown) => this.settle(false, error),
    );
  }

  resolve(answer: T): void {
    this.settle(true, answer);
  }

  reject(error: unknown): void {
    this.settle(false, error);
  }

  wait(signal: CancelSource | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter<T> = { resolve, reject, signal, leave: undefined };
      if (this.waiters) this.waiters.push(waiter);
      else this.waiters = [waiter];
      if (!signal) return;
      if (signal.aborted) return this.leave(waiter);
      // Bound, not an arrow: an arrow here closes over this executor's context (the waiter, so its promise's functions
      // and answer, the flight, the caller's controller), and that context outlived the operation by two scavenges:
      // ≈ 1.1 KB of every lookup reached the old generation (bench/PROFILE.md, seventeenth pass).
      waiter.leave = this.leave.bind(this, waiter);
      followAbort(signal, waiter.leave);
    });
  }

  /** A caller's signal aborted: its wait ends; the request too when it was the last one waiting. */
  private leave(waiter: Waiter<T>): void {
    const waiters = this.waiters;
    const i = waiters ? waiters.indexOf(waiter) : -1;
    if (i === -1) return;
    waiters!.splice(i, 1);
    const signal = waiter.signal!;
    if (waiter.leave) unfollowAbort(signal, waiter.leave);
    if (waiters!.length === 0) this.cancel.abort(signal.reason);
    waiter.reject(signal.reason);
  }

  private settle(ok: boolean, outcome: unknown): void {
    this.table.delete(this.key, this);
    // A flight every waiter left settles with nobody to tell; that is expected, not an unhandled error.
    const waiters = this.waiters;
    this.waiters = undefined;
    if (!waiters) return;
    // Indexed: an array iterator's result per waiter was garbage of every request (bench:alloc, `next`).
    for (let i = 0; i < waiters.length; i++) {
      const waiter = waiters[i];
      if (waiter.leave) unfollowAbort(waiter.signal!, waiter.leave);
      if (ok) waiter.resolve(outcome as T);
      else waiter.reject(outcome);
    }
  }
}

/** How many flights are looked up by a scan of a list before they move to a Map. */
const LISTED = 32;

/**
 * The flights by key: a list scanned while few are in flight (the usual case), a Map beyond {@link LISTED}. A Map
 * that lives as long as its client and gains and loses a key per request rebuilds its hash table every few requests,
 * and V8 allocates the rebuilt table where the old one lives, in the old generation: garbage that only a full GC
 * collects, promoted by every upstream request (bench/PROFILE.md, eighth pass). A list gives back its slot in place.
 */
class Flights<T> {
  private readonly keys: string[] = [];
  private readonly values: Array<Flight<T>> = [];
  private map: Map<string, Flight<T>> | undefined;

  get(key: string): Flight<T> | undefined {
    if (this.map) return this.map.get(key);
    const i = this.keys.indexOf(key);
    return i === -1 ? undefined : this.values[i];
  }

  set(key: string, flight: Flight<T>): void {
    if (this.map) return void this.map.set(key, flight);
    const i = this.keys.indexOf(key);
    if (i !== -1) return void (this.values[i] = flight);
    if (this.keys.length >= LISTED) {
      this.map = new Map(this.keys.map((k, j) => [k, this.values[j]]));
      this.keys.length = this.values.length = 0;
      return void this.map.set(key, flight);
    }
    this.keys.push(key);
    this.values.push(flight);
  }

  /** Forgets `key`'s flight when it is still `flight` (not one started after a {@link clear}). */
  delete(key: string, flight: Flight<T>): void {
    if (this.map) {
      if (this.map.get(key) !== flight) return;
      this.map.delete(key);
      // Back to the list once the burst is over.
      if (this.map.size === 0) this.map = undefined;
      return;
    }
    const i = this.keys.indexOf(key);
    if (i === -1 || this.values[i] !== flight) return;
    const last = this.keys.length - 1;
    this.keys[i] = this.keys[last];
    this.values[i] = this.values[last];
    this.keys.pop();
    this.values.pop();
  }

  clear(): void {
    this.map = undefined;
    this.keys.length = this.values.length = 0;
  }
}
