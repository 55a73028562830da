import type { DocumentNode } from 'graphql';

/**
 * `build` memoised per document and operation name, kept while the document is (a WeakMap: the caches that hand out
 * the same `DocumentNode` for the same text decide how long). What a document compiles to, queries and subscriptions
 * alike, is made once, on its first run.
 */
export function perOperation<T>(
  build: (document: DocumentNode, operationName: string | null) => T,
): (document: DocumentNode, operationName: string | null) => T {
  const built = new WeakMap<DocumentNode, Map<string, T>>();
  return (document, operationName) => {
    let byName = built.get(document);
    if (!byName) built.set(document, (byName = new Map()));
    const key = operationName ?? '';
    const found = byName.get(key);
    if (found !== undefined || byName.has(key)) return found as T;
    const value = build(document, operationName);
    byName.set(key, value);
    return value;
  };
}
