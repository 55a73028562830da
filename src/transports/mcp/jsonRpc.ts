import type { ServerResponse } from 'node:http';

/**
 * The JSON-RPC error codes `/mcp` answers with (JSON-RPC 2.0 and MCP's own), as the MCP SDK's `ErrorCode` numbers
 * them: here so that the HTTP front door and the endpoint's refusals need no part of the SDK, which is loaded only when
 * an agent first calls (sdk.ts).
 */
export const JsonRpcCode = {
  ConnectionClosed: -32000,
  ParseError: -32700,
  InvalidRequest: -32600,
  InvalidParams: -32602,
} as const;

/** A JSON-RPC error as `/mcp` answers a request it refuses (no request id: the body may not have been read). */
export function sendJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): void {
  const text = JSON.stringify({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: null });
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}
