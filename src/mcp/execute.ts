import { execute, type ExecutionResult, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { runInTrace } from '../observability/tracing.js';
import type { OperationGate } from '../server/operationGate.js';

/** Who asks for a trusted operation: the same credentials and identity as any other operation of that caller. */
export interface TrustedCall {
  requestId: string;
  /** The caller's `Authorization` header (delegated Graph access forwards it). */
  authorization?: string;
  /** The caller's gateway API key, already checked, for per-client limits. */
  apiKey?: string;
  /** `mcp` for the /mcp endpoint, `graph-tool` for a chat model's tool call. */
  transport: 'mcp' | 'graph-tool';
  /** Aborts the operation's upstream requests (the chat completion that called it ended). */
  signal?: AbortSignal;
}

/** A trusted operation's result as a client would get it over HTTP: data and formatted errors. */
export interface TrustedResult {
  data?: Record<string, unknown> | null;
  errors?: GraphQLFormattedError[];
}

/** A trusted operation by its text and name (a free-form query, when an operator allows those, is one too). */
export interface TrustedRequest {
  query: string;
  /** Which operation of `query` to run; may be left out when it has one. */
  name?: string;
}

export type ExecuteTrusted = (request: TrustedRequest, variables: Record<string, unknown>, call: TrustedCall) => Promise<TrustedResult>;

/**
 * The one place trusted operations (MCP tools, chat graph tools) enter the operation pipeline, so they pass the same
 * rules as any other operation: document limits, the upstream-request budget, one context and span per call,
 * contract error codes with secrets redacted, one `operation` log line and the operation metrics.
 */
export function trustedExecutor(gate: OperationGate, schema: GraphQLSchema): ExecuteTrusted {
  return async (trusted, variables, call) => {
    const admitted = gate.admit(
      { query: trusted.query, operationName: trusted.name, variables },
      { requestId: call.requestId, transport: call.transport, authorization: call.authorization },
    );
    if (Array.isArray(admitted)) return { errors: gate.format(undefined, admitted) };
    const stop = () => admitted.controller.abort();
    call.signal?.addEventListener('abort', stop, { once: true });
    try {
      const result = (await runInTrace(admitted.trace, () =>
        execute({ schema, document: admitted.document, operationName: trusted.name, contextValue: admitted.context, variableValues: variables }),
      )) as ExecutionResult;
      return {
        data: result.data as Record<string, unknown> | null | undefined,
        ...(result.errors?.length ? { errors: gate.format(admitted, result.errors) } : {}),
      };
    } finally {
      call.signal?.removeEventListener('abort', stop);
      gate.finish(admitted);
    }
  };
}
