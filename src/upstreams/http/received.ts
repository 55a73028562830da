import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { ResponseHeaders } from './dispatch.js';

/** An answer whose headers arrived: its body streams on as the caller reads it. */
export interface Received {
  statusCode: number;
  headers: ResponseHeaders;
  body: Readable;
}

/**
 * Dispatches one request through a composed dispatcher and answers once its headers arrive, with the headers as the
 * interceptors saw them and the body as a stream. Not undici's `dispatcher.request()`: its handler speaks undici's
 * older handler interface, so a composed dispatcher converts every answer's headers back to raw buffers for it
 * (`WrapHandler`, a `Buffer` per name and value) and `request()` parses them again, in an `AsyncResource` of its
 * own; here the interceptors' headers object is the answer's. `opts.signal` aborts the request at any point (a
 * stream already handed out is destroyed with the signal's reason), and a body destroyed before its end (a limit, a
 * caller gone) aborts the request, so the socket is never left reading for nobody.
 */
export function receive(
  dispatcher: Dispatcher,
  opts: Dispatcher.DispatchOptions & { signal?: AbortSignal },
): Promise<Received> {
  return new Promise((resolve, reject) => {
    const handler = new ReceiveHandler(opts.signal, resolve, reject);
    try {
      dispatcher.dispatch(opts, handler);
    } catch (error) {
      // An interceptor that refuses at once (an open circuit) throws here.
      handler.onResponseError(undefined, error as Error);
    }
  });
}

class ReceiveHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private body: Readable | undefined;
  private settled = false;
  /** The answer's end (or failure) came: destroying the body no longer aborts anything. */
  private ended = false;
  private readonly onAbort = () => this.abort(this.signal!.reason as Error);

  constructor(
    private readonly signal: AbortSignal | undefined,
    private readonly resolve: (received: Received) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal?.aborted) controller.abort(this.signal.reason as Error);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: ResponseHeaders): void {
    // An interim answer (100 Continue, 103 Early Hints) is not the answer.
    if (statusCode < 200 || this.settled) return;
    this.settled = true;
    const body = new Readable({
      read: () => controller.resume(),
      destroy: (error, callback) => {
        // Destroyed before its end: nobody reads the rest, so the request stops.
        if (!this.ended)
          controller.abort(error ?? new Error('The upstream response body was destroyed before its end.'));
        this.detach();
        callback(error);
      },
    });
    this.body = body;
    this.resolve({ statusCode, headers, body });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.body && !this.body.push(chunk)) controller.pause();
  }

  onResponseEnd(): void {
    this.ended = true;
    this.detach();
    this.body?.push(null);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    this.ended = true;
    this.detach();
    if (!this.settled) {
      this.settled = true;
      this.reject(error);
    } else if (this.body && !this.body.destroyed) this.body.destroy(error);
  }

  private abort(reason: Error): void {
    if (this.body) {
      if (!this.body.destroyed) this.body.destroy(reason);
    } else this.controller?.abort(reason);
  }

  private detach(): void {
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}
