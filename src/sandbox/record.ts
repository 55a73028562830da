import type { IncomingHttpHeaders } from 'node:http';
import type { UpstreamName } from './types.js';

/** One entry of `GET /_sandbox/requests`. */
export interface RecordedRequest {
  upstream: UpstreamName;
  method: string;
  /** Path and query exactly as received, below the upstream prefix included: e.g. `/graph/v1.0/admin?$select=id`. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The request body as text ('' when there was none). */
  body: string;
  /** ISO timestamp of arrival. */
  at: string;
  /** True when the client closed the connection before the response ended. */
  aborted: boolean;
  /** Status sent, or null while in flight / when the connection was cut. */
  status: number | null;
}

/** Bounded log of received requests, oldest first, so long benchmarks cannot grow it without end. */
export class RequestRecord {
  private entries: RecordedRequest[] = [];
  constructor(private readonly capacity = 100_000) {}

  add(entry: RecordedRequest): RecordedRequest {
    this.entries.push(entry);
    // Trim a tenth at a time: dropping one entry per request would shift the whole array on every request at capacity.
    if (this.entries.length > this.capacity + Math.ceil(this.capacity / 10))
      this.entries.splice(0, this.entries.length - this.capacity);
    return entry;
  }
  /** The newest `capacity` requests, oldest first. */
  list(): readonly RecordedRequest[] {
    return this.entries.length > this.capacity ? this.entries.slice(-this.capacity) : this.entries;
  }
  clear(): void {
    this.entries = [];
  }
}
