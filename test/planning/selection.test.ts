import { Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { selectionVaries } from '../../src/planning/selection.js';

function root(query: string) {
  const doc = parse(query);
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  return { set: op.selectionSet, fragments };
}

describe('selectionVaries: whether variables can change what a selection set selects', () => {
  it('not without @skip/@include on a variable', () => {
    const { set, fragments } = root(
      'query($id: ID!) { title(imdbId: $id) { a b @include(if: true) ...F } } fragment F on Title { c @skip(if: false) }',
    );
    expect(selectionVaries(set, fragments)).toBe(false);
    const title = set.selections[0];
    expect(title.kind === Kind.FIELD && selectionVaries(title.selectionSet!, fragments)).toBe(false);
  });

  it('on a selection, an inline fragment, or a spread fragment of the set', () => {
    for (const query of [
      'query($s: Boolean!) { a @skip(if: $s) }',
      'query($s: Boolean!) { ... on Query { a @include(if: $s) } }',
      'query($s: Boolean!) { ...F } fragment F on Query { a @include(if: $s) }',
      'query($s: Boolean!) { ...F @skip(if: $s) } fragment F on Query { a }',
    ]) {
      const { set, fragments } = root(query);
      expect(selectionVaries(set, fragments), query).toBe(true);
    }
  });

  it('not for a directive below a field (that field’s own set varies), nor through a fragment cycle', () => {
    const { set, fragments } = root('query($s: Boolean!) { a { b @skip(if: $s) } ...F } fragment F on Query { ...F }');
    expect(selectionVaries(set, fragments)).toBe(false);
    const a = set.selections[0];
    expect(a.kind === Kind.FIELD && selectionVaries(a.selectionSet!, fragments)).toBe(true);
  });
});
