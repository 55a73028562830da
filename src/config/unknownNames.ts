import { BUILT_IN_CHAT_PROVIDERS, PROVIDER_VARIABLES, VARIABLES } from './variables.js';

/**
 * Variable names the gateway does not read, found at start-up: a value under a misspelt name (`DEEPSEEK_KEY`,
 * `CORS_ORIGIN`) is otherwise ignored without a word. Every name of `.env` is checked (the file is the gateway's
 * own); of the rest of the environment only names with a prefix the project owns, since other programs' variables
 * (`NODE_OPTIONS`, `HTTP_PROXY`, `OTEL_SERVICE_NAME`) live there too.
 */

/** A name the gateway does not read, and the known name it most likely means. */
export interface UnknownName {
  name: string;
  /** Where it was set. */
  source: '.env' | 'environment';
  /** The closest known variable; undefined when none is close (a name of `.env` far from every variable). */
  closest?: string;
  /** Whether its prefix is one the project owns (`DEEPSEEK_`, `CORS_`…). */
  ownedPrefix: boolean;
}

/**
 * First words of the gateway's variables that other software uses too: Node.js (`NODE_OPTIONS`), OpenTelemetry
 * (`OTEL_SERVICE_NAME`), proxies (`HTTP_PROXY`), and words too common to claim (`LOG_`, `MAX_`).
 */
const SHARED_PREFIXES = new Set(['NODE', 'OTEL', 'HTTP', 'LOG', 'MAX']);

/** Names the project's other commands read, not the gateway: never reported. */
export const OTHER_COMMANDS_VARIABLES: Readonly<Record<string, string>> = {
  SANDBOX_PORT: 'npm run sandbox',
  SANDBOX_HOST: 'npm run sandbox',
  SANDBOX_ORIGIN: 'the benchmarks',
  REDIS_SERVER: 'the tests and benchmarks',
  GATEWAY_URL: 'npm run example:web',
};

/**
 * What Kubernetes puts in every pod's environment for each service of its namespace (`REDIS_SERVICE_HOST`,
 * `GATEWAY_PORT=tcp://…`, `REDIS_PORT_6379_TCP_ADDR`), as do Docker's legacy links: a service named `redis` or
 * `gateway` is no typo.
 */
const SERVICE_LINK =
  /^[A-Z][A-Z0-9_]*_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?)$/;

/** Names longer than this are not compared letter by letter (the comparison is quadratic in the name's length). */
const MAX_COMPARED_LENGTH = 100;

const firstWord = (name: string) => {
  const at = name.indexOf('_');
  return at > 0 ? name.slice(0, at) : undefined;
};

/**
 * Every name the gateway reads with these chat providers (ids of `CHAT_PROVIDERS` included: their `<ID>_API_KEY`…),
 * and the prefixes it owns: the first words of those names, less {@link SHARED_PREFIXES}.
 */
export function knownNames(providerIds: readonly string[]): { names: Set<string>; prefixes: Set<string> } {
  const names = new Set<string>([...Object.keys(VARIABLES), ...Object.keys(OTHER_COMMANDS_VARIABLES)]);
  const providerPrefixes = new Set([
    ...BUILT_IN_CHAT_PROVIDERS.map((p) => p.prefix as string),
    ...providerIds.map((id) => id.toUpperCase().replace(/-/g, '_')),
  ]);
  for (const prefix of providerPrefixes)
    for (const suffix of Object.keys(PROVIDER_VARIABLES)) names.add(`${prefix}_${suffix}`);
  const prefixes = new Set<string>();
  // The built-in providers' prefixes are the project's; a configured provider's id (`LOCAL_`) is the operator's word.
  for (const name of [...Object.keys(VARIABLES), ...BUILT_IN_CHAT_PROVIDERS.map((p) => `${p.prefix}_`)]) {
    const word = firstWord(name);
    if (word && !SHARED_PREFIXES.has(word)) prefixes.add(word);
  }
  return { names, prefixes };
}

/**
 * The unknown names among `dotenv` (every name the `.env` file sets, whether or not the environment overrode it) and
 * `env` (those with an owned prefix), each once: `.env`'s first, each group in alphabetical order.
 */
export function unknownNames(
  env: NodeJS.ProcessEnv,
  dotenv: readonly string[],
  providerIds: readonly string[],
): UnknownName[] {
  const { names, prefixes } = knownNames(providerIds);
  const known = [...names];
  const out: UnknownName[] = [];
  const seen = new Set<string>();
  const check = (name: string, source: UnknownName['source']) => {
    if (names.has(name) || seen.has(name)) return;
    const upper = name.toUpperCase();
    const word = firstWord(upper);
    const ownedPrefix = word !== undefined && prefixes.has(word);
    if (source === 'environment' && (!ownedPrefix || name !== upper || SERVICE_LINK.test(name))) return;
    seen.add(name);
    const closest =
      upper.length <= MAX_COMPARED_LENGTH ? closestName(upper, known, ownedPrefix ? word : undefined) : undefined;
    out.push({ name, source, closest, ownedPrefix });
  };
  for (const name of [...dotenv].sort()) check(name, '.env');
  for (const name of Object.keys(env).sort()) check(name, 'environment');
  return out;
}

/** The one-line message of an unknown name, for a warning or (without the name) a configuration problem. */
export function describeUnknown(u: UnknownName): string {
  const where = u.source === '.env' ? 'is set in .env but' : 'is set in the environment but';
  const meant = u.closest ? `: did you mean ${u.closest}? Rename it` : ': remove it';
  return `${where} is not a variable the gateway reads${meant} (docs/configuration.md lists every variable)`;
}

// ---- The closest known name ------------------------------------------------------------------------------------

/**
 * The known name `name` most likely means. Names are compared word by word (`_` separates words): a missing or extra
 * word costs 1, a changed word up to 2 by how many of its letters change, so `DEEPSEEK_KEY` is nearer
 * `DEEPSEEK_API_KEY` (one word missing) than `DEEPSEEK_RPM` (one word wholly changed). Words run together or split
 * (`GLM_APIKEY`) are compared letter by letter without the `_`. With an owned prefix the answer is always a name of
 * that prefix; otherwise only a name within one word's change.
 */
export function closestName(name: string, known: readonly string[], prefix?: string): string | undefined {
  let best: { name: string; cost: number; letters: number } | undefined;
  for (const candidate of known) {
    if (prefix !== undefined && firstWord(candidate) !== prefix) continue;
    const cost = nameDistance(name, candidate);
    const letters = editDistance(name, candidate);
    if (!best || cost < best.cost || (cost === best.cost && letters < best.letters))
      best = { name: candidate, cost, letters };
  }
  if (!best) return undefined;
  return prefix !== undefined || best.cost <= 1 ? best.name : undefined;
}

function nameDistance(a: string, b: string): number {
  if (a.replaceAll('_', '') === b.replaceAll('_', '')) return 0;
  return editDistance(a.split('_'), b.split('_'), (x, y) => (2 * editDistance(x, y)) / Math.max(x.length, y.length));
}

/**
 * Levenshtein distance between two sequences (the letters of two words, or the words of two names), a change
 * costing `change(x, y)` (1 by default), an insertion or a deletion 1. Names are short: the quadratic table is tiny.
 */
export function editDistance<T extends string | readonly string[]>(
  a: T,
  b: T,
  change: (x: T[number], y: T[number]) => number = () => 1,
): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const same = a[i - 1] === b[j - 1];
      row.push(Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (same ? 0 : change(a[i - 1], b[j - 1]))));
    }
    previous = row;
  }
  return previous[b.length];
}
