import type { TraceCarrier, Transport } from './tracing.js';

/**
 * Who runs an operation and over what: the one model of a caller, whatever carried it (an HTTP request, a graphql-ws
 * connection's operation, an SSE stream, /mcp, a chat model's graph tool, a test). Its client fields (the API key,
 * address, subject, router) are what the fair-share caps, budgets and ownership count against; transports resolve
 * them (transports/clientIdentity.ts), the pipeline's entry takes the whole, and the operation's context keeps it as
 * its `caller`. Here, below every layer that names a caller (trusted operations, the context, the pipeline), next to
 * the log lines and spans that name it too.
 */
export interface Caller {
  requestId: string;
  transport: Transport;
  /** The caller's `Authorization` header as sent (delegated Graph access forwards it). */
  authorization?: string;
  /** The gateway API key presented (`x-api-key`, graphql-ws `connectionParams`); never logged. */
  apiKey?: string;
  /** The socket's peer, or behind a trusted proxy (TRUSTED_PROXIES) the address its `X-Forwarded-For` names. */
  remoteAddress?: string;
  /**
   * Who the client is by an authority the gateway trusts, which wins over the key and the address: the end client a
   * federation router names (TRUSTED_ROUTER_KEYS, ROUTER_CLIENT_HEADER), or an authenticated caller's subject (a
   * verified token's `sub`) where a transport authenticates one.
   */
  subject?: string;
  /** It came through a trusted federation router: its connection is not bound by the per-connection caps meant for browsers. */
  router?: boolean;
  /** W3C trace context of the caller (headers, `connectionParams` or the operation's `extensions`). */
  trace?: TraceCarrier;
  /**
   * Let in by other means than an API key its transport checked already (an HTTP request's or graphql-ws connection's
   * key, a token /mcp verified, an open /mcp, an operation already admitted that calls a graph tool): the pipeline's
   * entry then skips the API key check.
   * @default false: the entry checks `apiKey` against GATEWAY_API_KEYS
   */
  authenticated?: boolean;
}

/**
 * The part of a {@link Caller} that tells clients apart, as a transport resolves it before an operation exists (an
 * HTTP request, a WebSocket upgrade): what the connection caps count against.
 */
export type ClientIdentity = Pick<Caller, 'apiKey' | 'remoteAddress' | 'subject' | 'router'>;
