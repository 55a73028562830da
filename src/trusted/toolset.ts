import { getVariableValues, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { ExecuteTrusted } from './execute.js';
import type { TrustedOperation, TrustedOperations } from './operations.js';

/**
 * The trusted operations of this gateway and the way to run one: the /mcp endpoint offers them as tools and chat
 * graph tools let a model call them. Built once at start-up (app/trusted.ts, app/gatewayCore.ts) and passed to both as a service.
 */
export interface TrustedToolset {
  schema: GraphQLSchema;
  operations: TrustedOperations;
  /** Runs one through the operation pipeline's in-process entry, with its caller's credentials. */
  execute: ExecuteTrusted;
  /** Upstream requests one call of each operation can cause with its default variables, by upstream (the budget's view). */
  estimates: Pick<ReadonlyMap<string, Readonly<Record<string, number>>>, 'get'>;
  /** Upstream requests any operation can cause, by upstream: the estimate GATEWAY_MAX_UPSTREAM_REQUESTS judges. */
  upstreamRequests(
    document: DocumentNode,
    operation: OperationDefinitionNode,
    variables: Record<string, unknown>,
  ): Readonly<Record<string, number>>;
}

/**
 * An operation's default variables with a placeholder for each required scalar or enum: what an id or a search text
 * is does not change how many upstream requests a call makes, so these stand for any call in an estimate.
 */
export function placeholderVariables(schema: GraphQLSchema, op: TrustedOperation): Record<string, unknown> {
  const properties = (op.inputSchema.properties ?? {}) as Record<string, { type?: string; enum?: unknown[] }>;
  const placeholders = Object.fromEntries(
    ((op.inputSchema.required ?? []) as string[]).map((name) => {
      const p = properties[name];
      return [
        name,
        p.enum?.[0] ??
          (p.type === 'integer' || p.type === 'number'
            ? 1
            : p.type === 'boolean'
              ? false
              : p.type === 'array'
                ? []
                : p.type === 'object'
                  ? {}
                  : 'placeholder'),
      ];
    }),
  );
  return getVariableValues(schema, op.operation.variableDefinitions ?? [], placeholders).coerced ?? {};
}
