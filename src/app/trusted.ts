import { parse, type GraphQLSchema } from 'graphql';
import { GATEWAY_DOMAINS, type GatewayConfig } from '../config/env.js';
import type { InProcessTransport } from '../transports/inProcess.js';
import { servedNames } from '../planning/servedNames.js';
import { operationShape, type UpstreamEstimates } from '../planning/upstreamEstimate.js';
import { renameTypes } from '../schema/renames.js';
import type { ExecuteTrusted } from '../trusted/execute.js';
import { TrustedOperations } from '../trusted/operations.js';
import { namedByToolArguments } from '../trusted/toolErrors.js';
import { placeholderVariables, type TrustedToolset } from '../trusted/toolset.js';

/**
 * The trusted operations (MCP_OPERATIONS, or the shipped folder), loaded and validated at start-up so a bad file stops
 * it. They run through the pipeline once it exists ({@link bindTrustedToolset}); until then nothing can call them.
 */
export function loadTrustedToolset(schema: GraphQLSchema, config: GatewayConfig): TrustedToolset & { estimates: Map<string, Readonly<Record<string, number>>> } {
  const { mcp } = config;
  const operations = TrustedOperations.load(schema, {
    dir: mcp.operationsDir,
    allowMutations: mcp.allowMutations,
    // The shipped folder has files for every domain; a gateway serving some of them offers those domains' tools.
    skipInvalidFiles: !mcp.operationsDir && config.domains.length < GATEWAY_DOMAINS.length,
    servedDocument: (document) => renameTypes(document, servedNames(schema)),
  });
  return { schema, operations, execute: notYetRunnable, estimates: new Map(), upstreamRequests: () => ({}) };
}

/**
 * Makes the toolset runnable through the in-process transport and gives each operation its estimate. Each call enters
 * the pipeline there, so trusted operations pass the same rules as any other operation: the API key, document
 * limits, the upstream-request budget and quota guards, one context and span per call, contract error codes with
 * production masking, one `operation` log line and the metrics.
 */
export function bindTrustedToolset(
  toolset: TrustedToolset & { estimates: Map<string, Readonly<Record<string, number>>> },
  inProcess: InProcessTransport,
  estimates: UpstreamEstimates,
): void {
  const execute: ExecuteTrusted = async (trusted, variables, caller, signal) => {
    const result = await inProcess.execute(
      { query: trusted.query, operationName: trusted.name, variables },
      { ...caller, signal },
    );
    if (!result.errors?.length) return { data: result.data as Record<string, unknown> | null | undefined };
    const errors = trusted.document ? namedByToolArguments(result.errors, trusted.document, trusted.name) : result.errors;
    return { data: result.data as Record<string, unknown> | null | undefined, errors };
  };
  toolset.execute = execute;
  toolset.upstreamRequests = (document, operation, variables) => estimates.of(operationShape(toolset.schema, document, operation, variables));
  for (const op of toolset.operations.list()) {
    toolset.estimates.set(op.name, estimates.of(operationShape(toolset.schema, parse(op.query), op.operation, placeholderVariables(toolset.schema, op))));
  }
}

const notYetRunnable: ExecuteTrusted = () => Promise.reject(new Error('trusted operations run once the pipeline is built'));
