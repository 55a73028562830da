import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { CatalogueModel, ProviderCatalogue, RetiredModel } from './types.js';

/**
 * CHAT_MODEL_CATALOGUE_FILE: the catalogue's shape (models/types.ts) by provider id, in JSON or YAML, laid over the
 * built-in catalogue: an entry with a built-in id changes the facts it gives, a new id adds a model. Operators thus
 * follow a vendor's release (a new model, a window, a deprecation) without a gateway release. Read at start-up (a
 * file that does not parse stops the start, naming the bad value) and again every CHAT_MODELS_REFRESH_MS (then a
 * bad file is logged and the last good one kept).
 *
 * ```yaml
 * moonshot:
 *   models:
 *     - { id: kimi-k3.2, contextWindow: 1048576, reasoning: always, effort: true, source: "https://… (read 2027-01-10)" }
 *     - { id: kimi-k2.6, deprecatedOn: 2026-10-31, retiresOn: 2026-12-31, successor: kimi-k3 }
 *   retired:
 *     - { id: kimi-k2.5, successor: kimi-k3, since: 2027-01-01 }
 * ```
 */
export type CatalogueOverlay = Readonly<
  Record<string, { models: readonly CatalogueModel[]; retired: readonly RetiredModel[] }>
>;

type Json = Record<string, unknown>;
const REASONING = ['none', 'optional-off', 'optional-on', 'always'];
const DAY = /^\d{4}-\d\d-\d\d$/;
const MODEL_FIELDS: Readonly<Record<string, (v: unknown) => string | undefined>> = {
  id: (v) => (typeof v === 'string' && v.trim() !== '' ? undefined : 'a model name'),
  aliases: (v) =>
    Array.isArray(v) && v.every((a) => typeof a === 'string' && a !== '') ? undefined : 'a list of names',
  contextWindow: (v) => (Number.isInteger(v) && (v as number) > 0 ? undefined : 'a whole number of tokens ≥ 1'),
  maxOutputTokens: (v) => (Number.isInteger(v) && (v as number) > 0 ? undefined : 'a whole number of tokens ≥ 1'),
  reasoning: (v) => (REASONING.includes(v as string) ? undefined : REASONING.join(', ')),
  vision: bool,
  tools: bool,
  json: bool,
  effort: bool,
  fixedSampling: bool,
  toolStream: bool,
  deprecatedOn: day,
  retiresOn: day,
  successor: (v) => (typeof v === 'string' && v !== '' ? undefined : 'a model name'),
  source: (v) => (typeof v === 'string' ? undefined : 'text: the page the facts come from, with the day it was read'),
};
const RETIRED_FIELDS: Readonly<Record<string, (v: unknown) => string | undefined>> = {
  id: MODEL_FIELDS.id,
  successor: MODEL_FIELDS.successor,
  since: (v) => (typeof v === 'string' && v !== '' ? undefined : 'a date as the vendor wrote it'),
  note: (v) => (typeof v === 'string' ? undefined : 'text'),
  source: MODEL_FIELDS.source,
};

function bool(v: unknown): string | undefined {
  return typeof v === 'boolean' ? undefined : 'true or false';
}
function day(v: unknown): string | undefined {
  // YAML reads an unquoted 2026-12-31 as a date: taken as the day it names.
  return (typeof v === 'string' && DAY.test(v)) || v instanceof Date ? undefined : 'a day, YYYY-MM-DD';
}
const obj = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) ? (v as Json) : undefined;

function entries(list: unknown, at: string, fields: typeof MODEL_FIELDS, required: readonly string[]): Json[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new Error(`${at} must be a list`);
  return list.map((item, i) => {
    const where = `${at}[${i}]`;
    const entry = obj(item);
    if (!entry) throw new Error(`${where} must be an object such as { id: …, … }`);
    for (const key of required) if (entry[key] === undefined) throw new Error(`${where} has no ${key}`);
    const out: Json = {};
    for (const [key, value] of Object.entries(entry)) {
      const check = fields[key];
      if (!check)
        throw new Error(
          `${where} has the unknown field ${JSON.stringify(key)}; fields are ${Object.keys(fields).join(', ')}`,
        );
      const wanted = check(value);
      if (wanted) throw new Error(`${where}.${key} is ${JSON.stringify(value)}; it must be ${wanted}`);
      out[key] = value instanceof Date ? value.toISOString().slice(0, 10) : value;
    }
    return out;
  });
}

/** yaml, loaded with the first catalogue read: a gateway without `CHAT_MODEL_CATALOGUE_FILE` does not carry it. */
const loadYaml = () => (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parseDocument;

/** The overlay in `text` (JSON, or YAML: JSON is YAML too); throws an Error naming the first bad value. */
export function parseCatalogue(text: string, providers: readonly string[]): CatalogueOverlay {
  let doc: unknown;
  try {
    // A tag the core schema does not know (`!!js/function`) is a mistake here, not a warning on stderr.
    const parsed = loadYaml()(text, { logLevel: 'silent' });
    const problem = parsed.errors[0] ?? parsed.warnings[0];
    if (problem) throw problem;
    doc = parsed.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new Error(`it is neither JSON nor YAML (${(error as Error).message.split('\n')[0]})`);
  }
  const root = obj(doc);
  if (!root) throw new Error('it must map provider ids to { models: [...], retired: [...] }');
  const out: Record<string, { models: CatalogueModel[]; retired: RetiredModel[] }> = {};
  for (const [provider, value] of Object.entries(root)) {
    if (!providers.includes(provider))
      throw new Error(
        `it names the provider ${JSON.stringify(provider)}, which is not configured; providers are ${providers.join(', ')}`,
      );
    const body = obj(value);
    if (!body) throw new Error(`${provider} must be { models: [...], retired: [...] }`);
    for (const key of Object.keys(body))
      if (key !== 'models' && key !== 'retired')
        throw new Error(`${provider} has the unknown key ${JSON.stringify(key)}; keys are models and retired`);
    out[provider] = {
      models: entries(body.models, `${provider}.models`, MODEL_FIELDS, ['id']) as unknown as CatalogueModel[],
      retired: entries(body.retired, `${provider}.retired`, RETIRED_FIELDS, [
        'id',
        'successor',
        'since',
      ]) as unknown as RetiredModel[],
    };
  }
  return out;
}

/** Reads and parses the file; the error names the file. */
export function readCatalogueFile(
  path: string,
  providers: readonly string[],
): { text: string; overlay: CatalogueOverlay } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(
      `CHAT_MODEL_CATALOGUE_FILE ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  try {
    return { text, overlay: parseCatalogue(text, providers) };
  } catch (error) {
    throw new Error(`CHAT_MODEL_CATALOGUE_FILE ${path}: ${(error as Error).message}`);
  }
}

/** `base` with `over` laid on it, entry by entry (a field of `over` wins); new ids are added after the built-in ones. */
export function layCatalogue(
  base: ProviderCatalogue,
  over: CatalogueOverlay[string] | undefined,
  file: string,
): ProviderCatalogue {
  if (!over) return base;
  const models = base.models.map((m) => {
    const change = over.models.find((o) => o.id === m.id);
    return change
      ? { ...m, ...change, source: change.source ?? `${m.source}; changed by CHAT_MODEL_CATALOGUE_FILE ${file}` }
      : m;
  });
  for (const m of over.models)
    if (!base.models.some((b) => b.id === m.id))
      models.push({ ...m, source: m.source ?? `CHAT_MODEL_CATALOGUE_FILE ${file}` });
  const retired = base.retired
    .filter((r) => !over.retired.some((o) => o.id === r.id))
    .concat(over.retired.map((r) => ({ ...r, source: r.source ?? `CHAT_MODEL_CATALOGUE_FILE ${file}` })));
  // A name the file retires is no longer offered, and one it offers is no longer retired.
  return {
    models: models.filter((m) => !over.retired.some((r) => r.id === m.id)),
    retired: retired.filter((r) => !over.models.some((m) => m.id === r.id)),
  };
}

/**
 * What is wrong with a catalogue's deprecations: a successor that is not one of its models, or that is itself
 * deprecated (a caller told to move would be told again next month). Empty when all is well.
 */
export function successorProblems(provider: string, catalogue: ProviderCatalogue): string[] {
  const problems: string[] = [];
  const byId = new Map(catalogue.models.map((m) => [m.id, m]));
  const check = (what: string, successor: string | undefined) => {
    if (successor === undefined) return;
    const next = byId.get(successor);
    if (!next) problems.push(`${provider} ${what} names the successor ${successor}, which is not one of its models`);
    else if (next.deprecatedOn)
      problems.push(
        `${provider} ${what} names the successor ${successor}, which is itself deprecated (from ${next.deprecatedOn})`,
      );
  };
  for (const m of catalogue.models) {
    if (m.successor && !m.deprecatedOn)
      problems.push(`${provider} model ${m.id} names a successor but no deprecatedOn`);
    check(`model ${m.id}`, m.successor);
  }
  for (const r of catalogue.retired) check(`retired ${r.id}`, r.successor);
  return problems;
}
