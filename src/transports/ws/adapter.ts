import {
  CloseCode,
  handleProtocols,
  makeServer,
  MessageType,
  stringifyMessage,
  validateMessage,
  type Context,
  type ServerOptions,
  type SubscribePayload,
} from 'graphql-ws';
import type { FormattedExecutionResult, GraphQLFormattedError } from 'graphql';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { GatewayMetrics } from '../../observability/metrics.js';
import {
  OutboundBuffer,
  type OutboundLimits,
  type OutboundObserver,
  type SlowClientReason,
  type StreamTransport,
} from '../outboundBuffer.js';

/*
 * graphql-ws (protocol `graphql-transport-ws`, graphql-ws's PROTOCOL.md) on `ws` sockets through the library's server
 * core, `makeServer(options).opened(socket, extra)`, as graphql-ws's own `use/ws.ts` does, with the wire the gateway
 * needs: the adapter owns `send` (paced and capped by the connection's OutboundBuffer, coalesced per tick, nothing once
 * the socket is not open), reads a client's `complete` before the core does, logs a socket's error as one structured
 * line, and hands the core each connection's state as its `extra`.
 *
 * The core keeps the connection (`connection_init`, ping and pong, a client's `complete`, the close, every invalid
 * message); the adapter its timers, which the core would keep for a connection's whole life: the wait for
 * `connection_init` (4408, dropped once it came) and the keep-alive (one sweep over all sockets); a valid `subscribe` the adapter runs itself (`operate`), with the core's checks (4401 before
 * the ack, 4409 for an id in use) and its record of operations (`ctx.subscriptions`, where the core returns one on the
 * client's `complete` and on close). The core's own handling of `subscribe` awaits the whole operation in an async
 * function with a `for await` over its results: for a subscription that is a suspended frame, its registers, the
 * message and three closures (≈ 1 KB) for the subscription's whole life, ten thousand of them on a dashboard fleet.
 * Here an operation's results are pushed to its connection as they come (`WsConnection.next`).
 */

/** Room for a tick's shared frames: a dashboard connection's 50 subscriptions of one change fit in one or two. */
const FRAMES_BYTES = 16 * 1024;

/** A result's JSON shorter than this is framed by the adapter: within Buffer.allocUnsafe's pooled sizes. */
const SMALL_FRAME = Buffer.poolSize >>> 2;

/** What a connection without running operations answers for them. */
const NO_OPERATIONS: ReadonlyMap<string, never> = new Map<string, never>();

/**
 * One graphql-ws connection: its socket, unsent bytes and operations; graphql-ws's hooks get it as `ctx.extra`. It is
 * its outbound buffer's observer itself (a slow client is logged with its id): an observer object and its closure per
 * connection would live as long.
 */
export class WsConnection<Op extends WsOperationRecord> implements OutboundObserver {
  /**
   * Operations by the client's id, from admission to their end: a client's `complete` aborts one at once. Made for
   * the first and dropped with the last, as `admittingIds`: a connection waiting in line holds none, and one between
   * streams none (an empty Map keeps its table).
   */
  private running: Map<string, Op> | undefined;
  /**
   * Operations still being admitted (a chat stream waits there for its provider's connection), by the client's id:
   * a client's `complete` or the socket's close ends that wait at once. Made for the first and dropped with the last:
   * a connection spends most of its life with none, and an empty Map keeps its table (≈ 0.2 KB).
   */
  private admittingIds: Map<string, AbortController> | undefined;
  /** Its unsent bytes: pauses its subscriptions' sources, closes it when too slow; closing aborts its operations. */
  readonly outbound: OutboundBuffer;
  /** graphql-ws's state of the connection (its context), from its `connection_init` on. */
  protocol: Context<Record<string, unknown> | undefined, unknown> | undefined;
  /** Closes the socket unless `connection_init` comes first; dropped when it does (see `serve`). */
  initWait: NodeJS.Timeout | undefined;
  private corked = false;
  /** This tick's shared frames (sendShared), and how many of its bytes are written. */
  private frames: Buffer | undefined;
  private framed = 0;
  readonly metrics: GatewayMetrics;
  private readonly log: Logger;

  constructor(
    /** The upgrade request's id (`x-request-id`), in its operations' request ids and its log lines. */
    readonly id: string,
    readonly socket: WebSocket,
    /** The upgrade request, until `connection_init` has read what it needs: then dropped, as a connection lives long. */
    public request: IncomingMessage | undefined,
    /** The TCP socket under it. */
    private readonly tcp: Duplex,
    wire: { limits: OutboundLimits; metrics: GatewayMetrics; log: Logger },
  ) {
    this.metrics = wire.metrics;
    this.log = wire.log;
    this.outbound = OutboundBuffer.forWebSocket(socket, tcp, wire.limits, this);
  }

  /** Its outbound buffer's transport, as metrics name it. */
  get transport(): StreamTransport {
    return 'ws';
  }

  /** Its outbound buffer closes it as too slow. */
  onSlowClient(reason: SlowClientReason, unsent: number): void {
    this.log.warn(
      { connection: this.id, reason, unsent, operations: this.operations.size },
      'closing a WebSocket client that reads too slowly (STREAM_MAX_BUFFERED_BYTES, STREAM_STALL_TIMEOUT_MS)',
    );
  }

  /**
   * Sends one message; nothing once the socket is not open or holds more than STREAM_MAX_BUFFERED_BYTES (which closes
   * it). Coalesced per tick: a shared change reaches every subscription of a connection in the same tick (50 on a
   * dashboard's connection), so the TCP socket stays corked until the tick ends and their messages leave in one
   * vectored write. ws corks and uncorks around each frame; the outer cork holds.
   */
  send(text: string): void {
    if (!this.open()) return;
    // Shared frames written before it go first.
    this.writeFrames();
    this.corkForTick();
    this.socket.send(text);
  }

  /**
   * Sends a shared result's `next` message, `prefix` + `json` without its closing brace + `tail`, as a text frame
   * written into this tick's frames: bytes outside the JS heap, one write per connection per tick, and no string, buffer
   * or write request per subscriber that outlives its turn in the fan-out (ten thousand subscribers take theirs in one
   * sweep, and what each left for the tick's end would survive the sweep's scavenges). The same bytes as ws's frame of
   * the joined text: the server's frames are not masked, and without a negotiated extension not compressed. `room` 0
   * (one operation's own `next`, a chat token) sizes a new buffer to this frame, from Node's pool: a chat stream's
   * tick holds one frame, and 16 KB of memory outside the heap per token would be its own garbage.
   */
  sendShared(prefix: string, json: string, tail: string, room = FRAMES_BYTES): void {
    if (!this.open()) return;
    if (this.socket.extensions) return this.send(prefix + json.slice(0, -1) + tail);
    const length = Buffer.byteLength(prefix) + Buffer.byteLength(json) - 1 + Buffer.byteLength(tail);
    const header = length < 126 ? 2 : length < 65536 ? 4 : 10;
    let frames = this.frames;
    if (!frames || this.framed + header + length > frames.length) {
      this.writeFrames();
      frames = this.frames =
        room === 0 ? Buffer.allocUnsafe(header + length) : Buffer.allocUnsafeSlow(Math.max(room, header + length));
    }
    let at = this.framed;
    // FIN and the text opcode, then the payload length (RFC 6455 section 5.2).
    frames[at] = 0x81;
    if (header === 2) frames[at + 1] = length;
    else if (header === 4) {
      frames[at + 1] = 126;
      frames.writeUInt16BE(length, at + 2);
    } else {
      frames[at + 1] = 127;
      frames.writeUInt32BE(0, at + 2);
      frames.writeUInt32BE(length, at + 6);
    }
    at += header;
    at += frames.write(prefix, at);
    // The shared JSON's closing brace is overwritten by the tail.
    at += frames.write(json, at) - 1;
    at += frames.write(tail, at);
    this.framed = at;
    this.corkForTick();
  }

  /** Its running operations by the client's id. */
  get operations(): ReadonlyMap<string, Op> {
    return this.running ?? NO_OPERATIONS;
  }

  /** Its operations, running or being admitted: what GATEWAY_WS_MAX_OPERATIONS counts. */
  get operationCount(): number {
    return (this.running?.size ?? 0) + (this.admittingIds?.size ?? 0);
  }

  /** Operation `id` is being admitted: `controller` ends its wait (the client's `complete`, the close). */
  admitting(id: string, controller: AbortController): void {
    (this.admittingIds ??= new Map()).set(id, controller);
  }

  /** Operation `id`'s admission ended (admitted, refused or failed). */
  admitted(id: string): void {
    this.admittingIds?.delete(id);
    if (this.admittingIds?.size === 0) this.admittingIds = undefined;
  }

  /** A client's `complete` for `id`: aborts it, running or being admitted. */
  abort(id: string): void {
    (this.running?.get(id)?.controller ?? this.admittingIds?.get(id))?.abort();
  }

  /**
   * The socket closed: its outbound buffer aborts the operations it tracks, and every wait in admission ends (running
   * operations end through graphql-ws's close).
   */
  closed(): void {
    this.outbound.closed();
    for (const controller of this.admittingIds?.values() ?? []) controller.abort();
  }

  private open(): boolean {
    return this.socket.readyState === this.socket.OPEN && !this.outbound.overflowed();
  }

  private corkForTick(): void {
    if (this.corked) return;
    this.corked = true;
    this.tcp.cork();
    process.nextTick(this.uncork);
  }

  /** This tick's shared frames so far, written (nothing once the socket closed: no data after a close frame). */
  private writeFrames(): void {
    const frames = this.frames;
    if (!frames) return;
    const framed = this.framed;
    this.frames = undefined;
    this.framed = 0;
    if (this.socket.readyState === this.socket.OPEN) this.tcp.write(frames.subarray(0, framed));
  }

  /**
   * `op` runs as the client's operation `id`: closing the connection aborts it, and graphql-ws's core returns it on
   * the client's `complete` and on close.
   */
  started(id: string, op: Op): void {
    (this.running ??= new Map()).set(id, op);
    this.outbound.track(op.controller);
    if (this.active(id)) (this.protocol!.subscriptions as Record<string, unknown>)[id] = op;
  }

  /** Whether operation `id` is still the client's: neither its `complete` came nor its end went out. */
  active(id: string): boolean {
    return this.protocol !== undefined && id in this.protocol.subscriptions;
  }

  /**
   * A `next` message: `prefix` is `{"id":…,"type":"next","payload":`, as JSON.stringify writes the message. Written
   * into this tick's frames as a shared one is (the result's JSON, its closing brace, the message's): a chat token's
   * result text went through a joined string, its flat copy, ws's Buffer of it, its frame list and a write request
   * (≈ 1 KB per token); this way it is the result's JSON and its bytes in a slice of Node's buffer pool. A larger
   * result is its own buffer either way and goes through ws as before (its bytes are counted against
   * STREAM_MAX_BUFFERED_BYTES as it is sent, which the backpressure tests' 16 KiB tokens rely on).
   */
  next(prefix: string, result: FormattedExecutionResult): void {
    const json = JSON.stringify(result);
    if (json.length < SMALL_FRAME) this.sendShared(prefix, json, '}}', 0);
    else this.send(`${prefix}${json}}`);
  }

  /**
   * Closes the socket after this tick's frames: a `next` written just before a close goes out ahead of the close
   * frame, as it did through ws's own send (frames written after the close are dropped: see writeFrames).
   */
  close(code?: number, reason?: string): void {
    this.writeFrames();
    this.socket.close(code, reason);
  }

  /** Operation `id` has no more results: `complete`, unless the client completed it first. */
  complete(id: string): void {
    if (!this.settle(id)) return;
    this.send(stringifyMessage({ id, type: MessageType.Complete }));
  }

  /** Operation `id` failed before it began: its `error` message, unless the client completed it first. */
  error(id: string, errors: readonly GraphQLFormattedError[]): void {
    if (!this.settle(id)) return;
    this.send(stringifyMessage({ id, type: MessageType.Error, payload: errors }));
  }

  /** Operation `id` leaves graphql-ws's record; false when it had left already. */
  private settle(id: string): boolean {
    if (!this.active(id)) return false;
    delete (this.protocol!.subscriptions as Record<string, unknown>)[id];
    return true;
  }

  /** Operation `id` ended: returns it the first time, undefined after (whichever of complete and close comes first). */
  ended(id: string): Op | undefined {
    const op = this.running?.get(id);
    if (!op) return undefined;
    this.running!.delete(id);
    if (this.running!.size === 0) this.running = undefined;
    this.outbound.forget(op.controller);
    return op;
  }

  /**
   * The tick ended: its frames go out, and the TCP socket is uncorked. A function per connection: `process.nextTick`
   * with an argument would make an array per call, per token of a chat stream.
   */
  private readonly uncork = (): void => {
    this.writeFrames();
    this.corked = false;
    this.tcp.uncork();
  };
}

/**
 * What the connection keeps of an operation: its cancellation, and the `return()` by which graphql-ws's core ends it
 * (the client's `complete`, the close), which makes it an async iterable to the core.
 */
export interface WsOperationRecord {
  readonly controller: AbortController;
  return(): Promise<IteratorResult<unknown>>;
  [Symbol.asyncIterator](): AsyncIterator<unknown>;
}

export interface GraphqlWsAdapterOptions<C extends WsConnection<WsOperationRecord>> {
  /** graphql-ws's options and hooks for the connection; `ctx.extra` is the connection. Operations are `operate`'s. */
  core: Omit<
    ServerOptions<Record<string, unknown> | undefined, C>,
    'schema' | 'execute' | 'subscribe' | 'onSubscribe' | 'onOperation' | 'onNext' | 'onError' | 'onComplete'
  >;
  /**
   * Runs the client's operation `id` (a valid `subscribe` message, its id new, on an acknowledged connection): it
   * sends its results through the connection (`next`, `complete`, `error`) and registers it once it runs (`started`).
   * A rejection closes the socket with 4500, as the core does for a failing hook; undefined: it is done already.
   */
  operate(conn: C, id: string, payload: SubscribePayload): Promise<void> | undefined;
  /** A larger message closes the socket with 1009 (Message Too Big) before any parsing. */
  maxPayload: number;
  /** A ping this often; a socket without a pong by the next one is terminated (0: none). */
  keepAliveMs: number;
  log: Logger;
  /** Takes secrets out of a text bound for the log (an unexpected error's stack). */
  redact: (text: string) => string;
}

export interface GraphqlWsAdapter<C> {
  /**
   * Completes a WebSocket upgrade and serves graphql-ws on it; `open` makes its connection, or closes the socket
   * itself (a refused connection) and returns undefined.
   */
  upgrade(request: IncomingMessage, tcp: Duplex, head: Buffer, open: (socket: WebSocket) => C | undefined): void;
  /** Closes every socket with 1001 (Going Away). */
  dispose(): Promise<void>;
}

/** graphql-ws's server core on `ws`: the project's `use/ws.ts`. */
export function graphqlWsAdapter<C extends WsConnection<WsOperationRecord>>(
  options: GraphqlWsAdapterOptions<C>,
): GraphqlWsAdapter<C> {
  const { connectionInitWaitTimeout: initWaitMs = 3_000, ...coreOptions } = options.core;
  const core = makeServer<Record<string, unknown> | undefined, C>({
    ...coreOptions,
    // The adapter's own (`serve`): the core's timer and its closure stay with the connection for its whole life.
    connectionInitWaitTimeout: 0,
    onConnect(ctx) {
      clearTimeout(ctx.extra.initWait);
      ctx.extra.initWait = undefined;
      // Its record of operations and whether it acknowledged the connection: what `operate` checks and keeps.
      ctx.extra.protocol = ctx as Context<Record<string, unknown> | undefined, unknown>;
      return options.core.onConnect?.(ctx);
    },
  });
  const { log, keepAliveMs } = options;
  const failed = (conn: C, error: unknown, msg: string) =>
    log.error({ connection: conn.id, err: options.redact(String((error as Error)?.stack ?? error)) }, msg);
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload, handleProtocols });

  /*
   * The keep-alive, one sweep over every socket (`wss.clients`) rather than an interval, a pong timer and their
   * closures per connection (≈ 0.3 KB each, for a connection's whole life): a sweep pings each open socket, and the
   * next one terminates a socket that has not answered since, keepAliveMs after its ping, as before.
   */
  const unanswered = new Set<WebSocket>();
  const keepAlive =
    keepAliveMs > 0 && Number.isFinite(keepAliveMs)
      ? setInterval(() => {
          for (const socket of wss.clients) {
            if (socket.readyState !== socket.OPEN) continue;
            if (unanswered.has(socket)) socket.terminate();
            else {
              unanswered.add(socket);
              socket.ping();
            }
          }
        }, keepAliveMs).unref()
      : undefined;
  function answered(this: WebSocket): void {
    unanswered.delete(this);
  }

  /**
   * One connection served: the socket graphql-ws's core is given (its `send`, `close` and `onMessage`), and what the
   * `ws` socket's listeners reach through it. Methods and one listener function per event for every connection (`this`
   * is the socket, `served` finds its connection), not a dozen closures and their context per connection for its whole
   * life (≈ 0.6 KB).
   */
  class Served {
    readonly protocol: string;
    /** The core's handler of a message other than a valid `subscribe`. */
    private receive: ((data: string) => Promise<void>) | undefined;
    /** The core's handling of the close. */
    readonly closed: (code?: number, reason?: string) => Promise<void>;

    constructor(readonly conn: C) {
      this.protocol = conn.socket.protocol;
      this.closed = core.opened(this, conn);
    }

    send(text: string): void {
      this.conn.send(text);
    }

    close(code?: number, reason?: string): void {
      this.conn.close(code, reason);
    }

    onMessage(receive: (data: string) => Promise<void>): void {
      this.receive = receive;
    }

    message(text: string): void {
      const { conn } = this;
      const message = parsedMessage(text);
      // A client's complete aborts its operation's upstream work at once: the core then awaits the iterator's
      // return(), which for a generator blocked on an upstream read would wait (graphql-ws issue 653 on GitHub), and a
      // query has no iterator to return.
      const completed = completedId(message);
      if (completed !== undefined) conn.abort(completed);
      const subscribe = subscribeMessage(message);
      if (subscribe) return this.operate(subscribe.id, subscribe.payload);
      // graphql-ws validates a parsed message as it would the text (its parseMessage takes either): parsed once here,
      // and the text is not kept by the handling of a subscribe message for the subscription's whole life.
      this.receive?.(message as string).catch((error: unknown) => this.failed(error));
    }

    /** What the core does with a valid `subscribe` before it runs the operation, then `options.operate`. */
    private operate(id: string, payload: SubscribePayload): void {
      const { conn } = this;
      const ctx = conn.protocol;
      if (!ctx?.acknowledged) return conn.close(CloseCode.Unauthorized, 'Unauthorized');
      if (id in ctx.subscriptions)
        return conn.close(CloseCode.SubscriberAlreadyExists, `Subscriber for ${id} already exists`);
      // Reserved while it is admitted: a client's `complete` meanwhile takes the reservation back.
      (ctx.subscriptions as Record<string, null>)[id] = null;
      options.operate(conn, id, payload)?.catch((error: unknown) => this.failed(error));
    }

    private failed(error: unknown): void {
      failed(this.conn, error, 'graphql-ws message handling failed');
      this.conn.close(CloseCode.InternalServerError, 'Internal server error');
    }
  }

  const served = new WeakMap<WebSocket, Served>();

  function onMessage(this: WebSocket, data: RawData): void {
    served.get(this)?.message(String(data));
  }

  // A socket's error is a client breaking the protocol (a message over GATEWAY_WS_MAX_MESSAGE_BYTES, an invalid
  // frame), which ws has already answered by closing: one structured line, not graphql-ws's console.error and stack.
  function onError(this: WebSocket, error: Error & { code?: string }): void {
    log.warn(
      { connection: served.get(this)?.conn.id, code: error.code, error: error.message },
      'WebSocket connection closed on a protocol error',
    );
    if (this.readyState === this.OPEN) this.close(1011, 'Internal server error');
  }

  function onClose(this: WebSocket, code: number, reason: Buffer): void {
    unanswered.delete(this);
    const connection = served.get(this);
    if (!connection) return;
    served.delete(this);
    const { conn } = connection;
    clearTimeout(conn.initWait);
    conn.closed();
    connection
      .closed(code, String(reason))
      .catch((error: unknown) => failed(conn, error, 'graphql-ws close handling failed'));
  }

  function serve(conn: C): void {
    const { socket } = conn;
    served.set(socket, new Served(conn));
    // graphql-ws's connection_init wait, as the core words it: a timer only until connection_init (onConnect drops it).
    if (initWaitMs > 0 && Number.isFinite(initWaitMs) && socket.readyState === socket.OPEN)
      conn.initWait = setTimeout(closeUninitialised, initWaitMs, conn);
    socket.on('message', onMessage);
    socket.on('error', onError);
    socket.on('pong', answered);
    // ws emits it once.
    socket.on('close', onClose);
  }

  return {
    upgrade(request, tcp, head, open) {
      wss.handleUpgrade(request, tcp, head, (socket) => {
        const conn = open(socket);
        if (conn) serve(conn);
      });
    },
    async dispose() {
      clearInterval(keepAlive);
      for (const socket of wss.clients) {
        const conn = served.get(socket)?.conn;
        if (conn) conn.close(1001, 'Going away');
        else socket.close(1001, 'Going away');
      }
      await new Promise<void>((resolve, reject) => wss.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** A connection whose client sent no `connection_init` in time: closed with 4408, graphql-ws's words. */
function closeUninitialised(conn: WsConnection<WsOperationRecord>): void {
  if (!conn.protocol) conn.socket.close(CloseCode.ConnectionInitialisationTimeout, 'Connection initialisation timeout');
}

/**
 * A client's message parsed, or its text when it is not a JSON object (graphql-ws then parses it again and closes the
 * socket with 4400): a JSON string is never handed on as text to be decoded a second time.
 */
export function parsedMessage(text: string): unknown {
  try {
    const message = JSON.parse(text) as unknown;
    return typeof message === 'object' && message !== null ? message : text;
  } catch {
    return text;
  }
}

/** A client's `subscribe` message when graphql-ws finds it valid; any other message, or an invalid one, is the core's. */
export function subscribeMessage(message: unknown): { id: string; payload: SubscribePayload } | undefined {
  if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== MessageType.Subscribe)
    return undefined;
  try {
    return validateMessage(message) as { id: string; payload: SubscribePayload };
  } catch {
    // The core closes the socket with 4400 (Invalid message received).
    return undefined;
  }
}

/** The id of a client's `complete` message, or undefined for any other message (graphql-ws validates them all). */
export function completedId(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { type, id } = message as { type?: unknown; id?: unknown };
  return type === 'complete' && typeof id === 'string' ? id : undefined;
}
