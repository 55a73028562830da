/** One shared upstream request and how many callers still wait on it. */
interface Flight<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
}

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
   * `start` runs once per key in flight, with the flight's signal and its controller (the request may abort it itself,
   * e.g. on its total timeout, instead of chaining a controller of its own); `onCoalesced` is told when a caller joins
   * an existing flight.
   */
  run(
    key: string,
    start: (signal: AbortSignal, controller: AbortController) => Promise<T>,
    signal?: AbortSignal,
    onCoalesced?: () => void,
  ): Promise<T> {
    let flight = this.flights.get(key);
    if (flight) onCoalesced?.();
    else {
      const controller = new AbortController();
      const created: Flight<T> = {
        controller,
        waiters: 0,
        promise: start(controller.signal, controller).finally(() => {
          if (this.flights.get(key) === created) this.flights.delete(key);
        }),
      };
      // A flight every waiter left rejects with nobody listening; that is expected, not an unhandled error.
      created.promise.catch(() => undefined);
      this.flights.set(key, created);
      flight = created;
    }
    return wait(flight, signal);
  }

  /** Later callers start fresh requests (e.g. after a write, so no read begun before it answers one begun after). */
  forget(): void {
    this.flights.clear();
  }
}

function wait<T>(flight: Flight<T>, signal: AbortSignal | undefined): Promise<T> {
  flight.waiters++;
  if (!signal) return flight.promise;
  return new Promise((resolve, reject) => {
    const leave = () => {
      if (--flight.waiters === 0) flight.controller.abort(signal.reason);
      reject(signal.reason);
    };
    if (signal.aborted) return leave();
    signal.addEventListener('abort', leave, { once: true });
    flight.promise.then(
      (answer) => {
        signal.removeEventListener('abort', leave);
        resolve(answer);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', leave);
        reject(error);
      },
    );
  });
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
  private readonly values: Flight<T>[] = [];
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

  delete(key: string): void {
    if (this.map) {
      this.map.delete(key);
      // Back to the list once the burst is over.
      if (this.map.size === 0) this.map = undefined;
      return;
    }
    const i = this.keys.indexOf(key);
    if (i === -1) return;
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
