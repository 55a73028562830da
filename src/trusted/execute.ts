import type { DocumentNode, GraphQLFormattedError } from 'graphql';
import type { Caller } from '../observability/caller.js';

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

/**
 * Runs a trusted operation as `caller` (its transport `mcp` for /mcp, `graph-tool` for a chat model's tool call, with
 * the same identity as that caller's other operations); `signal` aborts its upstream requests (the completion that
 * called it ended).
 */
export type ExecuteTrusted = (
  request: TrustedRequest,
  variables: Record<string, unknown>,
  caller: Caller,
  signal?: AbortSignal,
) => Promise<TrustedResult>;
