import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { bufferBudgetSpent, declaredTooLarge, isEncoded, readBoundedText, textOf, tooLarge } from './body.js';
import type { ResponseBufferBudget } from './bufferBudget.js';
import type { Cancellation, CancelListener } from './cancellation.js';
import type { ResponseHeaders } from './dispatch.js';
import type { Settle } from './settle.js';
import { GatewayError } from '../../errors/codes.js';

/** An answer whose headers arrived: its body streams on as the caller reads it. */
export interface Received {
  statusCode: number;
  headers: ResponseHeaders;
  body: Readable;
}

/** A whole answer, its body read within the limits of body.ts. */
export interface ReceivedText {
  statusCode: number;
  headers: ResponseHeaders;
  text: string;
}

/** The bounds of a buffered read (body.ts `readBoundedText`): the largest body and the process-wide budget. */
export interface ReadLimits {
  upstream: string;
  limit: number;
  budget?: ResponseBufferBudget;
}

type Options = Dispatcher.DispatchOptions & { cancel?: Cancellation };

/** A buffered answer's body failed after its headers came (a reset, a body short of its `Content-Length`). */
export class BodyBrokenOff extends Error {
  constructor(override readonly cause: unknown) {
    super(`The answer's body broke off: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/**
 * Dispatches one request through a composed dispatcher and answers once its headers arrive, with the headers as the
 * interceptors saw them and the body as a stream. Not undici's `dispatcher.request()`: its handler speaks undici's
 * older handler interface, so a composed dispatcher converts every answer's headers back to raw buffers for it
 * (`WrapHandler`, a `Buffer` per name and value) and `request()` parses them again, in an `AsyncResource` of its
 * own; here the interceptors' headers object is the answer's. `opts.cancel` aborts the request at any point (a
 * stream already handed out is destroyed with its reason), and a body destroyed before its end (a limit, a caller
 * gone) aborts the request, so the socket is never left reading for nobody.
 */
export function receive(dispatcher: Dispatcher, opts: Options): Promise<Received> {
  return new Promise((resolve, reject) =>
    dispatchTo(dispatcher, opts, new ReceiveHandler(opts.cancel, { resolve, reject })),
  );
}

/**
 * As {@link receive}, for a whole body read as text within `limits` (`readBoundedText`'s rules: a `Content-Length`
 * over the limit refused before reading, the limit and the budget taken chunk by chunk, strict UTF-8 for a 2xx). An
 * unencoded body (the usual JSON answer) is collected by the dispatch handler itself, without a stream, its events
 * and their ticks; an encoded one goes through a stream and its decoders as {@link receive}'s.
 */
export function receiveText(dispatcher: Dispatcher, opts: Options, limits: ReadLimits): Promise<ReceivedText> {
  return new Promise((resolve, reject) => receiveTextTo(dispatcher, opts, limits, { resolve, reject }));
}

/** {@link receiveText} without a promise of its own: the answer, or the error, goes to `to`, once. */
export function receiveTextTo(
  dispatcher: Dispatcher,
  opts: Options,
  limits: ReadLimits,
  to: Settle<ReceivedText>,
): void {
  dispatchTo(dispatcher, opts, new TextHandler(opts.cancel, limits, to));
}

function dispatchTo<A>(dispatcher: Dispatcher, opts: Options, handler: Answering<A>): void {
  try {
    dispatcher.dispatch(opts, handler);
  } catch (error) {
    // An interceptor that refuses at once (an open circuit) throws here.
    handler.onResponseError(undefined, error as Error);
  }
}

/** What both handlers share: the request's controller and cancellation, and the answer's body as a stream. */
abstract class Answering<A> implements Dispatcher.DispatchHandler, CancelListener {
  protected controller: Dispatcher.DispatchController | undefined;
  protected body: Readable | undefined;
  /** The answer was handed on (or refused): later events only end its body. */
  protected settled = false;
  /** The answer's end (or failure) came: destroying the body no longer aborts anything. */
  protected ended = false;

  constructor(
    protected readonly cancel: Cancellation | undefined,
    protected readonly to: Settle<A>,
  ) {
    cancel?.listen(this);
  }

  abstract onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: ResponseHeaders,
  ): void;

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.cancel?.aborted) controller.abort(this.cancel.reason as Error);
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
      this.to.reject(error);
    } else if (this.body && !this.body.destroyed) this.body.destroy(error);
  }

  /** The request's cancellation aborted ({@link CancelListener}). */
  cancelled(reason: unknown): void {
    if (this.body) {
      if (!this.body.destroyed) this.body.destroy(reason as Error);
    } else this.controller?.abort(reason as Error);
  }

  /** The answer's body as a stream that asks for more as it is read. */
  protected openBody(controller: Dispatcher.DispatchController): Readable {
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
    return body;
  }

  protected detach(): void {
    this.cancel?.release();
  }
}

/** {@link receive}'s handler: the answer as soon as its headers came, its body as a stream. */
class ReceiveHandler extends Answering<Received> {
  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: ResponseHeaders): void {
    // An interim answer (100 Continue, 103 Early Hints) is not the answer.
    if (statusCode < 200 || this.settled) return;
    this.settled = true;
    this.to.resolve({ statusCode, headers, body: this.openBody(controller) });
  }
}

/** {@link receiveText}'s handler: the chunks of an unencoded body kept here, an encoded one read from a stream. */
class TextHandler extends Answering<ReceivedText> {
  private status = 0;
  private headers: ResponseHeaders | undefined;
  /** The unencoded body's chunks so far (undefined while no answer came, or when a stream reads the body). */
  private chunks: Buffer[] | undefined;
  private size = 0;
  /** Bytes taken from the budget, given back once the text is made or the read failed. */
  private taken = 0;

  constructor(
    cancel: Cancellation | undefined,
    private readonly limits: ReadLimits,
    to: Settle<ReceivedText>,
  ) {
    super(cancel, to);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: ResponseHeaders): void {
    // An interim answer (100 Continue, 103 Early Hints) is not the answer.
    if (statusCode < 200 || this.settled || this.chunks) return;
    const { upstream, limit, budget } = this.limits;
    const refused = declaredTooLarge(headers, upstream, limit, statusCode);
    if (refused) return this.fail(controller, refused);
    if (!isEncoded(headers['content-encoding'])) {
      this.status = statusCode;
      this.headers = headers;
      this.chunks = [];
      return;
    }
    // Decoders are streams: the bounded read of body.ts, on a stream of this answer's body.
    this.settled = true;
    const body = this.openBody(controller);
    const to = this.to;
    readBoundedText(body, headers, { upstream, status: statusCode, limit, budget }).then(
      (text) => to.resolve({ statusCode, headers, text }),
      (error: unknown) => to.reject(error instanceof GatewayError ? error : new BodyBrokenOff(error)),
    );
  }

  override onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const chunks = this.chunks;
    if (!chunks) return super.onResponseData(controller, chunk);
    const { upstream, limit, budget } = this.limits;
    this.size += chunk.length;
    if (this.size > limit) return this.fail(controller, tooLarge(upstream, limit, { status: this.status }));
    if (budget) {
      if (!budget.take(chunk.length)) return this.fail(controller, bufferBudgetSpent(upstream, budget, this.status));
      this.taken += chunk.length;
    }
    // Most answers come in one chunk: a list of one, not a push onto `[]` (which reserves 17 slots).
    if (chunks.length === 0) this.chunks = [chunk];
    else chunks.push(chunk);
  }

  override onResponseEnd(): void {
    const chunks = this.chunks;
    if (!chunks) return super.onResponseEnd();
    this.ended = true;
    this.detach();
    this.chunks = undefined;
    this.settled = true;
    let text: string;
    try {
      text = textOf(chunks, this.size, this.status, this.limits.upstream);
    } catch (error) {
      return this.to.reject(error);
    } finally {
      this.giveBack();
    }
    this.to.resolve({ statusCode: this.status, headers: this.headers!, text });
  }

  override onResponseError(controller: Dispatcher.DispatchController | undefined, error: Error): void {
    // The headers came and the body was being kept here: it broke off (unless its caller stopped it).
    const brokenOff = this.chunks !== undefined && !this.cancel?.aborted;
    this.chunks = undefined;
    this.giveBack();
    super.onResponseError(controller, brokenOff ? new BodyBrokenOff(error) : error);
  }

  override cancelled(reason: unknown): void {
    // No stream to destroy while the chunks are kept here: the request itself stops, its error rejects.
    if (this.chunks) this.controller?.abort(reason as Error);
    else super.cancelled(reason);
  }

  /** Refuses the answer (a limit): the caller gets `error`, the request stops. */
  private fail(controller: Dispatcher.DispatchController, error: Error): void {
    this.chunks = undefined;
    this.giveBack();
    this.ended = true;
    this.detach();
    if (!this.settled) {
      this.settled = true;
      this.to.reject(error);
    }
    controller.abort(error);
  }

  private giveBack(): void {
    if (this.taken === 0) return;
    this.limits.budget!.give(this.taken);
    this.taken = 0;
  }
}
