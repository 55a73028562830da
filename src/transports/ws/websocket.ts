import {
  type ExecutionResult,
  type GraphQLError,
  type FormattedExecutionResult,
  type GraphQLFormattedError,
} from 'graphql';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { TraceCarrier } from '../../observability/tracing.js';
import { ErrorCode, GatewayError } from '../../errors/codes.js';
import {
  type Answer,
  type ExecuteOptions,
  type OperationPipeline,
  type OperationStream,
  type SharedAnswer,
  type StreamConsumer,
} from '../../pipeline/index.js';
import type { Caller, ClientIdentity } from '../../pipeline/operation.js';
import type { ClientResolver } from '../clientIdentity.js';
import type { HostOriginCheck } from '../hostOrigin.js';
import { requestIdFrom } from '../../context/request.js';
import { OperationController } from '../../context/operationController.js';
import type { GatewayServices } from '../../context/services.js';
import { pacedBy } from '../outboundBuffer.js';
import { graphqlWsAdapter, WsConnection, type WsOperationRecord } from './adapter.js';
import { sharedNextTail } from './sharedNext.js';
import { sharedResultJson } from '../../execution/sharedEvents.js';

/**
 * Longest operation id a client may choose: ids are echoed in every message and written to logs, so a longer one
 * closes the connection with 4400, as graphql-ws does for any invalid message. Clients use UUIDs (36 characters).
 */
export const MAX_OPERATION_ID_LENGTH = 128;

/**
 * An operation run over graphql-ws, in one object for its whole life (ten thousand of them on a live-health dashboard
 * fleet): its cancellation (a client's complete, the connection's close), the entry's options (pacing by the
 * connection, shared results sent by it), the consumer its results are pushed to, and what graphql-ws's core returns
 * on the client's `complete` or the close. Methods, not closures per operation.
 */
class WsOperation implements ExecuteOptions, StreamConsumer, WsOperationRecord {
  /** Its signal is made when something reads it (at its start, the pacing): none while it waits in admission. */
  readonly controller = new OperationController();

  // The entry's options that are the same for every operation: on the prototype, not three fields in each.
  get stream(): true {
    return true;
  }

  /** The connection ends it once its `complete` is written. */
  get endedByReturn(): true {
    return true;
  }

  /** Its last result, `{errors}`: graphql-ws has no message for a failure after an operation began. */
  get failureAsResult(): true {
    return true;
  }

  /** Its results, once admitted. */
  results: OperationStream | undefined;

  constructor(
    private readonly conn: GatewayConnection,
    readonly id: string,
    /** `{"id":…,"type":"next","payload":`, the start of each of its `next` messages. */
    private readonly prefix: string,
    private readonly startedCount: { inc(): void },
  ) {}

  subscriptionStarted(): void {
    this.startedCount.inc();
  }

  pace<T>(source: AsyncIterator<T>): AsyncIterator<T> {
    return pacedBy(source, this.conn.outbound, this.controller.signal);
  }

  /** A result many subscribers share goes out as one text serialised once (sharedNext.ts), through the connection. */
  shared(result: ExecutionResult, answer: SharedAnswer): boolean {
    const json = sharedResultJson(result);
    if (json === undefined) return false;
    if (!this.controller.aborted)
      this.conn.sendShared(this.prefix, json, sharedNextTail(json, answer.extensions(result)));
    return true;
  }

  next(result: FormattedExecutionResult): void {
    this.conn.next(this.prefix, result);
  }

  /** Its results are over: `complete` goes out (unless the client completed it), then it finishes. */
  complete(): void {
    this.conn.complete(this.id);
    void this.return();
  }

  /** It ends (the client's `complete`, the close, its own end), once: its stream finishes it in the pipeline. */
  return(): Promise<IteratorResult<unknown>> {
    if (this.conn.ended(this.id) === this) void this.results?.return();
    return Promise.resolve(DONE);
  }

  /** graphql-ws's core returns what is an async iterable; it never iterates it. */
  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    return NO_RESULTS;
  }
}

const DONE: IteratorResult<unknown> = { value: undefined, done: true };
const NO_RESULTS: AsyncIterator<unknown> = { next: () => Promise.resolve(DONE) };

class GatewayConnection extends WsConnection<WsOperation> {
  authorization?: string;
  /**
   * Who the connection's client is (its key from the upgrade request's `x-api-key`, or `connectionParams`, since
   * browsers cannot set WebSocket headers): a router's connection carries many clients' operations, each naming its own.
   */
  client: ClientIdentity;
  /** W3C trace context from the upgrade request's headers or `connectionParams`; an operation's `extensions` win. */
  trace: TraceCarrier;

  constructor(
    socket: WebSocket,
    request: IncomingMessage,
    tcp: Duplex,
    client: ClientIdentity,
    services: GatewayServices,
  ) {
    super(requestIdFrom(request.headers['x-request-id']), socket, request, tcp, {
      limits: services.config.streams,
      metrics: services.metrics,
      log: services.log,
    });
    this.authorization = request.headers.authorization;
    this.client = client;
    const { traceparent, tracestate } = request.headers;
    this.trace = traceparent === undefined && tracestate === undefined ? NO_TRACE : { traceparent, tracestate };
  }
}

/** The trace context of an upgrade request without one, shared (read only): most connections have none. */
const NO_TRACE: TraceCarrier = Object.freeze({ traceparent: undefined, tracestate: undefined });

/** graphql-ws (protocol `graphql-transport-ws`) on the HTTP server's `path`, sharing the port with Apollo. */
export function attachWebSocket(options: {
  server: Server;
  services: GatewayServices;
  path: string;
  /** Limits, persisted operations, budget, logging: the same rules as every other transport; the connection caps (4429). */
  pipeline: OperationPipeline;
  /** ALLOWED_HOSTS and ALLOWED_ORIGINS: an upgrade they refuse is answered 403. */
  hostOrigin: HostOriginCheck;
  /** Who each connection's and operation's client is (TRUSTED_PROXIES, TRUSTED_ROUTER_KEYS). */
  clients: ClientResolver;
}): {
  dispose(): Promise<void>;
} {
  const { services, pipeline, clients } = options;
  const { websocket: wsLimits } = services.config;
  /**
   * A cap's refusal (RATE_LIMITED) as the operation's one result, `next` then `complete`, as graphql-js reports a
   * subscription whose source fails: a router forwards a result's errors to its client, while an `error` message
   * reaches Hive Gateway's clients as `Unexpected error.`. Other refusals stay `error` messages.
   */
  const refused = (conn: GatewayConnection, id: string, errors: readonly GraphQLFormattedError[]) => {
    if (!conn.active(id)) return;
    conn.next(nextPrefix(id), { errors });
    conn.complete(id);
  };

  /** An admitted operation's answer: its refusal sent, or its stream started (a failure closes the socket with 4500). */
  const begin = (conn: GatewayConnection, operation: WsOperation, answer: Answer) => {
    const { id } = operation;
    if (answer.kind === 'refused') {
      if (answer.errors.some((e) => e.extensions?.code === ErrorCode.RateLimited))
        return refused(conn, id, answer.errors);
      return conn.error(id, answer.errors);
    }
    if (answer.kind !== 'stream') throw new Error('a stream was asked for');
    // The socket closed, or the client completed the operation, while it was being admitted: nothing will end it.
    if (conn.socket.readyState !== conn.socket.OPEN || !conn.active(id)) {
      void answer.results.return();
      return;
    }
    operation.results = answer.results;
    conn.started(id, operation);
    answer.results.consume(operation);
  };

  /** The operation ended (complete or close, whichever first): its stream ends it in the pipeline, once. */
  const finish = (conn: GatewayConnection, id: string) => void conn.ended(id)?.results?.return();

  const adapter = graphqlWsAdapter<GatewayConnection>({
    maxPayload: wsLimits.maxMessageBytes,
    keepAliveMs: wsLimits.keepAliveMs,
    log: services.log,
    redact: services.redact,
    // Not an async function: a stream waiting in its provider's line holds one reaction on the entry's answer, not a
    // suspended frame with its registers and the subscribe message.
    operate(conn, id, payload) {
      if (id.length > MAX_OPERATION_ID_LENGTH) {
        // Nothing is sent on a closing socket, so the id is neither echoed nor logged.
        conn.close(4400, `Operation id longer than ${MAX_OPERATION_ID_LENGTH} characters`);
        return undefined;
      }
      // A browser's connection is capped; a router's multiplexes all its subscribers, each capped as its own client.
      if (!conn.client.router && conn.operationCount >= wsLimits.maxOperations) {
        const cap = pipeline.capRefusal({
          limit: 'GATEWAY_WS_MAX_OPERATIONS',
          max: wsLimits.maxOperations,
          what: 'concurrent operations',
          holder: 'one connection',
        });
        refused(conn, id, pipeline.format([cap]));
        return undefined;
      }
      const extensions = (payload.extensions ?? {}) as TraceCarrier;
      const operation = new WsOperation(conn, id, nextPrefix(id), services.metrics.subscriptionsStarted);
      // Admission may wait (a quota read, a chat stream's turn for its provider's connection): counted against the
      // per-connection limit, and ended by the client's complete or the socket's close.
      conn.admitting(id, operation.controller);
      const client = clients.ofOperation(conn.client, payload.extensions);
      // Every field in one literal: one shape for all callers (a spread and later fields gave each its own hidden
      // class on Node 20), kept by the operation's context for a subscription's whole life.
      const caller: Caller = {
        requestId: `${conn.id}:${id}`,
        transport: 'ws',
        authorization: conn.authorization,
        apiKey: client.apiKey,
        remoteAddress: client.remoteAddress,
        subject: client.subject,
        router: client.router,
        trace: typeof extensions.traceparent === 'string' ? extensions : conn.trace,
        // connection_init checked its key.
        authenticated: true,
      };
      const failed = (error: unknown) => {
        // This operation's error, not the connection's (4500 would end its other operations).
        conn.error(id, pipeline.format([internalError(error, services)]));
        conn.admitted(id);
      };
      let answered: Promise<Answer>;
      try {
        answered = pipeline.execute(payload, caller, operation);
      } catch (error) {
        // A rule that throws before the entry's first await throws here, not in a rejected promise.
        failed(error);
        return undefined;
      }
      return answered.then((answer) => {
        conn.admitted(id);
        begin(conn, operation, answer);
      }, failed);
    },
    core: {
      connectionInitWaitTimeout: wsLimits.connectionInitTimeoutMs,
      onConnect(ctx) {
        const conn = ctx.extra;
        const params = (ctx.connectionParams ?? {}) as Record<string, unknown>;
        const headers = (params.headers ?? {}) as Record<string, unknown>;
        const auth = params.Authorization ?? params.authorization ?? headers.Authorization ?? headers.authorization;
        if (typeof auth === 'string' && auth) conn.authorization = auth;
        const key = params['x-api-key'] ?? params.apiKey ?? headers['x-api-key'];
        const wasRouter = conn.client.router;
        // graphql-ws takes one connection_init per connection: the upgrade request's last use (≈ 1.5 KB of headers).
        const request = conn.request!;
        conn.request = undefined;
        conn.client = clients.ofConnection(request, params, typeof key === 'string' ? key : conn.client.apiKey);
        // A router's key in connectionParams: the upgrade counted its socket against its address, a router's is no one's.
        if (conn.client.router && !wasRouter && pipeline.authenticate(conn.client.apiKey) === undefined)
          pipeline.routerConnection(request.socket);
        if (typeof params.traceparent === 'string')
          conn.trace = { traceparent: params.traceparent, tracestate: params.tracestate };
        // false closes the socket with 4403 Forbidden.
        return pipeline.authenticate(conn.client.apiKey) === undefined;
      },
      onClose(ctx) {
        for (const id of [...ctx.extra.operations.keys()]) finish(ctx.extra, id);
      },
    },
  });

  options.server.on('upgrade', (req, socket, head) => {
    if ((req.url ?? '').split('?')[0] !== options.path) {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    // Before the upgrade: a page that reached the gateway through a rebound name, or any cross-site page (browsers
    // send no CORS preflight for a WebSocket), gets no socket.
    const misdirected = options.hostOrigin.refusal(req.headers, 'websocket');
    if (misdirected) {
      options.hostOrigin.logRefusal(misdirected, {
        path: options.path,
        origin: req.headers.origin,
        host: req.headers.host,
      });
      const body = JSON.stringify({ errors: pipeline.format([misdirected]) });
      socket.end(
        `HTTP/1.1 403 Forbidden\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    const client = clients.of(req);
    const refusal = pipeline.connectionRefusal(req, client, clients.connectionShare(req, client), socket);
    // Across replicas (REDIS_URL) the upgrade waits for the shared count.
    if (refusal instanceof Promise)
      void refusal.then((refused) => !socket.destroyed && upgrade(req, socket, head, client, refused));
    else upgrade(req, socket, head, client, refusal);
  });

  function upgrade(
    req: IncomingMessage,
    tcp: Duplex,
    head: Buffer,
    client: ClientIdentity,
    refused: GatewayError | undefined,
  ): void {
    adapter.upgrade(req, tcp, head, (socket) => {
      if (!refused) return new GatewayConnection(socket, req, tcp, client, services);
      socket.close(4429, `Rate limited: ${String(refused.extensions.limit)}`);
      return undefined;
    });
  }

  return {
    // Every socket closed with 1001 (Going Away).
    dispose: () => adapter.dispose(),
  };
}

/** An unexpected failure as an operation's error: logged here with its stack, its text masked in production by the formatter. */
function internalError(error: unknown, services: GatewayServices): GraphQLError {
  services.log.error({ err: services.redact(String((error as Error)?.stack ?? error)) }, 'graphql-ws operation failed');
  return new GatewayError(ErrorCode.InternalServerError, (error as Error)?.message ?? String(error));
}

/** The start of operation `id`'s `next` messages, as JSON.stringify writes `{id, type, payload}`. */
function nextPrefix(id: string): string {
  return `{"id":${JSON.stringify(id)},"type":"next","payload":`;
}
