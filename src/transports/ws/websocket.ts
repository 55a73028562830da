import { GraphQLError, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { TraceCarrier } from '../../observability/tracing.js';
import { ErrorCode, GatewayError } from '../../errors/codes.js';
import type { AdmittedOperation, OperationPipeline } from '../../pipeline/index.js';
import type { ClientIdentity } from '../../pipeline/operation.js';
import type { ClientResolver } from '../clientIdentity.js';
import type { HostOriginCheck } from '../hostOrigin.js';
import { requestIdFrom } from '../../context/request.js';
import type { GatewayServices } from '../../context/services.js';
import { limitError } from '../../pipeline/limitValidation.js';
import { pacedBy } from '../outboundBuffer.js';
import { graphqlWsAdapter, WsConnection } from './adapter.js';
import { sendingSharedResults } from './sharedNext.js';
import type { FairShare } from '../../pipeline/rules/fairShare.js';

/**
 * Longest operation id a client may choose: ids are echoed in every message and written to logs, so a longer one
 * closes the connection with 4400, as graphql-ws does for any invalid message. Clients use UUIDs (36 characters).
 */
export const MAX_OPERATION_ID_LENGTH = 128;

/** A graphql-ws connection with who sent it, as its operations' hooks read it (graphql-ws's `ctx.extra`). */
class GatewayConnection extends WsConnection<AdmittedOperation> {
  authorization?: string;
  /**
   * Who the connection's client is (its key from the upgrade request's `x-api-key`, or `connectionParams`, since
   * browsers cannot set WebSocket headers): a router's connection carries many clients' operations, each naming its own.
   */
  client: ClientIdentity;
  /** W3C trace context from the upgrade request's headers or `connectionParams`; an operation's `extensions` win. */
  trace: TraceCarrier;
  /** Operations being admitted (admission may wait for a quota read): they count against the per-connection limit. */
  admitting = 0;

  constructor(socket: WebSocket, request: IncomingMessage, tcp: Duplex, client: ClientIdentity, services: GatewayServices) {
    super(requestIdFrom(request.headers['x-request-id']), socket, request, tcp, { limits: services.config.streams, metrics: services.metrics, log: services.log });
    this.authorization = request.headers.authorization;
    this.client = client;
    this.trace = { traceparent: request.headers.traceparent, tracestate: request.headers.tracestate };
  }
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
  // graphql-ws's contextValue is the admitted operation (onSubscribe): the pipeline runs it, compiled, its span active.
  // One that fails unexpectedly ends with its error; graphql-ws would close the connection on a throw.
  const run = async (args: ExecutionArgs) => {
    try {
      return await pipeline.run(args.contextValue as AdmittedOperation);
    } catch (error) {
      return { errors: [internalError(error, services)] };
    }
  };

  const finish = (conn: GatewayConnection, id: string) => {
    const op = conn.ended(id);
    if (op) pipeline.finish(op);
  };

  const adapter = graphqlWsAdapter<GatewayConnection>({
    maxPayload: wsLimits.maxMessageBytes,
    keepAliveMs: wsLimits.keepAliveMs,
    log: services.log,
    redact: services.redact,
    core: {
      schema: options.schema,
      execute: run,
      subscribe: run,
      connectionInitWaitTimeout: wsLimits.connectionInitTimeoutMs,
      onConnect(ctx) {
        const conn = ctx.extra;
        const params = (ctx.connectionParams ?? {}) as Record<string, unknown>;
        const headers = (params.headers ?? {}) as Record<string, unknown>;
        const auth = params.Authorization ?? params.authorization ?? headers.Authorization ?? headers.authorization;
        if (typeof auth === 'string' && auth) conn.authorization = auth;
        const key = params['x-api-key'] ?? params.apiKey ?? headers['x-api-key'];
        const wasRouter = conn.client.router;
        conn.client = clients.ofConnection(conn.request, params, typeof key === 'string' ? key : conn.client.apiKey);
        // A router's key in connectionParams: the upgrade counted its socket against its address, a router's is no one's.
        if (conn.client.router && !wasRouter && pipeline.authenticate(conn.client.apiKey) === undefined) options.fairShare?.routerConnection(conn.request.socket);
        if (typeof params.traceparent === 'string') conn.trace = { traceparent: params.traceparent, tracestate: params.tracestate };
        // false closes the socket with 4403 Forbidden.
        return pipeline.authenticate(conn.client.apiKey) === undefined;
      },
      async onSubscribe(ctx, id, payload) {
        const conn = ctx.extra;
        if (id.length > MAX_OPERATION_ID_LENGTH) {
          // Closing first: nothing is sent on a closing socket (this error included), so the id is neither echoed nor logged.
          const reason = `Operation id longer than ${MAX_OPERATION_ID_LENGTH} characters`;
          conn.socket.close(4400, reason);
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
            requestId: `${conn.id}:${id}`,
            transport: 'ws',
            authorization: conn.authorization,
            trace: typeof extensions.traceparent === 'string' ? extensions : conn.trace,
            client: clients.ofOperation(conn.client, payload.extensions),
          });
        } catch (error) {
          // graphql-ws would close the whole connection (4500) on a thrown error, ending its other operations.
          return [internalError(error, services)];
        } finally {
          conn.admitting--;
        }
        if (Array.isArray(admitted)) return admitted;
        // The socket closed, or the client completed the operation, while it was being admitted: nothing will end it.
        if (conn.socket.readyState !== conn.socket.OPEN || !(id in ctx.subscriptions)) {
          pipeline.finish(admitted);
          return [new GraphQLError('The operation ended before it started.')];
        }
        conn.started(id, admitted);
        return { schema: options.schema, document: admitted.document, operationName: payload.operationName, variableValues: payload.variables, contextValue: admitted };
      },
      onOperation(ctx, id, _payload, args, result) {
        const conn = ctx.extra;
        const op = args.contextValue as AdmittedOperation;
        if (!isAsyncIterator(result)) return;
        // A query with @defer or @stream is an iterator too; it is no subscription.
        if (op.type === 'subscription') services.metrics.subscriptionsStarted.inc();
        // A result many subscribers share goes out as one text serialised once (sharedNext.ts), through the connection.
        return sendingSharedResults(
          pacedBy(result, conn.outbound, op.controller.signal),
          id,
          (text) => {
            if (!op.controller.signal.aborted) conn.send(text);
          },
          // Its own cost, as onNext adds to every other result.
          (shared) => pipeline.answerExtensions(op, shared),
        );
      },
      onNext(ctx, _id, _payload, args, result) {
        // Past the limit the connection closed; nothing more is sent, nor counted.
        if (ctx.extra.outbound.done) return;
        // Every result: its errors formatted, its cost in its extensions.
        return pipeline.formatted(args.contextValue as AdmittedOperation, result);
      },
      onError(ctx, id, _payload, errors) {
        return pipeline.format(errors, ctx.extra.operations.get(id));
      },
      onComplete(ctx, id) {
        finish(ctx.extra, id);
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

  function upgrade(req: IncomingMessage, tcp: Duplex, head: Buffer, client: ClientIdentity, refused: GatewayError | undefined): void {
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

function isAsyncIterator<T>(value: unknown): value is AsyncIterableIterator<T> {
  return typeof (value as AsyncIterableIterator<T>)?.[Symbol.asyncIterator] === 'function' && typeof (value as AsyncIterator<T>).next === 'function';
}
