import { buildSchema, getArgumentValues, Kind, parse, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { argumentsOf } from '../../src/planning/arguments.js';

const schema = buildSchema(`
  enum Plot { SHORT FULL }
  input Range { from: Int!, to: Int }
  type Query {
    title(imdbId: ID!, plot: Plot = SHORT, year: Int, range: Range, tags: [String!]): String
  }
`);
const def = schema.getQueryType()!.getFields().title;

function field(query: string): FieldNode {
  const op = parse(query).definitions[0] as OperationDefinitionNode;
  return op.selectionSet.selections[0] as FieldNode;
}

/** argumentsOf's answer, or its error's message, beside graphql-js's own for the same node and variables. */
function both(node: FieldNode, variables: Record<string, unknown>) {
  const run = (f: () => unknown) => {
    try {
      return { value: f() };
    } catch (e) {
      return { error: (e as Error).message };
    }
  };
  return {
    ours: run(() => argumentsOf(def, node, variables)),
    graphql: run(() => getArgumentValues(def, node, variables)),
  };
}

describe('argumentsOf: a field node’s arguments with the document’s part read once', () => {
  const cases: Array<[string, string, Record<string, unknown>[]]> = [
    [
      'variables',
      'query($id: ID!, $y: Int) { title(imdbId: $id, year: $y) }',
      [{ id: 'tt1' }, { id: 'tt2', y: 1999 }, { id: 'tt3', y: null }],
    ],
    ['literals and defaults', 'query { title(imdbId: "tt9", plot: FULL, range: { from: 1 }, tags: ["a"]) }', [{}]],
    [
      'a variable missing, the argument’s default',
      'query($p: Plot) { title(imdbId: "tt1", plot: $p) }',
      [{}, { p: 'FULL' }],
    ],
    ['a null for a non-null argument', 'query($id: ID) { title(imdbId: $id) }', [{ id: null }, {}]],
    ['a required argument left out', 'query { title(year: 3) }', [{}]],
    [
      'a literal holding a variable',
      'query($f: Int!) { title(imdbId: "x", range: { from: $f }, tags: ["a", "b"]) }',
      [{ f: 1 }, { f: 2 }],
    ],
    ['a null literal', 'query { title(imdbId: "x", year: null) }', [{}]],
  ];
  for (const [name, query, variableSets] of cases)
    it(`gives what getArgumentValues gives: ${name}`, () => {
      const node = field(query);
      // Twice over: the second round reads the node's plan made by the first.
      for (const round of [1, 2])
        for (const variables of variableSets) {
          const { ours, graphql } = both(node, variables);
          expect(ours, `round ${round}, ${JSON.stringify(variables)}`).toEqual(graphql);
        }
    });

  it('reads each operation’s own variables, not the first one’s', () => {
    const node = field('query($id: ID!) { title(imdbId: $id) }');
    expect(argumentsOf(def, node, { id: 'tt1' })).toEqual({ imdbId: 'tt1', plot: 'SHORT' });
    expect(argumentsOf(def, node, { id: 'tt2' })).toEqual({ imdbId: 'tt2', plot: 'SHORT' });
  });

  it('plans again for another definition of the same node (another schema)', () => {
    const other = buildSchema('type Query { title(imdbId: ID!, extra: Int = 7): String }')
      .getQueryType()!
      .getFields().title;
    const node = field('query { title(imdbId: "a") }');
    expect(argumentsOf(def, node, {})).toEqual({ imdbId: 'a', plot: 'SHORT' });
    expect(argumentsOf(other, node, {})).toEqual({ imdbId: 'a', extra: 7 });
    expect(node.kind).toBe(Kind.FIELD);
  });
});
