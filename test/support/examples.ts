import { Kind, parse, print, type OperationDefinitionNode } from 'graphql';
import { graphiqlExamples } from '../../src/domains/index.js';
import type { GraphiqlExample } from '../../src/domains/graphiqlExample.js';

/** One operation of a GraphiQL tab, as GraphiQL's Run button sends it when that operation is picked. */
export interface ExampleOperation {
  name: string;
  type: 'query' | 'mutation' | 'subscription';
  /** The operation alone (a tab's document may hold several). */
  query: string;
  /** The tab's variables this operation declares. */
  variables?: Record<string, unknown>;
  /** The tab it belongs to. */
  tab: GraphiqlExample;
}

/** Every operation of every GraphiQL tab, in the order the tabs and their documents list them. */
export function exampleOperations(examples: readonly GraphiqlExample[] = graphiqlExamples): ExampleOperation[] {
  return examples.flatMap((tab) => {
    const all = tab.variables ? (JSON.parse(tab.variables) as Record<string, unknown>) : {};
    return parse(tab.query)
      .definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
      .map((op) => {
        const declared = (op.variableDefinitions ?? []).map((v) => v.variable.name.value);
        const variables = Object.fromEntries(declared.filter((name) => name in all).map((name) => [name, all[name]]));
        return {
          name: op.name!.value,
          type: op.operation,
          query: print(op),
          ...(declared.length ? { variables } : {}),
          tab,
        };
      });
  });
}

/** The example operation named `name`; throws naming the ones there are when there is none. */
export function exampleOperation(
  name: string,
  examples: readonly GraphiqlExample[] = graphiqlExamples,
): ExampleOperation {
  const all = exampleOperations(examples);
  const found = all.find((op) => op.name === name);
  if (!found)
    throw new Error(`no GraphiQL example operation ${name}; there are ${all.map((op) => op.name).join(', ')}`);
  return found;
}
