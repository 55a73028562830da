import type { DocumentNode, GraphQLFormattedError } from 'graphql';

/** Who asks for a trusted operation: the same credentials and identity as any other operation of that caller. */
export interface TrustedCall {
  requestId: string;
  /** The caller's `Authorization` header (delegated Graph access forwards it). */
  authorization?: string;
  /** The caller's gateway API key, already checked, for per-client limits. */
  apiKey?: string;
  /**
   * Who the caller is, as its transport resolved it (the pipeline's `ClientIdentity`: its key, address, and the
   * subject of a verified token at /mcp with MCP_AUTH=jwt); unset, the key alone.
   */
  client?: { apiKey?: string; remoteAddress?: string; subject?: string };
  /** The caller was let in without an API key (a verified token, an open /mcp, an admitted operation): no key check. */
  authenticated?: boolean;
  /** `mcp` for the /mcp endpoint, `graph-tool` for a chat model's tool call. */
  transport: 'mcp' | 'graph-tool';
  /** Aborts the operation's upstream requests (the chat completion that called it ended). */
  signal?: AbortSignal;
}

/** A trusted operation's result as a client would get it over HTTP: data and formatted errors. */
export interface TrustedResult {
  data?: Record<string, unknown> | null;
  errors?: readonly GraphQLFormattedError[];
}

/** A trusted operation by its text and name (a free-form query, when an operator allows those, is one too). */
export interface TrustedRequest {
  query: string;
  /** Which operation of `query` to run; may be left out when it has one. */
  name?: string;
  /**
   * The operation and the fragments it uses, parsed, when its variables are a tool's arguments: an error naming a
   * field's argument then names the variable (the tool's argument) that fed it (toolErrors.ts).
   */
  document?: DocumentNode;
}

export type ExecuteTrusted = (request: TrustedRequest, variables: Record<string, unknown>, call: TrustedCall) => Promise<TrustedResult>;
