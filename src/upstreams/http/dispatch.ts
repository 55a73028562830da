import type { Dispatcher } from 'undici';
import type { Cancellation } from './cancellation.js';
import type { UpstreamTally } from './tally.js';

/**
 * What one attempt carries down the composed dispatcher (client.ts) besides undici's own options: the interceptors
 * read it there, so that each keeps one job and the request needs no side table. undici hands unknown keys on as they are.
 */
export interface UpstreamDispatchOptions extends Dispatcher.DispatchOptions {
  /** The absolute URL, for the debug log (redacted there). */
  url: string;
  /** Counts from 1. */
  attempt: number;
  requestId?: string;
  tally?: UpstreamTally;
  /** The request's cancellation (client.ts): aborting it ends the request, waits included. */
  cancel?: Cancellation;
  /** Describes the request on its trace span (traced.ts). */
  traceAttributes?: Record<string, string | number>;
  /** The caller's signal when the request came through undici's own `request()` (tests, other callers). */
  signal?: AbortSignal;
}

/**
 * Whether the request's caller cancelled it, and why: its cancellation, or the signal undici's `request()` carries
 * down. An attempt cancelled says nothing of the upstream (metered.ts, breaker.ts).
 */
export function cancelledBy(opts: UpstreamDispatchOptions): { reason: unknown } | undefined {
  const source = opts.cancel ?? opts.signal;
  return source?.aborted ? source : undefined;
}

/** The abort reason of a request past its total timeout: one object, made once (an Error per request costs its stack). */
export const TOTAL_TIMEOUT = new DOMException(
  'The upstream request took longer than its total timeout.',
  'TimeoutError',
);

type Controller = Dispatcher.DispatchController;
export type ResponseHeaders = Parameters<NonNullable<Dispatcher.DispatchHandler['onResponseStart']>>[2];
type Headers = ResponseHeaders;

/** A handler that hands every event on unchanged: an interceptor's handler overrides only the events its job needs. */
export class ForwardingHandler implements Dispatcher.DispatchHandler {
  constructor(protected readonly next: Dispatcher.DispatchHandler) {}

  onRequestStart(controller: Controller, context: unknown): void {
    this.next.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: Controller,
    status: number,
    headers: Headers,
    socket: Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestUpgrade']>>[3],
  ): void {
    this.next.onRequestUpgrade?.(controller, status, headers, socket);
  }

  onResponseStart(controller: Controller, status: number, headers: Headers, message?: string): void {
    this.next.onResponseStart?.(controller, status, headers, message);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    this.next.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Controller, trailers: Headers): void {
    this.next.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Controller, error: Error): void {
    this.next.onResponseError?.(controller, error);
  }
}
