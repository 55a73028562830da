import {
  getOperationAST,
  getVariableValues,
  GraphQLScalarType,
  GraphQLSchema,
  Kind,
  type DocumentNode,
  type OperationDefinitionNode,
  type TypeNode,
  type VariableDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { perOperation } from './perOperation.js';

/*
 * A subscription's compiled per-event selection, with its variables coerced once per subscription instead of once
 * per event. graphql-jit's compiled query coerces every variable on every call: for a chat stream that is the whole
 * chat input (messages, tools, options) copied again for every token, ~1 KB of garbage each. Its generated selection
 * only reads the coerced values, so each document is compiled a second time with every variable declared as
 * `PreCoerced`, a scalar whose parsing is the identity, and each subscription passes the values graphql-js coerced
 * once when it started. `Boolean` variables keep their type: graphql-jit checks it where they steer `@skip` and
 * `@include`, and coercing a boolean allocates nothing.
 */

/** Identity: the value is already what graphql-js's coercion made of the caller's input. */
const preCoerced = new GraphQLScalarType({
  name: 'GatewayPreCoercedVariable',
  description: 'Internal to per-event subscription execution; never part of the served schema.',
  parseValue: (value) => value,
});

/** A subscription document's per-event selection and the variables each of its subscriptions passes it. */
export interface EventSelection {
  query: CompiledQuery;
  /**
   * The values to run `query` with for a subscription started with `raw`: when the document has variables, `coerced`
   * (the caller's coercion of `raw`, as graphql-js coerces: the pipeline's operationInputs rule made it) or else
   * graphql-js's coercion made here, which `createSourceEventStream` already checked; `raw` itself otherwise.
   */
  variables(
    raw: Record<string, unknown> | null | undefined,
    coerced?: Record<string, unknown>,
  ): Record<string, unknown>;
}

const noVariables: Record<string, unknown> = Object.freeze({});

/**
 * Each document's per-event selection by operation name, compiled on first use (perOperation.ts); null when
 * graphql-jit cannot compile it, then the caller runs graphql-js `subscribe`.
 */
export function eventSelections(
  schema: GraphQLSchema,
): (document: DocumentNode, operationName: string | null) => EventSelection | null {
  let withPreCoerced: GraphQLSchema | null | undefined;
  return perOperation((document, operationName) => {
    const operation = getOperationAST(document, operationName);
    if (operation && operation.variableDefinitions?.length) {
      withPreCoerced ??= schemaWithPreCoerced(schema);
      return withPreCoerced && coercedOnce(schema, withPreCoerced, document, operation);
    }
    const query = compileQuery(schema, document, operationName ?? undefined);
    return isCompiledQuery(query) ? { query, variables: (raw) => raw ?? noVariables } : null;
  });
}

/** The same schema (the same type objects, so the same resolvers) with the `PreCoerced` scalar; null on a name clash. */
function schemaWithPreCoerced(schema: GraphQLSchema): GraphQLSchema | null {
  if (schema.getType(preCoerced.name)) return null;
  const config = schema.toConfig();
  return new GraphQLSchema({ ...config, types: [...config.types, preCoerced], assumeValid: true });
}

const keepsItsType = (type: TypeNode): boolean =>
  (type.kind === Kind.NON_NULL_TYPE ? type.type : type).kind === Kind.NAMED_TYPE &&
  ((type.kind === Kind.NON_NULL_TYPE ? type.type : type) as { name: { value: string } }).name.value === 'Boolean';

function coercedOnce(
  schema: GraphQLSchema,
  withPreCoerced: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): EventSelection | null {
  const definitions = operation.variableDefinitions!;
  const rewritten: OperationDefinitionNode = {
    ...operation,
    variableDefinitions: definitions.map((definition): VariableDefinitionNode =>
      keepsItsType(definition.type)
        ? definition
        : {
            kind: Kind.VARIABLE_DEFINITION,
            variable: definition.variable,
            type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: preCoerced.name } },
          },
    ),
  };
  const query = compileQuery(
    withPreCoerced,
    { ...document, definitions: document.definitions.map((d) => (d === operation ? rewritten : d)) },
    operation.name?.value,
    // Resolvers see the schema and operation they were served, not the compiled stand-ins.
    { resolverInfoEnricher: () => ({ schema, operation }) },
  );
  if (!isCompiledQuery(query)) return null;
  return {
    query,
    variables(raw, coerced) {
      if (coerced) return coerced;
      const result = getVariableValues(schema, definitions, raw ?? {});
      // createSourceEventStream refused these variables already, with the same words; a value left out is absent.
      return result.coerced ?? noVariables;
    },
  };
}
