/** One payload of incremental delivery: the initial result, or `{incremental, hasNext}`. */
export interface IncrementalPayload {
  data?: any;
  errors?: Array<{ message: string; path?: unknown[]; extensions?: Record<string, any> }>;
  hasNext?: boolean;
  incremental?: Array<{
    data?: any;
    items?: unknown[];
    path: Array<string | number>;
    label?: string;
    errors?: IncrementalPayload['errors'];
  }>;
}

/**
 * The whole result a client assembles from the payloads, the way Apollo Client's `Defer20220824Handler` does:
 * a deferred fragment's `data` merged into the object at its `path`, a stream's `items` placed from the index at the
 * end of its `path`; errors of every part collected.
 */
export function mergePayloads(payloads: readonly IncrementalPayload[]): {
  data: any;
  errors: NonNullable<IncrementalPayload['errors']>;
} {
  const [first, ...rest] = payloads;
  const data = structuredClone(first?.data ?? null);
  const errors = [...(first?.errors ?? [])];
  for (const payload of rest) {
    for (const entry of payload.incremental ?? []) {
      errors.push(...(entry.errors ?? []));
      if (entry.items) {
        const list = at(data, entry.path.slice(0, -1)) as unknown[];
        entry.items.forEach((item, i) => (list[(entry.path.at(-1) as number) + i] = item));
      } else if (entry.data) deepMerge(at(data, entry.path), entry.data);
    }
    errors.push(...(payload.errors ?? []));
  }
  return { data, errors };
}

function at(data: any, path: ReadonlyArray<string | number>): any {
  return path.reduce((value, key) => value[key], data);
}

function deepMerge(target: any, source: any): void {
  for (const [key, value] of Object.entries(source)) {
    if (value && typeof value === 'object' && !Array.isArray(value) && target[key] && typeof target[key] === 'object')
      deepMerge(target[key], value);
    else if (Array.isArray(value) && Array.isArray(target[key]))
      value.forEach((v, i) =>
        v && typeof v === 'object' && target[key][i] ? deepMerge(target[key][i], v) : (target[key][i] = v),
      );
    else target[key] = value;
  }
}
