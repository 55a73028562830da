import { buildSchema, parse, type FieldNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { perDocument, VariablesMemo } from '../../src/planning/memo.js';
import { selectedFields, type SelectionContext } from '../../src/planning/selection.js';

const schema = buildSchema('type Query { item(id: ID!): Item } type Item { id: ID! name: String size: Int }');

function fieldOf(text: string): FieldNode {
  const op = parse(text).definitions[0] as OperationDefinitionNode;
  return op.selectionSet.selections[0] as FieldNode;
}

describe('perDocument', () => {
  it('plans a field once per document and variables, and again for other variables, nodes or schema', () => {
    let walks = 0;
    const plan = perDocument((nodes, sc) => {
      walks++;
      return selectedFields(nodes, 'Item', sc).map((f) => f.name);
    });
    const field = fieldOf('query($big: Boolean!) { item(id: "1") { id name size @include(if: $big) } }');
    const sc = (variableValues: Record<string, unknown>, s = schema): SelectionContext => ({
      schema: s,
      fragments: {},
      variableValues,
    });

    expect(plan([field], sc({ big: true }))).toEqual(['id', 'name', 'size']);
    expect(plan([field], sc({ big: true }))).toEqual(['id', 'name', 'size']);
    expect(walks).toBe(1);
    // The variables decide @include: another set is another plan.
    expect(plan([field], sc({ big: false }))).toEqual(['id', 'name']);
    expect(walks).toBe(2);
    // The same text parsed again is another document.
    plan([fieldOf('query($big: Boolean!) { item(id: "1") { id name size @include(if: $big) } }')], sc({ big: true }));
    expect(walks).toBe(3);
    // More nodes for the same response key (merged fields) are another plan.
    plan([field, fieldOf('{ item(id: "1") { size } }')], sc({ big: false }));
    expect(walks).toBe(4);
    // Merged fields of one document: the first node alone and with its twin are two plans, each kept.
    const merged = (parse('{ item(id: "1") { id } item(id: "1") { name } }').definitions[0] as OperationDefinitionNode)
      .selectionSet.selections as FieldNode[];
    expect(plan([merged[0]], sc({}))).toEqual(['id']);
    expect(plan(merged, sc({}))).toEqual(['id', 'name']);
    expect(plan(merged, sc({}))).toEqual(['id', 'name']);
    expect(plan([merged[0]], sc({}))).toEqual(['id']);
    expect(walks).toBe(6);
    // Another schema (another gateway in this process) plans for itself.
    plan(
      [field],
      sc({ big: true }, buildSchema('type Query { item(id: ID!): Item } type Item { id: ID! name: String size: Int }')),
    );
    expect(walks).toBe(7);
  });

  it('plans a field whose walk reads no variable once, whatever the variables; one argument read makes it per variables', () => {
    let walks = 0;
    const names = perDocument((nodes, sc) => {
      walks++;
      return selectedFields(nodes, 'Item', sc).map((f) => f.name);
    });
    const sizes = perDocument((nodes, sc) => {
      walks++;
      return selectedFields(nodes, 'Query', sc).map((f) => String(f.args.id));
    });
    const sc = (variableValues: Record<string, unknown>): SelectionContext => ({
      schema,
      fragments: {},
      variableValues,
    });
    const field = fieldOf('query($id: ID!) { item(id: $id) { id name } }');
    for (const id of ['1', '2', '3']) expect(names([field], sc({ id }))).toEqual(['id', 'name']);
    expect(walks).toBe(1);
    // Reading `item`'s arguments reads `$id`: a plan per id.
    const root = { kind: field.kind, name: field.name, selectionSet: { kind: 'SelectionSet', selections: [field] } };
    expect([sizes([root as never], sc({ id: '1' })), sizes([root as never], sc({ id: '2' }))]).toEqual([['1'], ['2']]);
    expect(sizes([root as never], sc({ id: '1' }))).toEqual(['1']);
    expect(walks).toBe(3);
  });

  it('keeps no plan that failed, and a bounded number of variable sets per field', () => {
    let walks = 0;
    const plan = perDocument((_nodes, sc) => {
      walks++;
      if (sc.variableValues.id === 'bad') throw new Error('bad id');
      return String(sc.variableValues.id);
    });
    const field = fieldOf('query($id: ID!) { item(id: $id) { id } }');
    const sc = (id: string): SelectionContext => ({ schema, fragments: {}, variableValues: { id } });
    expect(() => plan([field], sc('bad'))).toThrow('bad id');
    expect(() => plan([field], sc('bad'))).toThrow('bad id');
    expect(walks).toBe(2);
    for (let i = 0; i < 100; i++) plan([field], sc(String(i)));
    expect(walks).toBe(102);
    plan([field], sc('99'));
    expect(walks).toBe(102);
    plan([field], sc('0'));
    expect(walks).toBe(103);
    // Variables without a JSON form are planned afresh rather than failing.
    expect(plan([field], { schema, fragments: {}, variableValues: { id: 10n } })).toBe('10');
    expect(plan([field], { schema, fragments: {}, variableValues: { id: 10n } })).toBe('10');
    expect(walks).toBe(105);
  });
});

describe('VariablesMemo.watched', () => {
  const node = () => ({});

  it('keeps a value whose computation read no variable for the node alone, whatever the variables', () => {
    const memo = new VariablesMemo<object, string>(8);
    const at = node();
    let runs = 0;
    for (let i = 0; i < 20; i++)
      expect(memo.watched(at, { id: String(i) }, () => `plan ${++runs}`, undefined)).toBe('plan 1');
    expect(runs).toBe(1);
    // `extra` still tells values of one node apart.
    expect(memo.watched(at, { id: '1' }, () => 'other', undefined, 'x')).toBe('other');
  });

  it('hands out a value kept for the node alone (kept), and nothing for one kept per variables', () => {
    const memo = new VariablesMemo<object, string>(8);
    const fixed = node();
    const varying = node();
    expect(memo.kept(fixed)).toBeUndefined();
    memo.watched(fixed, { id: '1' }, () => 'fixed', undefined);
    memo.watched(varying, { id: '1' }, (_c, v) => `id ${String(v!.id)}`, undefined);
    expect(memo.kept(fixed)).toBe('fixed');
    expect(memo.kept(fixed, 'x')).toBeUndefined();
    expect(memo.kept(varying)).toBeUndefined();
  });

  it('keeps it per variables when the computation looked at them in any way', () => {
    const looks: Array<(v: Record<string, unknown> | undefined) => unknown> = [
      (v) => v!.id,
      (v) => 'id' in v!,
      (v) => Object.hasOwn(v!, 'id'),
      (v) => Object.keys(v!).length,
      (v) => JSON.stringify(v),
      (v) => ({ ...v }),
    ];
    for (const look of looks) {
      const memo = new VariablesMemo<object, number>(8);
      const at = node();
      let runs = 0;
      const get = (id: string) =>
        memo.watched(
          at,
          { id },
          (_context, v) => {
            look(v);
            return ++runs;
          },
          undefined,
        );
      expect([get('1'), get('2'), get('1')]).toEqual([1, 2, 1]);
    }
  });

  it("does not take a value found by its variables' key for one that read none", () => {
    const memo = new VariablesMemo<object, string>(8);
    const at = node();
    // Kept by its key through `get` (a computation that reads what it likes).
    memo.get(at, { id: '1' }, () => 'by key');
    expect(memo.watched(at, { id: '1' }, () => 'never', undefined)).toBe('by key');
    // Found by the key, not computed: nothing says it reads no variable, so other variables compute afresh.
    expect(memo.watched(at, { id: '2' }, (_context, v) => `for ${String(v!.id)}`, undefined)).toBe('for 2');
  });

  it('keeps nothing that threw', () => {
    const memo = new VariablesMemo<object, string>(8);
    const at = node();
    expect(() =>
      memo.watched(
        at,
        { id: '1' },
        () => {
          throw new Error('bad');
        },
        undefined,
      ),
    ).toThrow('bad');
    expect(memo.watched(at, { id: '1' }, () => 'fine', undefined)).toBe('fine');
  });
});
