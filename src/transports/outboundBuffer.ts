import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { attachDirect, DIRECT, park, PARK, type DirectConsumer, type DirectSource } from '../execution/eventStream.js';
import type { GatewayMetrics } from '../observability/metrics.js';

/** Close codes the gateway itself uses, next to graphql-ws's own (4400, 4401, 4403, 4408, 4409, 4429, 4500). */
export enum GatewayCloseCode {
  /** The client read nothing for STREAM_STALL_TIMEOUT_MS while messages waited for it (as HTTP 408). */
  Stalled = 4408,
  /** The client read so slowly that more than STREAM_MAX_BUFFERED_BYTES waited unsent (as HTTP 413: too large). */
  OutboundBufferFull = 4413,
}

/**
 * Where pacing starts at the latest. The kernel's socket buffers (megabytes on a fast link) are what keeps a fast
 * client fed; bytes held in the gateway beyond this only add memory per slow client, of which there may be thousands.
 */
export const MAX_LOW_WATERMARK = 256 * 1024;

/** The streaming transports, as metrics and logs name them. */
export type StreamTransport = 'ws' | 'sse' | 'multipart';

/** Why a slow client was closed: `buffer_full` past STREAM_MAX_BUFFERED_BYTES, `stalled` past STREAM_STALL_TIMEOUT_MS. */
export type SlowClientReason = 'buffer_full' | 'stalled';

/** The one connection an {@link OutboundBuffer} watches: a WebSocket, or a streamed HTTP response. */
export interface OutboundSink {
  /** The TCP socket under it: its bytes taken by the kernel tell whether the client reads. */
  socket: Duplex;
  /** Bytes written by the gateway that the kernel has not taken yet. */
  unsent(): number;
  /** Ends the connection in its protocol's way; the client reads nothing more. */
  close(reason: SlowClientReason): void;
  /** Calls `listener` once the connection closed; without it, the sink's owner calls {@link OutboundBuffer.closed}. */
  onClose?(listener: () => void): void;
}

export interface OutboundLimits {
  /** STREAM_MAX_BUFFERED_BYTES */
  maxBufferedBytes: number;
  /** STREAM_STALL_TIMEOUT_MS; 0: never. */
  stallTimeoutMs: number;
}

export interface OutboundObserver {
  transport: StreamTransport;
  metrics: GatewayMetrics;
  /** Called once when the client is closed as too slow, before its operations are aborted (logs it). */
  onSlowClient?(reason: SlowClientReason, unsent: number): void;
}

/**
 * The unsent bytes of one streaming connection (a WebSocket, an SSE or multipart response) and what the gateway does
 * about them, the same on every transport:
 *
 * - above the low watermark (a quarter of the limit, at most {@link MAX_LOW_WATERMARK}, at least the socket's own
 *   high-water mark so that a `drain` always follows) the connection's streams stop pulling their sources ({@link pacedBy}) until it drained, so
 *   upstream bodies are not read and TCP backpressure reaches the provider;
 * - a connection still above the limit when another message is due, or one whose client took no byte for the stall
 *   timeout while bytes waited, is closed (`buffer_full`, `stalled`) and its operations are aborted.
 *
 * Every operation streamed over the connection is {@link track}ed: closing the connection for any reason (the client
 * left, the limits above) aborts all of them, which aborts their upstream requests. That is the one cancellation path.
 */
export class OutboundBuffer {
  readonly lowWatermark: number;
  /** Who waits for it to drain: made on the first wait, as most connections never make one wait. */
  private waiting: Set<() => void> | undefined;
  /**
   * The operations it aborts on close: the first in a slot, any more in a set made for them (a connection mostly
   * streams one operation at a time, and a set keeps its table of 0.14 KB while the connection lives).
   */
  private operation: AbortController | undefined;
  private operations: Set<AbortController> | undefined;
  private isClosed = false;
  /** Most bytes this connection held unsent at once. */
  private peak = 0;
  private stallWatch?: NodeJS.Timeout;
  private lastSent = 0;
  private lastProgressAt = 0;

  constructor(
    private readonly sink: OutboundSink,
    private readonly limits: OutboundLimits,
    private readonly observer: OutboundObserver,
  ) {
    this.lowWatermark = Math.max(
      Math.min(Math.floor(limits.maxBufferedBytes / 4), MAX_LOW_WATERMARK),
      sink.socket.writableHighWaterMark,
    );
    sink.socket.on('drain', this.release);
    sink.onClose?.(() => this.end());
  }

  /**
   * The buffer of a WebSocket connection: closed with 4413 past the limit, 4408 when stalled. The connection's owner
   * calls {@link closed} when the WebSocket closes, from the one close listener it has anyway: a listener, its
   * `once` wrapper and a sink of closures per connection were ≈ 0.5 KB for the connection's whole life.
   */
  static forWebSocket(
    ws: WebSocket,
    socket: Duplex,
    limits: OutboundLimits,
    observer: OutboundObserver,
  ): OutboundBuffer {
    return new OutboundBuffer(new WebSocketSink(ws, socket), limits, observer);
  }

  /**
   * The buffer of a streamed HTTP response (SSE, multipart). Its status went out long ago, so a slow client's
   * connection is cut: a client that does not read would not read a closing part either.
   */
  static forResponse(res: ServerResponse, limits: OutboundLimits, observer: OutboundObserver): OutboundBuffer {
    return new OutboundBuffer(
      {
        socket: res.socket as Socket,
        unsent: () => (res.destroyed ? 0 : res.writableLength),
        close: () => res.destroy(),
        onClose: (listener) => res.once('close', listener),
      },
      limits,
      observer,
    );
  }

  get unsent(): number {
    return this.sink.unsent();
  }

  /** Whether the connection is gone (closed by the client, or by the gateway as too slow). */
  get done(): boolean {
    return this.isClosed;
  }

  /** The connection closed (for a sink without `onClose`, its owner says so): its operations are aborted. */
  closed(): void {
    this.end();
  }

  /** Aborts `controller` when the connection closes, until {@link forget} (at the operation's end). */
  track(controller: AbortController): void {
    if (this.isClosed) controller.abort();
    else if (!this.operation) this.operation = controller;
    else (this.operations ??= new Set()).add(controller);
  }

  forget(controller: AbortController): void {
    if (this.operation === controller) this.operation = undefined;
    else this.operations?.delete(controller);
  }

  /** Undefined while the connection can take more; else resolves once it drained, closed, or `signal` fired. */
  writable(signal: AbortSignal): Promise<void> | undefined {
    if (this.isClosed || signal.aborted) return undefined;
    const unsent = this.unsent;
    if (unsent <= this.lowWatermark) return undefined;
    this.observer.metrics.streamPauses.inc({ transport: this.observer.transport });
    this.watchStall();
    return new Promise((resolve) => {
      const done = () => {
        this.waiting?.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      (this.waiting ??= new Set()).add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * Whether a message may be written now without waiting (what {@link writable} answers at once), without its side
   * effects: for a value taken in its producer's turn (execution/eventStream.ts `DirectConsumer`).
   */
  hasRoom(signal: AbortSignal): boolean {
    return !this.isClosed && !signal.aborted && this.unsent <= this.lowWatermark;
  }

  /** Call before writing a message: past the limit the connection is closed, and true says "do not send". */
  overflowed(): boolean {
    if (this.isClosed) return true;
    const unsent = this.unsent;
    if (unsent > this.peak) {
      this.peak = unsent;
      this.observer.metrics.noteStreamBuffered(this.observer.transport, unsent);
    }
    if (unsent > this.limits.maxBufferedBytes) {
      this.slow('buffer_full', unsent);
      return true;
    }
    // Armed even when nothing waits yet: the message about to be sent may be the one the client never takes.
    this.watchStall();
    return false;
  }

  /**
   * From a message on, checks a few times per stall timeout whether bytes wait and the kernel took none of them: a
   * client that takes none for the whole timeout is closed. The watch stops at the first check that finds nothing
   * waiting, so a client that keeps up costs one timer per check interval at most.
   */
  private watchStall(): void {
    const timeout = this.limits.stallTimeoutMs;
    if (this.stallWatch || !timeout || this.isClosed) return;
    this.lastSent = this.sent();
    this.lastProgressAt = performance.now();
    const every = Math.min(1000, Math.max(10, Math.floor(timeout / 10)));
    this.stallWatch = setInterval(() => {
      const waiting = this.unsent;
      const sent = this.sent();
      if (this.isClosed || waiting === 0) return this.stopWatch();
      if (sent !== this.lastSent) {
        this.lastSent = sent;
        this.lastProgressAt = performance.now();
      } else if (performance.now() - this.lastProgressAt >= timeout) {
        this.slow('stalled', waiting);
      }
    }, every);
    this.stallWatch.unref();
  }

  /** Bytes the kernel has taken from the socket so far. */
  private sent(): number {
    const socket = this.sink.socket as Partial<Socket>;
    return (socket.bytesWritten ?? 0) - (socket.writableLength ?? 0);
  }

  private slow(reason: SlowClientReason, unsent: number): void {
    if (this.isClosed) return;
    this.observer.metrics.streamSlowClientCloses.inc({ transport: this.observer.transport, reason });
    this.observer.onSlowClient?.(reason, unsent);
    this.end();
    this.sink.close(reason);
  }

  private end(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.stopWatch();
    const { operation, operations } = this;
    this.operation = this.operations = undefined;
    operation?.abort();
    for (const controller of operations ?? []) controller.abort();
    this.release();
    // A keep-alive socket outlives its response: each SSE or multipart response on it would leave a listener behind.
    this.sink.socket.off('drain', this.release);
  }

  private stopWatch(): void {
    clearInterval(this.stallWatch);
    this.stallWatch = undefined;
  }

  private readonly release = (): void => {
    if (this.waiting?.size) for (const done of [...this.waiting]) done();
  };
}

/** A WebSocket as an {@link OutboundSink}: methods, not closures per connection. */
class WebSocketSink implements OutboundSink {
  constructor(
    private readonly ws: WebSocket,
    readonly socket: Duplex,
  ) {}

  unsent(): number {
    return this.ws.bufferedAmount;
  }

  close(reason: SlowClientReason): void {
    if (reason === 'stalled')
      this.ws.close(GatewayCloseCode.Stalled, 'Stalled: the client read nothing while messages waited');
    else this.ws.close(GatewayCloseCode.OutboundBufferFull, 'Outbound buffer full: the client reads too slowly');
  }
}

/** `source`, pulled only while `buffer` can take more (see {@link OutboundBuffer.writable}). */
export function pacedBy<T>(
  source: AsyncIterator<T>,
  buffer: OutboundBuffer,
  signal: AbortSignal,
): AsyncIterableIterator<T> {
  return new Paced(source, buffer, signal);
}

/** A class, not an object of closures: every streamed operation holds one for its whole life. */
class Paced<T> implements AsyncIterableIterator<T>, DirectSource<T>, DirectConsumer<T> {
  private direct: DirectConsumer<T> | undefined;

  constructor(
    private readonly source: AsyncIterator<T>,
    private readonly buffer: OutboundBuffer,
    private readonly signal: AbortSignal,
  ) {}

  [DIRECT](consumer: DirectConsumer<T>): void {
    this.direct = consumer;
    attachDirect(this.source, this);
  }

  /** A value taken at once only while the connection has room: else it waits in next() for the drain, as any other. */
  take(value: T): boolean {
    return this.buffer.hasRoom(this.signal) && this.direct!.take(value);
  }

  /** Resting needs room: without it, the consumer's next() waits for the drain. */
  [PARK](): boolean {
    return this.buffer.hasRoom(this.signal) && park(this.source);
  }

  wake(): void {
    this.direct?.wake?.();
  }

  next(): Promise<IteratorResult<T>> {
    const room = this.buffer.writable(this.signal);
    return room ? room.then(() => this.source.next()) : this.source.next();
  }

  // A client's complete calls return(): it must reach the source at once, not wait for room.
  return(value?: unknown): Promise<IteratorResult<T>> {
    return this.source.return
      ? this.source.return(value as never)
      : Promise.resolve({ value: undefined as never, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<T>> {
    return this.source.throw ? this.source.throw(error) : Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
