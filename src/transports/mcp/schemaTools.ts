import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { getOperationAST, getVariableValues, GraphQLError, print, type GraphQLFormattedError } from 'graphql';
import type { GatewayServices } from '../../context/services.js';
import { badInput, ErrorReason, type GatewayError } from '../../errors/codes.js';
import { requestError } from '../../pipeline/documentCache.js';
import type { OperationPipeline } from '../../pipeline/index.js';
import { budgetRefusal } from '../../planning/upstreamEstimate.js';
import type { JsonSchema } from '../../trusted/variablesSchema.js';
import { SchemaIndex } from './schemaIndex.js';
import { ERRORS_SCHEMA, FREEFORM_TOOL, freeformRequest } from './tools.js';

/** The tools MCP_INTROSPECTION adds. */
export const SCHEMA_TOOLS = ['introspect', 'search', 'validate'] as const;

/** Deepest `introspect` goes: three levels of referenced types already hold most of this graph. */
const MAX_DEPTH = 3;
/** Most results one `search` returns, and most words it takes. */
const MAX_RESULTS = 50;
const MAX_TERMS = 10;

/** They read the schema only: no upstream, no change, the same answer every time. */
const LOOKUP: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * `introspect`, `search` and `validate` (MCP_INTROSPECTION): what an agent needs to write its own query for
 * `execute_graphql` (MCP_ALLOW_FREEFORM). They read the served schema as a client sees it (schemaIndex.ts), each within
 * a bound (a depth, a number of results), and `validate` checks a query exactly as the pipeline would admit it: the
 * persisted-operation manifest, the document limits, schema validation, the operation's variables and the
 * upstream-request budget. Nothing runs, so no upstream request is made.
 */
export class SchemaTools {
  private readonly index: SchemaIndex;
  readonly tools: Tool[];

  constructor(
    private readonly services: GatewayServices,
    private readonly pipeline: OperationPipeline,
  ) {
    const { allowMutations, allowFreeform } = services.config.mcp;
    this.index = new SchemaIndex(pipeline.schema, { mutations: allowMutations });
    const run = allowFreeform ? ` Then run it with ${FREEFORM_TOOL}.` : '';
    this.tools = [
      {
        name: 'introspect',
        description: `A type of this gateway's GraphQL schema as SDL, with the types its fields and arguments name, to a depth. Start at Query${allowMutations ? ' (or Mutation)' : ''} and follow field types; use search to find a type by words.`,
        inputSchema: {
          type: 'object',
          properties: {
            type: { type: 'string', description: "The type's name, such as Query or ServiceHealthIssue." },
            depth: {
              type: 'integer',
              minimum: 0,
              maximum: MAX_DEPTH,
              default: 1,
              description: `Levels of referenced types to include (0: the type alone; at most ${MAX_DEPTH}).`,
            },
          },
          required: ['type'],
          additionalProperties: false,
        },
        outputSchema: answerOrErrors({ types: { type: 'array', items: { type: 'string' } }, sdl: { type: 'string' } }, [
          'types',
          'sdl',
        ]),
        annotations: LOOKUP,
      },
      {
        name: 'search',
        description: `Finds types, fields, arguments and enum values of this gateway's GraphQL schema by words (of their names first, then of their descriptions), best first. Each field comes with its type, arguments and its path from the query root, ready to write a query; check it with validate.${run}`,
        inputSchema: {
          type: 'object',
          properties: {
            terms: {
              type: 'array',
              items: { type: 'string' },
              minItems: 1,
              maxItems: MAX_TERMS,
              description: 'Words to look for, such as ["impact", "issue"].',
            },
            limit: { type: 'integer', minimum: 1, maximum: MAX_RESULTS, default: 10, description: 'How many results.' },
          },
          required: ['terms'],
          additionalProperties: false,
        },
        outputSchema: answerOrErrors(
          {
            results: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  coordinate: { type: 'string' },
                  kind: { type: 'string' },
                  type: { type: 'string' },
                  arguments: { type: 'string' },
                  description: { type: 'string' },
                  path: { type: 'string' },
                  score: { type: 'number' },
                },
                required: ['coordinate', 'kind', 'score'],
              },
            },
          },
          ['results'],
        ),
        annotations: LOOKUP,
      },
      {
        name: 'validate',
        description: `Checks a GraphQL query against this gateway's schema and limits (size, depth, cost, upstream-request budget${allowMutations ? '' : ', queries only'}) without running it: valid, or the errors to fix, each with its code.${run}`,
        inputSchema: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'The GraphQL document.' },
            variables: { type: 'object', description: 'Its variables, to check them too.' },
            operationName: { type: 'string', description: 'Which operation of the document, when it has several.' },
          },
          required: ['query'],
          additionalProperties: false,
        },
        outputSchema: {
          type: 'object',
          properties: {
            valid: { type: 'boolean' },
            operation: { type: 'object', properties: { name: { type: ['string', 'null'] }, type: { type: 'string' } } },
            variables: {
              type: 'array',
              items: {
                type: 'object',
                properties: { name: { type: 'string' }, type: { type: 'string' }, required: { type: 'boolean' } },
              },
            },
            upstreamRequests: {
              type: 'object',
              additionalProperties: { type: 'integer' },
              description: 'Upstream requests it can cause, by upstream.',
            },
            errors: ERRORS_SCHEMA,
          },
          required: ['valid'],
          additionalProperties: false,
        },
        annotations: LOOKUP,
      },
    ];
  }

  /** The result of one of {@link SCHEMA_TOOLS}, or of a refused call (a tool error naming the argument at fault). */
  call(name: (typeof SCHEMA_TOOLS)[number], args: Record<string, unknown> | undefined): CallToolResult {
    switch (name) {
      case 'introspect':
        return this.introspect(args ?? {});
      case 'search':
        return this.search(args ?? {});
      case 'validate':
        return this.validate(args ?? {});
    }
  }

  private introspect(args: Record<string, unknown>): CallToolResult {
    const unknown = unknownArgument('introspect', args, ['type', 'depth']);
    if (unknown) return this.refused(unknown);
    const { type, depth = 1 } = args;
    if (typeof type !== 'string' || !type)
      return this.refused(badInput('introspect needs "type", the name of a type such as Query.', 'type'));
    if (!Number.isInteger(depth) || (depth as number) < 0 || (depth as number) > MAX_DEPTH) {
      return this.refused(
        badInput(`introspect: depth ${JSON.stringify(depth)} is out of range; give 0 to ${MAX_DEPTH}.`, 'depth'),
      );
    }
    const found = this.index.introspect(type, depth as number);
    if (!found) {
      const near = this.index.search([type], 3).map((h) => h.coordinate.split('.')[0]);
      const hint = near.length
        ? ` Did you mean ${[...new Set(near)].join(', ')}?`
        : ' Use search to find one by words.';
      return this.refused(badInput(`The schema has no type ${JSON.stringify(type)}.${hint}`, 'type'));
    }
    return { content: [{ type: 'text', text: found.sdl }], structuredContent: found, isError: false };
  }

  private search(args: Record<string, unknown>): CallToolResult {
    const unknown = unknownArgument('search', args, ['terms', 'limit']);
    if (unknown) return this.refused(unknown);
    const { terms, limit = 10 } = args;
    if (
      !Array.isArray(terms) ||
      !terms.length ||
      terms.length > MAX_TERMS ||
      terms.some((t) => typeof t !== 'string' || t.length > 100)
    ) {
      return this.refused(
        badInput(
          `search needs "terms", 1 to ${MAX_TERMS} words (each at most 100 characters), such as ["impact", "issue"].`,
          'terms',
        ),
      );
    }
    if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_RESULTS) {
      return this.refused(
        badInput(`search: limit ${JSON.stringify(limit)} is out of range; give 1 to ${MAX_RESULTS}.`, 'limit'),
      );
    }
    const results = this.index.search(terms as string[], limit as number);
    const text = results.length
      ? results
          .map(
            (r) =>
              `${r.coordinate} (${r.kind}${r.type ? `: ${r.type}` : ''})${r.path ? ` at ${r.path}` : ''}${r.description ? ` — ${r.description}` : ''}`,
          )
          .join('\n')
      : `Nothing in the schema matches ${terms.map((t) => JSON.stringify(t)).join(', ')}. Try other words, or introspect Query.`;
    return { content: [{ type: 'text', text }], structuredContent: { results }, isError: false };
  }

  private validate(args: Record<string, unknown>): CallToolResult {
    const { allowMutations } = this.services.config.mcp;
    const request = freeformRequest('validate', args, allowMutations);
    if ('extensions' in request) return this.invalid([request]);
    const prepared = this.pipeline.prepare({
      query: request.query,
      operationName: request.name,
      variables: request.variables,
    });
    if (prepared instanceof GraphQLError) return this.invalid([prepared]);
    const checked = this.pipeline.documents.checked(prepared.query ?? request.query);
    if (Array.isArray(checked)) return this.invalid(checked);
    const operation = getOperationAST(checked, request.name);
    if (!operation) {
      const which = request.name
        ? `no operation named ${JSON.stringify(request.name)}`
        : 'several operations and no operationName';
      return this.invalid([
        requestError(
          new GraphQLError(`The document has ${which}: say which to run in "operationName".`),
          ErrorReason.OperationResolutionFailure,
        ),
      ]);
    }
    const definitions = operation.variableDefinitions ?? [];
    const variables = definitions.map((d) => ({
      name: d.variable.name.value,
      type: print(d.type),
      required: d.type.kind === 'NonNullType' && !d.defaultValue,
    }));
    let values: Record<string, unknown> = {};
    if (request.variables) {
      const coerced = getVariableValues(this.pipeline.schema, definitions, request.variables, { maxErrors: 5 });
      if (coerced.errors) return this.invalid(coerced.errors.map((e) => badInput(e.message, 'variables')));
      values = coerced.coerced;
    }
    const upstreamRequests = this.services.trusted.upstreamRequests(checked, operation, values);
    const overBudget = budgetRefusal({ ...upstreamRequests }, this.services.config.limits.maxUpstreamRequests);
    if (overBudget) return this.invalid([overBudget]);
    const answer = {
      valid: true,
      operation: { name: operation.name?.value ?? null, type: operation.operation },
      variables,
      upstreamRequests,
    };
    const needs = variables
      .filter((v) => v.required && !(request.variables && v.name in request.variables))
      .map((v) => v.name);
    const text = `Valid ${operation.operation}${operation.name ? ` ${operation.name.value}` : ''}; it can cause ${describe(upstreamRequests)}.${needs.length ? ` Give ${needs.join(', ')} in variables to run it.` : ''}`;
    return { content: [{ type: 'text', text }], structuredContent: answer, isError: false };
  }

  private invalid(errors: readonly GraphQLError[]): CallToolResult {
    const formatted = this.services.formatErrors(errors);
    return {
      content: [{ type: 'text', text: formatted.map((e) => e.message).join('\n') }],
      structuredContent: { valid: false, errors: formatted },
      isError: true,
    };
  }

  private refused(error: GatewayError): CallToolResult {
    const formatted: GraphQLFormattedError[] = this.services.formatErrors([error]);
    return {
      content: [{ type: 'text', text: formatted[0].message }],
      structuredContent: { errors: formatted },
      isError: true,
    };
  }
}

function unknownArgument(
  tool: string,
  args: Record<string, unknown>,
  known: readonly string[],
): GatewayError | undefined {
  const unknown = Object.keys(args).find((k) => !known.includes(k));
  return unknown === undefined
    ? undefined
    : badInput(`${tool} has no argument ${JSON.stringify(unknown)}; it takes ${known.join(', ')}.`, unknown);
}

/** A lookup's result schema: its answer, or (a refused call) the errors alone. */
function answerOrErrors(properties: Record<string, JsonSchema>, required: string[]): Tool['outputSchema'] {
  return {
    type: 'object',
    properties: { ...properties, errors: ERRORS_SCHEMA },
    anyOf: [{ required }, { required: ['errors'] }],
    additionalProperties: false,
  };
}

function describe(upstreamRequests: Readonly<Record<string, number>>): string {
  const parts = Object.entries(upstreamRequests)
    .filter(([, n]) => n > 0)
    .map(([upstream, n]) => `${n} ${upstream} request${n === 1 ? '' : 's'}`);
  return parts.length ? parts.join(' and ') : 'no upstream request';
}
