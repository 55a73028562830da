import {
  getOperationAST,
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLFormattedError,
  type SelectionSetNode,
} from 'graphql';

/**
 * A trusted operation's errors as its tool's caller reads them. A resolver names the field argument it refused
 * (`extensions.argument: "first"`); the caller of a tool knows only the tool's arguments, the operation's variables.
 * Where the refused argument was given a variable (`issues(first: $issues)`), the error names that variable
 * (`issues`); an argument the operation fills itself is left as it is.
 */
export function namedByToolArguments(
  errors: readonly GraphQLFormattedError[],
  document: DocumentNode,
  operationName?: string,
): GraphQLFormattedError[] {
  const operation = getOperationAST(document, operationName);
  return errors.map((error) => {
    const argument = error.extensions?.argument;
    if (typeof argument !== 'string' || !error.path || !operation) return error;
    const field = fieldAt(document, operation.selectionSet, error.path);
    const variable = field && variableOf(document, field, argument);
    if (variable === undefined || variable === argument) return error;
    return { ...error, extensions: { ...error.extensions, argument: variable } };
  });
}

/**
 * The variable passed to `argument` of `field`, or of the one field below it that takes it (a planner checks the
 * arguments of the fields it plans together, `healthOverview { issues(first: …) }`, where the request is made).
 */
function variableOf(document: DocumentNode, field: FieldNode, argument: string): string | undefined {
  const own = field.arguments?.find((a) => a.name.value === argument)?.value;
  if (own) return own.kind === Kind.VARIABLE ? own.name.value : undefined;
  const below = new Set<string>();
  const walk = (set: SelectionSetNode | undefined, seen: Set<string>) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        const value = selection.arguments?.find((a) => a.name.value === argument)?.value;
        if (value?.kind === Kind.VARIABLE) below.add(value.name.value);
        walk(selection.selectionSet, seen);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet, seen);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = document.definitions.find(
          (d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value,
        );
        if (fragment?.kind === Kind.FRAGMENT_DEFINITION) walk(fragment.selectionSet, seen);
      }
    }
  };
  walk(field.selectionSet, new Set());
  return below.size === 1 ? [...below][0] : undefined;
}

/** The field a response path points at (list indices skipped), through inline fragments and fragment spreads. */
function fieldAt(
  document: DocumentNode,
  root: SelectionSetNode,
  path: ReadonlyArray<string | number>,
): FieldNode | undefined {
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

function fieldIn(
  document: DocumentNode,
  set: SelectionSetNode,
  responseKey: string,
  seen: Set<string>,
): FieldNode | undefined {
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if ((selection.alias ?? selection.name).value === responseKey) return selection;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const found = fieldIn(document, selection.selectionSet, responseKey, seen);
      if (found) return found;
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = document.definitions.find(
        (d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value,
      );
      const found =
        fragment?.kind === Kind.FRAGMENT_DEFINITION
          ? fieldIn(document, fragment.selectionSet, responseKey, seen)
          : undefined;
      if (found) return found;
    }
  }
  return undefined;
}
