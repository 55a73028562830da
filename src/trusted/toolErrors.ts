import { getOperationAST, Kind, type DocumentNode, type FieldNode, type GraphQLFormattedError, type SelectionSetNode } from 'graphql';

/**
 * A trusted operation's errors as its tool's caller reads them. A resolver names the field argument it refused
 * (`extensions.argument: "first"`); the caller of a tool knows only the tool's arguments, the operation's variables.
 * Where the refused argument was given a variable (`issues(first: $issues)`), the error names that variable
 * (`issues`); an argument the operation fills itself is left as it is.
 */
export function namedByToolArguments(errors: readonly GraphQLFormattedError[], document: DocumentNode, operationName?: string): GraphQLFormattedError[] {
  const operation = getOperationAST(document, operationName);
  return errors.map((error) => {
    const argument = error.extensions?.argument;
    if (typeof argument !== 'string' || !error.path || !operation) return error;
    const field = fieldAt(document, operation.selectionSet, error.path);
    const value = field?.arguments?.find((a) => a.name.value === argument)?.value;
    if (value?.kind !== Kind.VARIABLE || value.name.value === argument) return error;
    return { ...error, extensions: { ...error.extensions, argument: value.name.value } };
  });
}

/** The field a response path points at (list indices skipped), through inline fragments and fragment spreads. */
function fieldAt(document: DocumentNode, root: SelectionSetNode, path: ReadonlyArray<string | number>): FieldNode | undefined {
  let sets = [root];
  let field: FieldNode | undefined;
  for (const key of path) {
    if (typeof key === 'number') continue;
    field = sets.map((set) => fieldIn(document, set, key, new Set())).find(Boolean);
    if (!field) return undefined;
    sets = field.selectionSet ? [field.selectionSet] : [];
  }
  return field;
}

function fieldIn(document: DocumentNode, set: SelectionSetNode, responseKey: string, seen: Set<string>): FieldNode | undefined {
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if ((selection.alias ?? selection.name).value === responseKey) return selection;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const found = fieldIn(document, selection.selectionSet, responseKey, seen);
      if (found) return found;
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value);
      const found = fragment?.kind === Kind.FRAGMENT_DEFINITION ? fieldIn(document, fragment.selectionSet, responseKey, seen) : undefined;
      if (found) return found;
    }
  }
  return undefined;
}
