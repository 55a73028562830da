import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/** Close codes the gateway itself uses, next to graphql-ws's own (4400, 4401, 4403, 4408, 4409, 4429, 4500). */
export enum GatewayCloseCode {
  /** The client read so slowly that more than WS_MAX_BUFFERED_BYTES waited unsent (as HTTP 413: too large). */
  OutboundBufferFull = 4413,
}

/**
 * The unsent bytes of one WebSocket connection (`ws.bufferedAmount`), and what the gateway does about them:
 *
 * - above the low watermark (a quarter of the limit, at least the socket's own high-water mark so that a `drain`
 *   always follows) the connection's subscriptions stop pulling their source streams until the socket drained,
 *   so upstream bodies are not read and TCP backpressure reaches the provider;
 * - a connection still above the limit when another message is due is closed with
 *   {@link GatewayCloseCode.OutboundBufferFull} and its operations are aborted (their upstream requests with them).
 *   ws's close timer destroys the socket 30 s later if the client never reads the close frame.
 */
export class OutboundBuffer {
  readonly lowWatermark: number;
  private waiting = new Set<() => void>();
  private over = false;

  constructor(
    private readonly ws: WebSocket,
    socket: Duplex,
    readonly maxBytes: number,
    /** Aborts the connection's operations; called once, when the limit is passed. */
    private readonly onOverflow: (unsent: number) => void,
  ) {
    this.lowWatermark = Math.max(Math.floor(maxBytes / 4), socket.writableHighWaterMark);
    socket.on('drain', () => this.release());
    ws.once('close', () => {
      this.over = true;
      this.release();
    });
  }

  get unsent(): number {
    return this.ws.bufferedAmount;
  }

  /** Undefined while the connection can take more; else resolves once it drained, closed, or `signal` fired. */
  writable(signal: AbortSignal): Promise<void> | undefined {
    if (this.over || signal.aborted || this.unsent <= this.lowWatermark) return undefined;
    return new Promise((resolve) => {
      const done = () => {
        this.waiting.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiting.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Call before queueing a message: past the limit the connection is closed, and true says "do not send". */
  overflowed(): boolean {
    if (this.over) return this.ws.readyState !== this.ws.OPEN;
    const unsent = this.unsent;
    if (unsent <= this.maxBytes) return false;
    this.over = true;
    this.onOverflow(unsent);
    this.ws.close(GatewayCloseCode.OutboundBufferFull, 'Outbound buffer full: the client reads too slowly');
    this.release();
    return true;
  }

  private release(): void {
    for (const done of [...this.waiting]) done();
  }
}

/** `source`, pulled only while `buffer` can take more (see {@link OutboundBuffer.writable}). */
export function pacedBy<T>(source: AsyncIterator<T>, buffer: OutboundBuffer, signal: AbortSignal): AsyncIterableIterator<T> {
  const paced: AsyncIterableIterator<T> = {
    async next() {
      await buffer.writable(signal);
      return source.next();
    },
    // graphql-ws calls return() when the client completes: it must reach the source at once, not wait for room.
    return: (value?: unknown) => (source.return ? source.return(value as never) : Promise.resolve({ value: undefined as never, done: true })),
    throw: (error?: unknown) => (source.throw ? source.throw(error) : Promise.reject(error)),
    [Symbol.asyncIterator]() {
      return paced;
    },
  };
  return paced;
}
