/**
 * What OMDb answers to one query string, as data: a title, a season list, a search page or an error. Rendering to
 * JSON, XML or JSONP happens in `render.ts`; keys and quota in `index.ts`.
 *
 * Where the real service's behaviour is not documented (docs/upstreams.md 2.1–2.4), these are the choices made:
 * - `i` wins over `t`, and `t` over `s`; with none of them OMDb answers "Incorrect IMDb ID." (as the real one does).
 *   An empty parameter (`s=`) counts as absent.
 * - `type` and `y` narrow `t` and `s`, never `i`. An unknown `type` (e.g. `game`) matches nothing; a `y` that is not a
 *   4-digit year is ignored. A series matches every year of its run.
 * - `t` and `s` leave episodes out unless `type=episode`: episodes are reached through their series.
 * - `Season` on a title that is not a series, on a `t` that names no series, or out of range, is "Series or episode
 *   not found!"; `Episode` without `Season` is ignored.
 * - Search: every query word must be a whole word of the title; results are ordered by imdbVotes. A query shorter than
 *   3 characters after trimming, or made only of stop words ("the", "of", ...), is "Too many results." (the real
 *   service's other trigger, some thousands of hits, cannot occur in a catalog this small). `page` 0 or below gets
 *   the SQL Server error the real service leaks; a page past the end is "Movie not found!"; a non-numeric page is 1.
 */
import { titleWords, type Catalog, type OmdbTitle, type Series, type TitleFilter } from './catalog.js';
import { STOP_WORDS } from './vocabulary.js';

/** Every error text the emulator sends; the real service's wording, punctuation included. */
export const OmdbError = {
  NoApiKey: 'No API key provided.',
  InvalidApiKey: 'Invalid API key!',
  LimitReached: 'Request limit reached!',
  MovieNotFound: 'Movie not found!',
  IncorrectImdbId: 'Incorrect IMDb ID.',
  TooManyResults: 'Too many results.',
  EpisodeNotFound: 'Series or episode not found!',
  SomethingWentWrong: 'Something went wrong.',
  NegativeOffset: 'The offset specified in a OFFSET clause may not be negative.',
} as const;
export type OmdbError = (typeof OmdbError)[keyof typeof OmdbError];

export type Answer =
  | { kind: 'title'; title: OmdbTitle; plot: 'short' | 'full' }
  | { kind: 'season'; series: Series; season: number }
  | { kind: 'search'; page: OmdbTitle[]; totalResults: number }
  | { kind: 'error'; error: OmdbError };

export const SEARCH_PAGE_SIZE = 10;
const IMDB_ID = /^tt\d{7,8}$/;
const fail = (error: OmdbError): Answer => ({ kind: 'error', error });

/** A parameter's trimmed value; empty counts as absent. `names` lists accepted spellings. */
function param(query: URLSearchParams, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = query.get(name)?.trim();
    if (value) return value;
  }
  return undefined;
}

function positiveInt(text: string): number | undefined {
  return /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}

function plotOf(query: URLSearchParams): 'short' | 'full' {
  return param(query, 'plot') === 'full' ? 'full' : 'short';
}

function filterOf(query: URLSearchParams): TitleFilter {
  const y = param(query, 'y');
  return { type: param(query, 'type')?.toLowerCase(), year: y && /^\d{4}$/.test(y) ? Number(y) : undefined };
}

export function answer(catalog: Catalog, query: URLSearchParams): Answer {
  const i = param(query, 'i');
  const t = param(query, 't');
  if (i !== undefined || t !== undefined) return lookup(catalog, query, i, t);
  const s = param(query, 's');
  if (s !== undefined) return search(catalog, query, s);
  return fail(OmdbError.IncorrectImdbId);
}

function lookup(catalog: Catalog, query: URLSearchParams, i: string | undefined, t: string | undefined): Answer {
  // The real service reads `Season`/`Episode` whatever their case; the other names are exact.
  const season = param(query, 'Season', 'season');
  const episode = param(query, 'Episode', 'episode');
  let title: OmdbTitle | undefined;
  if (i !== undefined) {
    title = IMDB_ID.test(i) ? catalog.byImdbId(i) : undefined;
    if (!title) return fail(OmdbError.IncorrectImdbId);
  } else {
    const filter = filterOf(query);
    title = catalog.byTitle(t!, season === undefined ? filter : { ...filter, type: 'series' });
    if (!title) return fail(season === undefined ? OmdbError.MovieNotFound : OmdbError.EpisodeNotFound);
  }
  if (season === undefined) return { kind: 'title', title, plot: plotOf(query) };

  const n = positiveInt(season);
  const episodes = title.type === 'series' && n !== undefined ? title.seasons[n - 1] : undefined;
  if (!episodes || title.type !== 'series') return fail(OmdbError.EpisodeNotFound);
  if (episode === undefined) return { kind: 'season', series: title, season: n! };
  const e = positiveInt(episode);
  const found = e === undefined ? undefined : episodes[e - 1];
  return found ? { kind: 'title', title: found, plot: plotOf(query) } : fail(OmdbError.EpisodeNotFound);
}

function search(catalog: Catalog, query: URLSearchParams, s: string): Answer {
  const words = titleWords(s);
  if (s.length < 3 || (words.length > 0 && words.every((w) => STOP_WORDS.has(w))))
    return fail(OmdbError.TooManyResults);
  const pageText = param(query, 'page');
  const page = pageText !== undefined && /^-?\d+$/.test(pageText) ? Number(pageText) : 1;
  if (page < 1) return fail(OmdbError.NegativeOffset);
  const hits = catalog.search(words, filterOf(query));
  const items = hits.slice((page - 1) * SEARCH_PAGE_SIZE, page * SEARCH_PAGE_SIZE);
  return items.length ? { kind: 'search', page: items, totalResults: hits.length } : fail(OmdbError.MovieNotFound);
}
