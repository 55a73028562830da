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

/** The trusted operations (MCP_OPERATIONS, or the shipped folder), loaded and validated at start-up so a bad file stops it. */
export function loadTrustedOperations(schema: GraphQLSchema, config: GatewayConfig): TrustedOperations {
  const { mcp } = config;
  // The shipped folder, validated once per schema and process (schema/build.ts says why a process starts many
  // gateways); a folder of the operator's is read at each start.
  if (!mcp.operationsDir) {
    const key = `${mcp.allowMutations}:${config.domains.join()}`;
    let bySchema = shipped.get(schema);
    if (!bySchema) shipped.set(schema, (bySchema = new Map()));
    let operations = bySchema.get(key);
    if (!operations) bySchema.set(key, (operations = load(schema, config)));
    return operations;
  }
  return load(schema, config);
}
const shipped = new WeakMap<GraphQLSchema, Map<string, TrustedOperations>>();

function load(schema: GraphQLSchema, config: GatewayConfig): TrustedOperations {
  const { mcp } = config;
  return TrustedOperations.load(schema, {
    dir: mcp.operationsDir,
    allowMutations: mcp.allowMutations,
    // The shipped folder has files for every domain; a gateway serving some of them offers those domains' tools.
    skipInvalidFiles: !mcp.operationsDir && config.domains.length < GATEWAY_DOMAINS.length,
    servedDocument: (document) => renameTypes(document, servedNames(schema)),
  });
}

/**
 * The trusted operations made runnable through the pipeline's in-process entry, with each operation's estimate.
 * Each call enters the pipeline there, so trusted operations pass the same rules as any other operation: the API
 * key, document limits, the upstream-request budget and quota guards, one context and span per call, contract error
 * codes with production masking, one `operation` log line and the metrics.
 *
 * The pipeline runs them (for /mcp and chat graph tools) and they run through the pipeline: `pipeline()` and
 * `estimates()` are read at call time, never while the gateway is being built, so the two are tied without a
 * placeholder. An operation's estimate is computed on its first use and kept.
 */
export function createTrustedToolset(input: {
  schema: GraphQLSchema;
  operations: TrustedOperations;
  pipeline: () => InProcessTransport;
  estimates: () => UpstreamEstimates;
}): TrustedToolset {
  const { schema, operations } = input;
  const execute: ExecuteTrusted = async (trusted, variables, caller, signal) => {
    const result = await input
      .pipeline()
      .execute({ query: trusted.query, operationName: trusted.name, variables }, { ...caller, signal });
    if (!result.errors?.length) return { data: result.data as Record<string, unknown> | null | undefined };
    const errors = trusted.document
      ? namedByToolArguments(result.errors, trusted.document, trusted.name)
      : result.errors;
    return { data: result.data as Record<string, unknown> | null | undefined, errors };
  };
  const known = new Map<string, Readonly<Record<string, number>>>();
  const estimateOf = (name: string): Readonly<Record<string, number>> | undefined => {
    if (known.has(name)) return known.get(name);
    const op = operations.get(name);
    if (!op) return undefined;
    // While it is estimated (a graph tool naming itself), it counts nothing, as an operation not yet known.
    known.set(name, {});
    const estimate = input
      .estimates()
      .of(operationShape(schema, parse(op.query), op.operation, placeholderVariables(schema, op)));
    known.set(name, estimate);
    return estimate;
  };
  return {
    schema,
    operations,
    execute,
    estimates: { get: estimateOf },
    upstreamRequests: (document, operation, variables) =>
      input.estimates().of(operationShape(schema, document, operation, variables)),
  };
}
