import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { refusalStatus, type GatewayError } from '../../errors/codes.js';
import type { GatewayServices } from '../../context/services.js';
import type { OperationPipeline } from '../../pipeline/index.js';
import { MAX_BODY_BYTES, readBody } from '../http/requestBody.js';
import { sendJson } from '../http/response.js';
import type { Caller } from '../../observability/caller.js';
import type { ClientResolver } from '../clientIdentity.js';
import { checkArguments } from '../../trusted/operations.js';
import { createMcpAuth, type McpAuth, type McpCaller, type McpRefusal } from './auth.js';
import { JsonRpcCode as McpErrorCode, sendJsonRpcError } from './jsonRpc.js';
import { MCP_PATH } from './protectedResource.js';
import { loadMcpSdk, type McpSdk } from './sdk.js';
import { SCHEMA_TOOLS, SchemaTools } from './schemaTools.js';
import { FREEFORM_TOOL, freeformRequest, freeformTool, operationTool, refusalResult, toolResult } from './tools.js';

export { FREEFORM_TOOL } from './tools.js';

const SERVER_INFO = { name: 'federation-gateway', version: '0.1.0' };

/** Options of {@link createMcpEndpoint}. */
export interface McpEndpointOptions {
  services: GatewayServices;
  pipeline: OperationPipeline;
  /** Who each request's client is (trust rules: proxies, routers): its tools' operations count against it. */
  clients: ClientResolver;
  /** How long the key set is not read again for an unknown key id (MCP_AUTH=jwt; tests shorten it). @default 30000 */
  jwksCooldownMs?: number;
}

/**
 * `/mcp`: a Model Context Protocol server (streamable HTTP, stateless: every POST carries its own JSON-RPC request)
 * whose tools are the trusted operations of MCP_OPERATIONS (loaded and validated at start-up: app/trusted.ts), plus
 * `execute_graphql` (MCP_ALLOW_FREEFORM) and the schema tools (MCP_INTROSPECTION). Its callers are checked as MCP_AUTH
 * says (auth.ts); with `jwt` it also serves its OAuth protected-resource metadata (protectedResource.ts).
 */
export function createMcpEndpoint(
  options: McpEndpointOptions,
): (req: IncomingMessage, res: ServerResponse, requestId: string) => Promise<void> {
  const { services, pipeline, clients } = options;
  const { config, log } = services;
  const toolset = services.trusted;
  const operations = toolset.operations.list();
  const scopes = [...new Set(operations.flatMap((op) => op.scopes))].sort();
  const auth = createMcpAuth({ auth: config.mcp.auth, pipeline, scopes, jwksCooldownMs: options.jwksCooldownMs });
  const schemaTools = config.mcp.introspection ? new SchemaTools(services, pipeline) : undefined;
  // The tools depend on the configuration, not on the caller: listed once.
  const tools: Tool[] = [
    ...operations.map((op) => operationTool(toolset.schema, op)),
    ...(config.mcp.allowFreeform ? [freeformTool(config.mcp.allowMutations, !!schemaTools)] : []),
    ...(schemaTools?.tools ?? []),
  ];
  log.info(
    { operations: toolset.operations.dir, tools: tools.map((t) => t.name), auth: auth.mode },
    `mcp: ${tools.length} tools at /mcp (MCP_AUTH=${auth.mode})`,
  );
  if (auth.mode === 'none' && config.apiKeys.length)
    log.warn('mcp: MCP_AUTH=none lets anyone call /mcp, while the other endpoints need one of GATEWAY_API_KEYS');

  return async (req, res, requestId) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== MCP_PATH) return serveMetadata(auth, req, res, path);
    const caller = await auth.authenticate(req);
    if ('status' in caller) return refuse(res, caller, services);
    const draining = pipeline.gate({ authenticated: true });
    if (draining) return refuse(res, { status: refusalStatus(draining), error: draining as GatewayError }, services);
    if (req.method !== 'POST') {
      // Stateless: no server-initiated stream to resume and no session to delete.
      res.setHeader('allow', 'POST');
      return sendJsonRpcError(
        res,
        405,
        McpErrorCode.ConnectionClosed,
        `${req.method} /mcp is not served: send JSON-RPC requests with POST.`,
      );
    }
    const raw = await readBody(req, MAX_BODY_BYTES);
    if (raw === undefined)
      return sendJsonRpcError(
        res,
        413,
        McpErrorCode.InvalidRequest,
        `Request body larger than ${MAX_BODY_BYTES} bytes.`,
      );
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendJsonRpcError(res, 400, McpErrorCode.ParseError, 'The request body is not valid JSON.');
    }
    const lacking = scopeRefusal(auth, req, caller, body, toolset.operations);
    if (lacking) return refuse(res, lacking, services);
    // The client as the trust rules resolve it (its key, a proxy's forwarded address…), with the token's subject when
    // one was verified; field by field, as transports/http/httpCaller.ts (a spread took V8's slow path).
    const client = clients.of(req);
    const call: Caller = {
      apiKey: client.apiKey,
      remoteAddress: client.remoteAddress,
      subject: caller.subject ?? client.subject,
      router: client.router,
      requestId,
      // A bearer token at /mcp is this gateway's, issued for it: never passed on to an upstream (MCP forbids token passthrough).
      authorization: auth.mode === 'jwt' ? undefined : req.headers.authorization,
      authenticated: caller.authenticated,
      transport: 'mcp',
    };
    const sdk = await loadMcpSdk();
    const server = mcpServer(sdk, tools, schemaTools, services, call);
    const transport = new sdk.StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}

/** One MCP server for one HTTP request, bound to that request's caller. */
function mcpServer(
  sdk: McpSdk,
  tools: readonly Tool[],
  schemaTools: SchemaTools | undefined,
  services: GatewayServices,
  call: Caller,
): Server {
  const { Server, CallToolRequestSchema, ListToolsRequestSchema } = sdk;
  const { schema, operations, execute } = services.trusted;
  const { allowMutations, allowFreeform } = services.config.mcp;
  // The low-level server: tool schemas here are JSON Schema derived from GraphQL, not zod shapes.
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: `Tools run named GraphQL operations of this gateway: Microsoft 365 service health, OMDb titles, chat providers.${schemaTools ? ' search, introspect and validate explore its schema.' : ''}`,
  });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools] }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const withSignal = { ...call, signal: extra.signal };
    if (schemaTools && (SCHEMA_TOOLS as readonly string[]).includes(name))
      return schemaTools.call(name as (typeof SCHEMA_TOOLS)[number], args);
    if (allowFreeform && name === FREEFORM_TOOL) {
      const checked = freeformRequest(FREEFORM_TOOL, args, allowMutations);
      if ('extensions' in checked) return refusal(checked, services, call, name);
      return toolResult(await execute(checked, checked.variables ?? {}, withSignal));
    }
    const op = operations.get(name);
    if (!op) {
      // A plain error with a JSON-RPC code: the SDK client puts "MCP error -32602:" before the message once.
      throw Object.assign(
        new Error(`Unknown tool ${JSON.stringify(name)}; this server offers ${tools.map((t) => t.name).join(', ')}.`),
        { code: McpErrorCode.InvalidParams },
      );
    }
    const variables = checkArguments(schema, op, args);
    if ('extensions' in variables) return refusal(variables as GatewayError, services, call, name);
    return toolResult(await execute(op, variables, withSignal));
  });
  return server;
}

/** A call refused before it ran, as a tool error the model can read and correct (and one log line). */
function refusal(error: GatewayError, services: GatewayServices, call: Caller, tool: string): CallToolResult {
  const [formatted] = services.formatErrors([error]);
  services.log.info(
    { requestId: call.requestId, tool, code: formatted.extensions?.code, transport: call.transport },
    'mcp tool refused',
  );
  return refusalResult(formatted);
}

/**
 * 403 `insufficient_scope` for a `tools/call` (alone or in a batch) of an operation whose `@scope` the caller's token
 * lacks: HTTP, not a tool error, so the client can ask for a token with more scopes (MCP's step-up authorization).
 */
function scopeRefusal(
  auth: McpAuth,
  req: IncomingMessage,
  caller: McpCaller,
  body: unknown,
  operations: GatewayServices['trusted']['operations'],
): McpRefusal | undefined {
  if (auth.mode !== 'jwt') return undefined;
  for (const message of Array.isArray(body) ? body : [body]) {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
    const op = operations.get(params.name);
    const refused = op?.scopes.length ? auth.scopeRefusal(req, caller, op.name, op.scopes) : undefined;
    if (refused) return refused;
  }
  return undefined;
}

/** The protected-resource metadata (RFC 9728), public and readable cross-origin; nothing when /mcp takes no tokens. */
function serveMetadata(auth: McpAuth, req: IncomingMessage, res: ServerResponse, path: string): void {
  const resource = auth.resource(req);
  if (!resource)
    return sendJson(res, 404, { error: `nothing at ${path}: /mcp takes no OAuth tokens (MCP_AUTH=${auth.mode})` });
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET',
    'access-control-allow-headers': 'mcp-protocol-version',
  };
  if (req.method === 'OPTIONS') {
    res.writeHead(204, cors);
    return void res.end();
  }
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return sendJson(res, 405, { error: `${req.method} ${path}: read it with GET` }, { allow: 'GET, HEAD' });
  sendJson(res, 200, resource.metadata, { ...cors, 'cache-control': 'public, max-age=3600', vary: 'host' });
}

/** A refusal before the JSON-RPC message is read: its status, its challenge, and the error as the formatter words it. */
function refuse(res: ServerResponse, refusal: McpRefusal, services: GatewayServices): void {
  const [formatted] = services.formatErrors([refusal.error]);
  if (refusal.challenge) res.setHeader('www-authenticate', refusal.challenge);
  sendJsonRpcError(res, refusal.status, McpErrorCode.InvalidRequest, formatted.message, formatted.extensions);
}
