import { GraphQLError, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { TraceCarrier } from '../../observability/tracing.js';
import { ErrorCode, GatewayError } from '../../errors/codes.js';
import type { AdmittedOperation, OperationPipeline } from '../../pipeline/index.js';
import type { ClientIdentity } from '../../pipeline/operation.js';
import type { ClientResolver } from '../clientIdentity.js';
import type { HostOriginCheck } from '../hostOrigin.js';
import { requestIdFrom, type GatewayContext } from '../../context/request.js';
import type { GatewayServices } from '../../context/services.js';
import { limitError } from '../../pipeline/limitValidation.js';
import { OutboundBuffer, pacedBy } from '../outboundBuffer.js';
import { coalescingSender, sendingSharedResults } from './sharedNext.js';
import type { FairShare } from '../../pipeline/rules/fairShare.js';

/**
 * Longest operation id a client may choose: ids are echoed in every message and written to logs, so a longer one
 * closes the connection with 4400, as graphql-ws does for any invalid message. Clients use UUIDs (36 characters).
 */
export const MAX_OPERATION_ID_LENGTH = 128;

interface Connection {
  id: string;
  authorization?: string;
  /**
   * Who the connection's client is (its key from the upgrade request's `x-api-key`, or `connectionParams`, since
   * browsers cannot set WebSocket headers): a router's connection carries many clients' operations, each naming its own.
   */
  client: ClientIdentity;
  /** W3C trace context from the upgrade request's headers or `connectionParams`; an operation's `extensions` win. */
  trace: TraceCarrier;
  operations: Map<string, AdmittedOperation>;
  /** Operations being admitted (admission may wait for a quota read): they count against the per-connection limit. */
  admitting: number;
  /** Its unsent bytes: pauses its subscriptions' sources, closes it when too slow; closing aborts its operations. */
  outbound: OutboundBuffer;
  /** Sends results many subscribers share, coalesced per tick (sharedNext.ts). */
  sendShared: (text: string) => void;
}

/** graphql-ws (protocol `graphql-transport-ws`) on the HTTP server's `path`, sharing the port with Apollo. */
export function attachWebSocket(options: {
  server: Server;
  schema: GraphQLSchema;
  services: GatewayServices;
  path: string;
  /** Limits, persisted operations, budget, logging: the same rules as every other transport. */
  pipeline: OperationPipeline;
  /** Connection caps (a socket past them is closed with 4429). */
  fairShare?: FairShare;
  /** ALLOWED_HOSTS and ALLOWED_ORIGINS: an upgrade they refuse is answered 403. */
  hostOrigin: HostOriginCheck;
  /** Who each connection's and operation's client is (TRUSTED_PROXIES, TRUSTED_ROUTER_KEYS). */
  clients: ClientResolver;
}): {
  dispose(): Promise<void>;
} {
  const { services, pipeline, clients } = options;
  const { websocket: wsLimits } = services.config;
  // Oversized messages close the socket with 1009 (Message Too Big) before any parsing.
  const wss = new WebSocketServer({ noServer: true, maxPayload: wsLimits.maxMessageBytes });
  const connections = new WeakMap<WebSocket, Connection>();
  const byContext = new WeakMap<GatewayContext, AdmittedOperation>();
  // An operation that fails unexpectedly ends with its error; graphql-ws would close the connection on a throw.
  const run = async (args: ExecutionArgs) => {
    try {
      return await pipeline.run(byContext.get(args.contextValue as GatewayContext)!);
    } catch (error) {
      return { errors: [internalError(error, services)] };
    }
  };

  options.server.on('upgrade', (req, socket, head) => {
    if ((req.url ?? '').split('?')[0] !== options.path) {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    // Before the upgrade: a page that reached the gateway through a rebound name, or any cross-site page (browsers
    // send no CORS preflight for a WebSocket), gets no socket.
    const misdirected = options.hostOrigin.refusal(req.headers, 'websocket');
    if (misdirected) {
      options.hostOrigin.logRefusal(misdirected, { path: options.path, origin: req.headers.origin, host: req.headers.host });
      const body = JSON.stringify({ errors: pipeline.format([misdirected]) });
      socket.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
      return;
    }
    const client = clients.of(req);
    const refusal = options.fairShare?.connectionRefusal(req, client, clients.connectionShare(req, client), socket);
    // Across replicas (REDIS_URL) the upgrade waits for the shared count.
    if (refusal instanceof Promise) void refusal.then((refused) => !socket.destroyed && upgrade(req, socket, head, client, refused));
    else upgrade(req, socket, head, client, refusal);
  });

  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, client: ClientIdentity, refused: GatewayError | undefined): void {
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (refused) return ws.close(4429, `Rate limited: ${String(refused.extensions.limit)}`);
      const id = requestIdFrom(req.headers['x-request-id']);
      const operations = new Map<string, AdmittedOperation>();
      const outbound = OutboundBuffer.forWebSocket(ws, socket, services.config.streams, {
        transport: 'ws',
        metrics: services.metrics,
        onSlowClient: (reason, unsent) =>
          services.log.warn({ connection: id, reason, unsent, operations: operations.size }, 'closing a WebSocket client that reads too slowly (STREAM_MAX_BUFFERED_BYTES, STREAM_STALL_TIMEOUT_MS)'),
      });
      const connection: Connection = {
        id,
        authorization: req.headers.authorization,
        client,
        trace: { traceparent: req.headers.traceparent, tracestate: req.headers.tracestate },
        operations,
        admitting: 0,
        outbound,
        sendShared: coalescingSender(ws, socket),
      };
      connections.set(ws, connection);
      // A client's `complete` aborts the operation's upstream work at once, before graphql-ws awaits the iterator's
      // return() (which, for a generator blocked on an upstream read, would wait: graphql-ws issue 653 on GitHub).
      ws.on('message', (data) => {
        const text = data.toString();
        if (!text.includes('"complete"')) return;
        try {
          const msg = JSON.parse(text) as { type?: string; id?: string };
          if (msg.type === 'complete' && msg.id) connection.operations.get(msg.id)?.controller.abort();
        } catch {
          /* graphql-ws answers malformed messages itself */
        }
      });
      wss.emit('connection', ws, req);
      // graphql-ws prints a socket's error with console.error ("Please check your implementation"), stack and all. What
      // it is here, a client breaking the protocol (a message over GATEWAY_WS_MAX_MESSAGE_BYTES, an invalid frame),
      // which ws has already answered by closing, deserves one structured line.
      ws.removeAllListeners('error');
      ws.on('error', (error: Error & { code?: string }) => {
        services.log.warn({ connection: id, code: error.code, error: error.message }, 'WebSocket connection closed on a protocol error');
        if (ws.readyState === ws.OPEN) ws.close(1011, 'Internal server error');
      });
    });
  }

  const finish = (conn: Connection, id: string) => {
    const op = conn.operations.get(id);
    if (!op) return;
    conn.operations.delete(id);
    conn.outbound.forget(op.controller);
    pipeline.finish(op);
  };

  const server = useServer(
    {
      schema: options.schema,
      // The pipeline runs the admitted operation (compiled, its span active).
      execute: run,
      subscribe: run,
      connectionInitWaitTimeout: wsLimits.connectionInitTimeoutMs,
      onConnect(ctx) {
        const conn = connections.get(ctx.extra.socket);
        const params = (ctx.connectionParams ?? {}) as Record<string, unknown>;
        const headers = (params.headers ?? {}) as Record<string, unknown>;
        const auth = params.Authorization ?? params.authorization ?? headers.Authorization ?? headers.authorization;
        if (conn && typeof auth === 'string' && auth) conn.authorization = auth;
        const key = params['x-api-key'] ?? params.apiKey ?? headers['x-api-key'];
        if (conn) {
          const wasRouter = conn.client.router;
          conn.client = clients.ofConnection(ctx.extra.request, params, typeof key === 'string' ? key : conn.client.apiKey);
          // A router's key in connectionParams: the upgrade counted its socket against its address, a router's is no one's.
          if (conn.client.router && !wasRouter && pipeline.authenticate(conn.client.apiKey) === undefined) options.fairShare?.routerConnection(ctx.extra.request.socket);
        }
        if (conn && typeof params.traceparent === 'string') conn.trace = { traceparent: params.traceparent, tracestate: params.tracestate };
        // false closes the socket with 4403 Forbidden.
        return pipeline.authenticate(conn?.client.apiKey) === undefined;
      },
      async onSubscribe(ctx, id, payload) {
        const conn = connections.get(ctx.extra.socket);
        if (!conn) return;
        if (id.length > MAX_OPERATION_ID_LENGTH) {
          // Closing first: graphql-ws sends nothing on a closing socket (this error included), so the id is neither
          // echoed nor logged.
          const reason = `Operation id longer than ${MAX_OPERATION_ID_LENGTH} characters`;
          ctx.extra.socket.close(4400, reason);
          return [new GraphQLError(reason)];
        }
        // A browser's connection is capped; a router's multiplexes all its subscribers, each capped as its own client.
        if (!conn.client.router && conn.operations.size + conn.admitting >= wsLimits.maxOperations) {
          return [limitError('maxOperations', wsLimits.maxOperations, undefined, 'Concurrent operations per connection')];
        }
        const extensions = (payload.extensions ?? {}) as TraceCarrier;
        conn.admitting++;
        let admitted: AdmittedOperation | GraphQLError[];
        try {
          admitted = await pipeline.admit(payload, {
            ...clients.ofOperation(conn.client, payload.extensions),
            requestId: `${conn.id}:${id}`,
            transport: 'ws',
            authorization: conn.authorization,
            trace: typeof extensions.traceparent === 'string' ? extensions : conn.trace,
          });
        } catch (error) {
          // graphql-ws would close the whole connection (4500) on a thrown error, ending its other operations.
          return [internalError(error, services)];
        } finally {
          conn.admitting--;
        }
        if (Array.isArray(admitted)) return admitted;
        // The socket closed while the operation was being admitted: nothing will complete it.
        if (ctx.extra.socket.readyState !== ctx.extra.socket.OPEN) {
          pipeline.finish(admitted);
          return [new GraphQLError('The connection closed before the operation started.')];
        }
        // graphql-ws keeps the subscribe message as long as the operation runs: its query text, a copy per
        // subscription, gives way to the cached document's own text (the same characters, held once).
        if (typeof payload.query === 'string') (payload as { query: string }).query = admitted.document.loc?.source.body ?? payload.query;
        conn.operations.set(id, admitted);
        byContext.set(admitted.context, admitted);
        conn.outbound.track(admitted.controller);
        return { schema: options.schema, document: admitted.document, operationName: payload.operationName, variableValues: payload.variables };
      },
      context(ctx, id) {
        return connections.get(ctx.extra.socket)!.operations.get(id)!.context;
      },
      onOperation(ctx, id, _payload, _args, result) {
        const conn = connections.get(ctx.extra.socket);
        const op = conn?.operations.get(id);
        if (!conn || !op || !isAsyncIterator(result)) return;
        // A query with @defer or @stream is an iterator too; it is no subscription.
        if (op.operation.operation === 'subscription') services.metrics.subscriptionsStarted.inc();
        const socket = ctx.extra.socket;
        // A result many subscribers share goes out as one text serialised once (sharedNext.ts); the checks are onNext's.
        return sendingSharedResults(
          pacedBy(result, conn.outbound, op.controller.signal),
          id,
          (text) => {
            if (socket.readyState === socket.OPEN && !op.controller.signal.aborted && !conn.outbound.overflowed()) conn.sendShared(text);
          },
          // Its own cost, as onNext adds to every other result.
          (shared) => pipeline.answerExtensions(op, shared),
        );
      },
      onNext(ctx, id, _payload, _args, result) {
        const conn = connections.get(ctx.extra.socket)!;
        // Past the limit the connection closes; graphql-ws then sends nothing more.
        if (conn.outbound.overflowed()) return;
        const op = conn.operations.get(id);
        // Every result: its errors formatted, its cost in its extensions.
        if (op) return pipeline.formatted(op, result);
        return result.errors?.length ? { ...result, errors: pipeline.format(result.errors) } : undefined;
      },
      onError(ctx, id, _payload, errors) {
        const conn = connections.get(ctx.extra.socket)!;
        return pipeline.format(errors, conn.operations.get(id));
      },
      onComplete(ctx, id) {
        const conn = connections.get(ctx.extra.socket);
        if (conn) finish(conn, id);
      },
      onClose(ctx) {
        const conn = connections.get(ctx.extra.socket);
        if (conn) for (const id of [...conn.operations.keys()]) finish(conn, id);
      },
    },
    wss,
    wsLimits.keepAliveMs,
  );

  return {
    async dispose() {
      // graphql-ws closes every socket with 1001 (Going Away) and the server.
      await server.dispose();
    },
  };
}

/** An unexpected failure as an operation's error: logged here with its stack, its text masked in production by the formatter. */
function internalError(error: unknown, services: GatewayServices): GraphQLError {
  services.log.error({ err: services.redact(String((error as Error)?.stack ?? error)) }, 'graphql-ws operation failed');
  return new GatewayError(ErrorCode.InternalServerError, (error as Error)?.message ?? String(error));
}

function isAsyncIterator<T>(value: unknown): value is AsyncIterableIterator<T> {
  return typeof (value as AsyncIterableIterator<T>)?.[Symbol.asyncIterator] === 'function' && typeof (value as AsyncIterator<T>).next === 'function';
}
