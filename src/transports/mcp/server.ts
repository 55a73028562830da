import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode as McpErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { getOperationAST, getVariableValues, parse, type GraphQLSchema } from 'graphql';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badInput, refusalStatus, type GatewayError } from '../../errors/codes.js';
import type { GatewayServices } from '../../context/services.js';
import type { OperationPipeline } from '../../pipeline/index.js';
import { presentedApiKey } from '../../pipeline/rules/apiKey.js';
import { MAX_BODY_BYTES, readBody } from '../http/body.js';
import type { TrustedCall, TrustedResult } from '../../trusted/execute.js';
import type { ClientResolver } from '../clientIdentity.js';
import { checkArguments } from '../../trusted/operations.js';
import type { TrustedToolset } from '../../trusted/toolset.js';

/** The tool MCP_ALLOW_FREEFORM adds: any query (mutations only with MCP_ALLOW_MUTATIONS) through the same rules. */
export const FREEFORM_TOOL = 'execute_graphql';

const SERVER_INFO = { name: 'federation-gateway', version: '0.1.0' };

/**
 * `/mcp`: a Model Context Protocol server (streamable HTTP, stateless: every POST carries its own JSON-RPC request)
 * whose tools are the trusted operations of MCP_OPERATIONS (loaded and validated at start-up: app/trusted.ts).
 */
export function createMcpEndpoint(options: {
  services: GatewayServices;
  pipeline: OperationPipeline;
  /** Who each request's client is: its tools' operations count against it. */
  clients: ClientResolver;
}): (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void> {
  const { services, pipeline, clients } = options;
  const toolset = services.trusted;
  services.log.info({ operations: toolset.operations.dir, tools: toolset.operations.list().map((o) => o.name) }, `mcp: ${toolset.operations.list().length} tools at /mcp`);

  return async (req, res, requestId) => {
    const apiKey = presentedApiKey(req.headers);
    const refused = pipeline.authenticate(apiKey) ?? pipeline.drainingRefusal();
    if (refused) return sendJsonRpcError(res, refusalStatus(refused), McpErrorCode.InvalidRequest, refused.message);
    if (req.method !== 'POST') {
      // Stateless: no server-initiated stream to resume and no session to delete.
      res.setHeader('allow', 'POST');
      return sendJsonRpcError(res, 405, McpErrorCode.ConnectionClosed, `${req.method} /mcp is not served: send JSON-RPC requests with POST.`);
    }
    const raw = await readBody(req, MAX_BODY_BYTES);
    if (raw === undefined) return sendJsonRpcError(res, 413, McpErrorCode.InvalidRequest, `Request body larger than ${MAX_BODY_BYTES} bytes.`);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendJsonRpcError(res, 400, McpErrorCode.ParseError, 'The request body is not valid JSON.');
    }
    const call: TrustedCall = { requestId, authorization: req.headers.authorization, apiKey, client: clients.of(req), transport: 'mcp' };
    const server = mcpServer(toolset, services, call);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}

/** One MCP server for one HTTP request, bound to that request's caller. */
function mcpServer({ schema, operations, execute }: TrustedToolset, services: GatewayServices, call: TrustedCall): Server {
  // The low-level server: tool schemas here are JSON Schema derived from GraphQL, not zod shapes.
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: 'Tools run named GraphQL operations of this gateway: Microsoft 365 service health, OMDb titles, chat providers.',
  });
  const { allowMutations, allowFreeform } = services.config.mcp;

  server.setRequestHandler(ListToolsRequestSchema, () => {
    const tools: Tool[] = operations.list().map((op) => ({
      name: op.name,
      description: op.description,
      inputSchema: op.inputSchema as Tool['inputSchema'],
      annotations: { readOnlyHint: op.type === 'query', openWorldHint: true },
    }));
    if (allowFreeform) tools.push(freeformTool(allowMutations));
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const withSignal = { ...call, signal: extra.signal };
    if (allowFreeform && name === FREEFORM_TOOL) {
      const checked = freeformRequest(args, allowMutations);
      if ('extensions' in checked) return refusal(checked, services, call, name);
      return toolResult(await execute(checked, checked.variables, withSignal));
    }
    const op = operations.get(name);
    if (!op) {
      const offered = operations.list().map((o) => o.name);
      throw new McpError(McpErrorCode.InvalidParams, `Unknown tool ${JSON.stringify(name)}; this server offers ${offered.join(', ')}${allowFreeform ? `, ${FREEFORM_TOOL}` : ''}.`);
    }
    const variables = checkArguments(schema, op, args);
    if ('extensions' in variables) return refusal(variables as GatewayError, services, call, name);
    return toolResult(await execute(op, variables, withSignal));
  });
  return server;
}

/** The result as structured content (data and errors, as GraphQL over HTTP would answer) and the same as text. */
function toolResult(result: TrustedResult): CallToolResult {
  const structured = { data: result.data ?? null, ...(result.errors ? { errors: result.errors } : {}) };
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
    isError: !result.data && !!result.errors?.length,
  };
}

/** A call refused before it ran, as a tool error the model can read and correct (and one log line). */
function refusal(error: GatewayError, services: GatewayServices, call: TrustedCall, tool: string): CallToolResult {
  const [formatted] = services.formatErrors([error]);
  services.log.info({ requestId: call.requestId, tool, code: formatted.extensions?.code, transport: call.transport }, 'mcp tool refused');
  return { content: [{ type: 'text', text: formatted.message }], structuredContent: { data: null, errors: [formatted] }, isError: true };
}

function freeformTool(allowMutations: boolean): Tool {
  return {
    name: FREEFORM_TOOL,
    description: `Runs any GraphQL ${allowMutations ? 'query or mutation' : 'query'} against this gateway's graph (introspection allowed where the gateway allows it).`,
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'The GraphQL document.' },
        variables: { type: 'object', description: 'Its variables.' },
        operationName: { type: 'string', description: 'Which operation of the document to run, when it has several.' },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: !allowMutations, openWorldHint: true },
  };
}

function freeformRequest(args: Record<string, unknown> | undefined, allowMutations: boolean) {
  const { query, variables, operationName } = args ?? {};
  if (typeof query !== 'string') return badInput(`${FREEFORM_TOOL} needs "query", a GraphQL document as a string.`, 'query');
  if (variables !== undefined && (typeof variables !== 'object' || variables === null || Array.isArray(variables))) {
    return badInput(`${FREEFORM_TOOL}: "variables" must be a JSON object.`, 'variables');
  }
  if (operationName !== undefined && typeof operationName !== 'string') return badInput(`${FREEFORM_TOOL}: "operationName" must be a string.`, 'operationName');
  let type: string | undefined;
  try {
    type = getOperationAST(parse(query), operationName)?.operation;
  } catch {
    type = undefined; // the gate reports the syntax error
  }
  if (type === 'subscription') return badInput(`${FREEFORM_TOOL} runs queries${allowMutations ? ' and mutations' : ''}, not subscriptions.`, 'query');
  if (type === 'mutation' && !allowMutations) return badInput(`${FREEFORM_TOOL} runs queries only: mutations need MCP_ALLOW_MUTATIONS.`, 'query');
  return { query, name: operationName as string | undefined, variables: (variables ?? {}) as Record<string, unknown> };
}

/** A JSON-RPC error as `/mcp` answers a request it refuses (no request id: the body may not have been read). */
export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  const text = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
