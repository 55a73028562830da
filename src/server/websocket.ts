import { getOperationAST, GraphQLError, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type ValidationRule } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { Server } from 'node:http';
import { LRUCache } from 'lru-cache';
import { WebSocketServer, type WebSocket } from 'ws';
import { formatError } from '../errors.js';
import { presentedApiKey } from './access.js';
import { createContext, requestIdFrom, type GatewayServices } from '../runtime/context.js';
import { checkDocumentSize, limitError } from './limits.js';
import { OutboundBuffer, pacedBy } from './outboundBuffer.js';
import type { PersistedOperations } from './persistedOperations.js';
import { budgetRefusal, estimateUpstreamRequests, operationShape, rememberEstimates, type UpstreamEstimator } from '../runtime/upstreamBudget.js';

interface Operation {
  controller: AbortController;
  started: number;
  requestId: string;
  name: string | null;
  type: string;
  errorCodes: Set<string>;
  /** The parsed operation and the upstream-request estimate made for it, handed to the context. */
  operation?: OperationDefinitionNode;
  estimates?: Record<string, number>;
}

interface Connection {
  id: string;
  authorization?: string;
  /** From the upgrade request's `x-api-key`, or `connectionParams` (browsers cannot set WebSocket headers). */
  apiKey?: string;
  operations: Map<string, Operation>;
  /** Its unsent bytes: pauses its subscriptions' sources, closes it past WS_MAX_BUFFERED_BYTES. */
  outbound: OutboundBuffer;
}

/** graphql-ws (protocol `graphql-transport-ws`) on the HTTP server's `path`, sharing the port with Apollo. */
export function attachWebSocket(options: {
  server: Server;
  schema: GraphQLSchema;
  services: GatewayServices;
  path: string;
  /** Operation limits, applied as on HTTP. */
  validationRules: ValidationRule[];
  apiKeyCheck?: (presented: string | undefined) => boolean;
  persisted?: PersistedOperations;
  estimators: readonly UpstreamEstimator[];
}): {
  dispose(): Promise<void>;
} {
  const { services } = options;
  const { limits, websocket: wsLimits } = services.config;
  const rules = [...specifiedRules, ...options.validationRules];
  // Oversized messages close the socket with 1009 (Message Too Big) before any parsing.
  const wss = new WebSocketServer({ noServer: true, maxPayload: wsLimits.maxMessageBytes });
  const connections = new WeakMap<WebSocket, Connection>();

  options.server.on('upgrade', (req, socket, head) => {
    if ((req.url ?? '').split('?')[0] !== options.path) {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const id = requestIdFrom(req.headers['x-request-id']);
      const operations = new Map<string, Operation>();
      const outbound = new OutboundBuffer(ws, socket, wsLimits.maxBufferedBytes, (unsent) => {
        services.log.warn({ connection: id, unsent, limit: wsLimits.maxBufferedBytes, operations: operations.size }, 'closing a WebSocket that reads too slowly (WS_MAX_BUFFERED_BYTES)');
        services.metrics.wsSlowConsumerCloses.inc();
        for (const op of operations.values()) op.controller.abort();
      });
      const connection: Connection = { id, authorization: req.headers.authorization, apiKey: presentedApiKey(req.headers), operations, outbound };
      connections.set(ws, connection);
      // A client's `complete` aborts the operation's upstream work at once, before graphql-ws awaits the iterator's
      // return() (which, for a generator blocked on an upstream read, would wait: graphql-ws#653).
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
      ws.on('close', () => {
        for (const op of connection.operations.values()) op.controller.abort();
      });
      wss.emit('connection', ws, req);
    });
  });

  const finish = (conn: Connection, id: string) => {
    const op = conn.operations.get(id);
    if (!op) return;
    conn.operations.delete(id);
    op.controller.abort();
    const durationMs = performance.now() - op.started;
    const label = services.metrics.operationLabel(op.name);
    const outcome = op.errorCodes.size ? 'error' : 'ok';
    services.metrics.operations.inc({ type: op.type, name: label, outcome });
    services.metrics.operationDuration.observe({ type: op.type, name: label }, durationMs / 1000);
    services.log.info(
      { requestId: op.requestId, operation: op.name, type: op.type, durationMs: Math.round(durationMs * 10) / 10, outcome, errorCodes: op.errorCodes.size ? [...op.errorCodes] : undefined, transport: 'ws' },
      'operation',
    );
  };
  const format = (conn: Connection, id: string, errors: readonly { extensions?: Record<string, unknown>; message: string }[]) =>
    errors.map((e) => {
      const formatted = formatError(e as never, { production: services.config.production, redact: services.redact });
      conn.operations.get(id)?.errorCodes.add(String(formatted.extensions?.code));
      return formatted;
    });

  /**
   * Parsed and validated documents by text, as Apollo's document store does for HTTP: a chat UI subscribes with the
   * same document again and again, and parsing plus the limit rules would otherwise sit before every first token.
   */
  const documents = new LRUCache<string, DocumentNode | GraphQLError[]>({ max: 1000, maxSize: 50 * 1024 * 1024, sizeCalculation: (_v, key) => key.length + 1 });
  const checkedDocument = (query: string): DocumentNode | GraphQLError[] => {
    const cached = documents.get(query);
    if (cached) return cached;
    let result: DocumentNode | GraphQLError[];
    try {
      const document = parse(query, { maxTokens: limits.maxTokens });
      const invalid = validate(options.schema, document, rules);
      result = invalid.length ? invalid.map((e) => (e.extensions.limit ? e : requestError(e, 'GRAPHQL_VALIDATION_FAILED'))) : document;
    } catch (error) {
      result = [requestError(error as GraphQLError, 'GRAPHQL_PARSE_FAILED')];
    }
    documents.set(query, result);
    return result;
  };

  const server = useServer(
    {
      schema: options.schema,
      connectionInitWaitTimeout: wsLimits.connectionInitTimeoutMs,
      onConnect(ctx) {
        const conn = connections.get(ctx.extra.socket);
        const params = (ctx.connectionParams ?? {}) as Record<string, unknown>;
        const headers = (params.headers ?? {}) as Record<string, unknown>;
        const auth = params.Authorization ?? params.authorization ?? headers.Authorization ?? headers.authorization;
        if (conn && typeof auth === 'string' && auth) conn.authorization = auth;
        const key = params['x-api-key'] ?? params.apiKey ?? headers['x-api-key'];
        if (conn && typeof key === 'string') conn.apiKey = key;
        // false closes the socket with 4403 Forbidden.
        return !options.apiKeyCheck || options.apiKeyCheck(conn?.apiKey);
      },
      onSubscribe(ctx, id, payload) {
        const conn = connections.get(ctx.extra.socket);
        if (!conn) return;
        if (conn.operations.size >= wsLimits.maxOperations) {
          return [limitError('maxOperations', wsLimits.maxOperations, undefined, 'Concurrent operations per connection')];
        }
        let query = payload.query;
        if (options.persisted) {
          const resolved = options.persisted.resolve(payload as never);
          if (typeof resolved !== 'string') return [resolved];
          query = resolved;
        }
        const tooLarge = checkDocumentSize(query, limits);
        if (tooLarge) return [tooLarge];
        // Parse and validate here rather than in graphql-ws, so that request errors carry contract codes like HTTP's.
        const checked = checkedDocument(query);
        if (Array.isArray(checked)) return checked;
        const document = checked as DocumentNode;
        const operation = getOperationAST(document, payload.operationName);
        let estimates: Record<string, number> | undefined;
        if (operation) {
          estimates = estimateUpstreamRequests(operationShape(options.schema, document, operation, payload.variables ?? undefined), services, options.estimators);
          const refusal = budgetRefusal(estimates, limits.maxUpstreamRequests);
          if (refusal) return [refusal];
        }
        conn.operations.set(id, {
          controller: new AbortController(),
          started: performance.now(),
          requestId: `${conn.id}:${id}`,
          name: payload.operationName ?? operation?.name?.value ?? null,
          type: operation?.operation ?? 'unknown',
          errorCodes: new Set(),
          operation: operation ?? undefined,
          estimates,
        });
        return { schema: options.schema, document, operationName: payload.operationName, variableValues: payload.variables };
      },
      context(ctx, id) {
        const conn = connections.get(ctx.extra.socket)!;
        const op = conn.operations.get(id)!;
        const context = createContext(services, { requestId: op.requestId, signal: op.controller.signal, authorization: conn.authorization });
        if (op.operation && op.estimates) rememberEstimates(context, op.operation, op.estimates);
        return context;
      },
      onOperation(ctx, id, _payload, _args, result) {
        const conn = connections.get(ctx.extra.socket);
        const op = conn?.operations.get(id);
        if (!conn || !op || !isAsyncIterator(result)) return;
        return pacedBy(result, conn.outbound, op.controller.signal);
      },
      onNext(ctx, id, _payload, _args, result) {
        const conn = connections.get(ctx.extra.socket)!;
        // Past the limit the connection closes; graphql-ws then sends nothing more.
        if (conn.outbound.overflowed() || !result.errors?.length) return;
        return { ...result, errors: format(conn, id, result.errors) };
      },
      onError(ctx, id, _payload, errors) {
        const conn = connections.get(ctx.extra.socket)!;
        return format(conn, id, errors);
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

function isAsyncIterator<T>(value: unknown): value is AsyncIterableIterator<T> {
  return typeof (value as AsyncIterableIterator<T>)?.[Symbol.asyncIterator] === 'function' && typeof (value as AsyncIterator<T>).next === 'function';
}

function requestError(error: GraphQLError, reason: string): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { code: reason } });
}
