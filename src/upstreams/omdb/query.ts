import type { OmdbTypeParam } from './types.js';

/**
 * One OMDb request, normalized: two queries that OMDb answers alike have the same {@link omdbQueryKey}, which keys
 * the per-request loaders, the shared cache and the in-flight map (never the API key).
 */
export type OmdbQuery =
  | { kind: 'byId'; imdbId: string; plot: 'short' | 'full' }
  | { kind: 'byTitle'; title: string; year?: number; type?: OmdbTypeParam; plot: 'short' | 'full' }
  | { kind: 'search'; query: string; year?: number; type?: OmdbTypeParam; page: number }
  | { kind: 'season'; imdbId: string; season: number };

/** Collapses whitespace; OMDb matches titles case-insensitively, so keys compare them lower-cased. */
const tidy = (text: string) => text.trim().replace(/\s+/g, ' ');

export function normalizeOmdbQuery(q: OmdbQuery): OmdbQuery {
  switch (q.kind) {
    case 'byId':
    case 'season':
      return { ...q, imdbId: q.imdbId.trim().toLowerCase() };
    case 'byTitle':
      return { ...q, title: tidy(q.title) };
    case 'search':
      return { ...q, query: tidy(q.query) };
  }
}

/** The query-string parameters sent upstream, apart from `apikey`. `plot=short` is OMDb's default and left out. */
export function omdbParams(q: OmdbQuery): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const opt = (name: string, value: string | number | undefined) => {
    if (value !== undefined) out.push([name, String(value)]);
  };
  switch (q.kind) {
    case 'byId':
      out.push(['i', q.imdbId]);
      if (q.plot === 'full') out.push(['plot', 'full']);
      break;
    case 'byTitle':
      out.push(['t', q.title]);
      opt('y', q.year);
      opt('type', q.type);
      if (q.plot === 'full') out.push(['plot', 'full']);
      break;
    case 'search':
      out.push(['s', q.query]);
      opt('y', q.year);
      opt('type', q.type);
      if (q.page !== 1) out.push(['page', String(q.page)]);
      break;
    case 'season':
      out.push(['i', q.imdbId], ['Season', String(q.season)]);
      break;
  }
  return out;
}

/** Where a query keeps its key once made: a symbol, not enumerable, so no copy, comparison or JSON sees it. */
const KEY = Symbol('its OMDb query key');

/**
 * The query's key, made once per query object: one lookup asks for it four times or more (its loader, the cache, the
 * in-flight flights, the quota estimate), each a normalized copy, a list of pairs and their encoding.
 */
export function omdbQueryKey(q: OmdbQuery): string {
  const kept = (q as OmdbQuery & { [KEY]?: string })[KEY];
  if (kept !== undefined) return kept;
  const key = q.kind === 'byId' ? byIdKey(q) : generalKey(q);
  if (Object.isExtensible(q)) Object.defineProperty(q, KEY, { value: key });
  return key;
}

function generalKey(q: OmdbQuery): string {
  const n = normalizeOmdbQuery(q);
  return formEncoded(omdbParams(n).map(([k, v]) => [k, k === 't' || k === 's' ? v.toLowerCase() : v]));
}

/**
 * A lookup by id's key, written out: what {@link generalKey} makes of it (`i=<id>`, `&plot=full` when full), without
 * the normalized copy, the pairs and their mapping. A title lookup makes one per operation at least (its estimate).
 */
function byIdKey(q: Extract<OmdbQuery, { kind: 'byId' }>): string {
  const id = formComponent(q.imdbId.trim().toLowerCase());
  return q.plot === 'full' ? `i=${id}&plot=full` : `i=${id}`;
}

/** Characters `application/x-www-form-urlencoded` leaves as they are. */
const FORM_SAFE = /^[A-Za-z0-9*\-._]*$/;

/**
 * `name=value&…` exactly as `new URLSearchParams(pairs).toString()` writes it (the form-urlencoded serializer: space
 * as `+`, everything but `A-Za-z0-9*-._` percent-encoded as UTF-8), without URLSearchParams' per-call cost: keys are
 * made several times per lookup (loader, in-flight map, cache, the quota estimate) and mostly need no escaping.
 */
export function formEncoded(pairs: ReadonlyArray<readonly [string, string]>): string {
  let out = '';
  for (const [name, value] of pairs) out += `${out ? '&' : ''}${formComponent(name)}=${formComponent(value)}`;
  return out;
}

function formComponent(text: string): string {
  if (FORM_SAFE.test(text)) return text;
  let encoded: string;
  try {
    encoded = encodeURIComponent(text);
  } catch {
    // A lone surrogate, which encodeURIComponent refuses: URLSearchParams writes it as U+FFFD.
    return new URLSearchParams([['', text]]).toString().slice(1);
  }
  // encodeURIComponent also leaves !'()~ alone; the form serializer escapes them.
  return encoded.replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
}
