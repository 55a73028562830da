import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { getOperationAST, Kind, parse, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { badInput, type GatewayError } from '../../errors/codes.js';
import { domainOf } from '../../schema/domains.js';
import type { TrustedResult } from '../../trusted/execute.js';
import type { TrustedOperation } from '../../trusted/operations.js';
import type { JsonSchema } from '../../trusted/variablesSchema.js';

/** The tool MCP_ALLOW_FREEFORM adds: any query (mutations only with MCP_ALLOW_MUTATIONS) through the same rules. */
export const FREEFORM_TOOL = 'execute_graphql';

/** A GraphQL error as every tool's result carries it (the formatter's output). */
export const ERRORS_SCHEMA: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      message: { type: 'string' },
      locations: {
        type: 'array',
        items: { type: 'object', properties: { line: { type: 'integer' }, column: { type: 'integer' } } },
      },
      path: { type: 'array', items: { type: ['string', 'integer'] } },
      extensions: {
        type: 'object',
        properties: {
          code: { type: 'string' },
          argument: { type: 'string', description: 'The tool argument at fault, by name.' },
        },
      },
    },
    required: ['message'],
  },
};

/**
 * A tool's result schema: GraphQL's answer, `data` as its operation selects it (or null when it did not run) and the
 * errors. Any answer with errors is a tool error (`isError`), partial data or not.
 */
export function resultSchema(data: JsonSchema): Tool['outputSchema'] {
  return {
    type: 'object',
    properties: { data: { anyOf: [data, { type: 'null' }] }, errors: ERRORS_SCHEMA },
    required: ['data'],
    additionalProperties: false,
  };
}

/** A trusted operation as a tool: its comment, the JSON Schemas of its variables and of its answer, its hints. */
export function operationTool(schema: GraphQLSchema, op: TrustedOperation): Tool {
  return {
    name: op.name,
    description: op.description,
    inputSchema: op.inputSchema as Tool['inputSchema'],
    outputSchema: resultSchema(op.outputSchema),
    annotations: operationAnnotations(schema, op),
  };
}

/** Mutation fields that only add (a new object, a completion, an image): any other write may change or remove. */
const ADDITIVE = /^(create|upload|generate)/;
/** Mutation fields whose repetition leaves the graph as one call does. */
const IDEMPOTENT = /^(update|delete|set)/;

/**
 * The hints a client shows its user before a call, from the operation: a query reads (idempotent); a mutation is
 * destructive unless each of its fields only adds (`create…`, `upload…`, `generate…`), idempotent when each sets or
 * deletes. It reaches the open world when a root field belongs to a domain (whose data lives upstream: Microsoft
 * Graph, OMDb, the chat providers); the gateway's own fields (`upstreams`, `serverTime`) do not.
 */
export function operationAnnotations(schema: GraphQLSchema, op: TrustedOperation): ToolAnnotations {
  const root = op.type === 'mutation' ? 'Mutation' : 'Query';
  const fields = op.operation.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []));
  // An upstream service answers (the open world): any root field of a domain but the gateway's own.
  const openWorldHint = fields.some((f) => {
    const domain = domainOf(schema, `${root}.${f}`);
    return domain !== undefined && domain !== 'gateway';
  });
  if (op.type === 'query') return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint };
  return {
    readOnlyHint: false,
    destructiveHint: !fields.every((f) => ADDITIVE.test(f)),
    idempotentHint: fields.every((f) => IDEMPOTENT.test(f)),
    openWorldHint,
  };
}

/** `execute_graphql`: any query (and mutation with MCP_ALLOW_MUTATIONS), its answer's data of any shape. */
export function freeformTool(allowMutations: boolean, introspection: boolean): Tool {
  const find = introspection
    ? ' Find fields with `search` and `introspect`, and check a query with `validate` before running it.'
    : '';
  return {
    name: FREEFORM_TOOL,
    description: `Runs any GraphQL ${allowMutations ? 'query or mutation' : 'query'} against this gateway's graph, through the same limits as any client.${find}`,
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
    outputSchema: resultSchema({ type: 'object' }),
    annotations: {
      readOnlyHint: !allowMutations,
      destructiveHint: allowMutations,
      idempotentHint: !allowMutations,
      openWorldHint: true,
    },
  };
}

/** A free-form request (execute_graphql's and validate's arguments): checked, or the argument at fault. */
export interface FreeformRequest {
  query: string;
  name?: string;
  variables?: Record<string, unknown>;
}

export function freeformRequest(
  tool: string,
  args: Record<string, unknown> | undefined,
  allowMutations: boolean,
): FreeformRequest | GatewayError {
  const { query, variables, operationName } = args ?? {};
  const unknown = Object.keys(args ?? {}).find((k) => !['query', 'variables', 'operationName'].includes(k));
  if (unknown !== undefined)
    return badInput(
      `${tool} has no argument ${JSON.stringify(unknown)}; it takes query, variables, operationName.`,
      unknown,
    );
  if (typeof query !== 'string') return badInput(`${tool} needs "query", a GraphQL document as a string.`, 'query');
  if (variables !== undefined && (typeof variables !== 'object' || variables === null || Array.isArray(variables))) {
    return badInput(`${tool}: "variables" must be a JSON object.`, 'variables');
  }
  if (operationName !== undefined && typeof operationName !== 'string')
    return badInput(`${tool}: "operationName" must be a string.`, 'operationName');
  let type: string | undefined;
  try {
    type = getOperationAST(parse(query), operationName)?.operation;
  } catch {
    type = undefined; // the pipeline reports the syntax error
  }
  if (type === 'subscription')
    return badInput(
      `${FREEFORM_TOOL} runs queries${allowMutations ? ' and mutations' : ''}, not subscriptions.`,
      'query',
    );
  if (type === 'mutation' && !allowMutations)
    return badInput(`${FREEFORM_TOOL} runs queries only: mutations need MCP_ALLOW_MUTATIONS.`, 'query');
  return {
    query,
    name: operationName as string | undefined,
    variables: variables as Record<string, unknown> | undefined,
  };
}

/**
 * An operation's answer as a tool result: structured content (data and errors, as GraphQL over HTTP answers) and the
 * same JSON as text. Any error means some data asked for is missing, so the result is a tool error.
 */
export function toolResult(result: TrustedResult): CallToolResult {
  const structured = { data: result.data ?? null, ...(result.errors?.length ? { errors: result.errors } : {}) };
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
    isError: !!result.errors?.length,
  };
}

/** A call refused before it ran (already formatted), as a tool error the model can read and correct. */
export function refusalResult(formatted: GraphQLFormattedError): CallToolResult {
  return {
    content: [{ type: 'text', text: formatted.message }],
    structuredContent: { data: null, errors: [formatted] },
    isError: true,
  };
}
