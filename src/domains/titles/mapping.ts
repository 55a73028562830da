/**
 * OMDb's shapes to the graph's, one function per type. OMDb writes every value as display text and a missing one as
 * "N/A"; here they become numbers, lists, ISO dates, and null or an empty list.
 */
import type { TitleType } from '../../generated/types.js';
import type { OmdbSearchItemJson, OmdbSeasonJson, OmdbTitleJson, OmdbTypeParam } from '../../upstreams/omdb/types.js';
import type { TitleRecord, TitleRef } from './model.js';

/** The text, or null for "N/A", empty or absent. */
export function text(value: string | undefined | null): string | null {
  const v = value?.trim();
  return !v || v === 'N/A' ? null : v;
}

/** "Action, Adventure, Sci-Fi" → ["Action", "Adventure", "Sci-Fi"]; "N/A" → []. */
export function list(value: string | undefined): string[] {
  const v = text(value);
  return v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}

/** "191,580" → 191580, "82" → 82; null for "N/A" or anything that is not a whole number. */
export function integer(value: string | undefined): number | null {
  const v = text(value)?.replace(/,/g, '');
  return v && /^\d+$/.test(v) ? Number(v) : null;
}

/** "7.4" → 7.4; null for "N/A". */
export function decimal(value: string | undefined): number | null {
  const v = text(value);
  return v && /^\d+(\.\d+)?$/.test(v) ? Number(v) : null;
}

/** "143 min" → 143; null for "N/A". */
export function runtimeMinutes(value: string | undefined): number | null {
  const m = /^(\d+)\s*min$/i.exec(text(value) ?? '');
  return m ? Number(m[1]) : null;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** "15 Dec 1978" (title records) or "2011-04-17" (season lists) → "1978-12-15"; null for "N/A" or other text. */
export function isoDate(value: string | undefined): string | null {
  const v = text(value);
  if (!v) return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
  const m = /^(\d{1,2}) ([A-Za-z]{3}) (\d{4})$/.exec(v);
  const month = m ? MONTHS.indexOf(m[2].toLowerCase()) + 1 : 0;
  return m && month ? `${m[3]}-${String(month).padStart(2, '0')}-${m[1].padStart(2, '0')}` : null;
}

/** OMDb's `Type`, case-insensitively; a type this graph does not know yet is UNKNOWN_FUTURE_VALUE, never an error. */
export function toTitleType(value: string | undefined): TitleType {
  switch (value?.trim().toLowerCase()) {
    case 'movie':
      return 'MOVIE';
    case 'series':
      return 'SERIES';
    case 'episode':
      return 'EPISODE';
    case 'game':
      return 'GAME';
    default:
      return 'UNKNOWN_FUTURE_VALUE';
  }
}

/** The `type` parameter OMDb expects for a graph `TitleType` argument. */
export function toOmdbType(type: TitleType): OmdbTypeParam {
  return type.toLowerCase() as OmdbTypeParam;
}

const IMDB_SOURCE = 'Internet Movie Database';

/** Every rating, the IMDb one first (added from `imdbRating` when `Ratings` lacks it). */
export function ratings(json: Pick<OmdbTitleJson, 'Ratings' | 'imdbRating'>): TitleRecord['ratings'] {
  const out = (json.Ratings ?? [])
    .filter((r) => text(r.Source) && text(r.Value))
    .map((r) => ({ source: r.Source.trim(), value: r.Value.trim() }));
  const imdb = out.findIndex((r) => r.source === IMDB_SOURCE);
  if (imdb > 0) out.unshift(...out.splice(imdb, 1));
  else if (imdb === -1 && decimal(json.imdbRating) !== null)
    out.unshift({ source: IMDB_SOURCE, value: `${text(json.imdbRating)}/10` });
  return out;
}

/** A movie, series or episode record. */
export function toTitleRecord(json: OmdbTitleJson): TitleRecord {
  return {
    imdbId: json.imdbID,
    title: json.Title,
    year: text(json.Year),
    type: toTitleType(json.Type),
    rated: text(json.Rated),
    released: isoDate(json.Released),
    runtimeMinutes: runtimeMinutes(json.Runtime),
    genres: list(json.Genre),
    directors: list(json.Director),
    writers: list(json.Writer),
    cast: list(json.Actors),
    plot: text(json.Plot),
    languages: list(json.Language),
    countries: list(json.Country),
    awards: text(json.Awards),
    posterUrl: text(json.Poster),
    ratings: ratings(json),
    imdbRating: decimal(json.imdbRating),
    imdbVotes: integer(json.imdbVotes),
    metascore: integer(json.Metascore),
    boxOffice: text(json.BoxOffice),
    dvd: isoDate(json.DVD),
    production: text(json.Production),
    website: text(json.Website),
    totalSeasons: seasonCount(json.totalSeasons),
    season: integer(json.Season),
    episode: integer(json.Episode),
    seriesId: text(json.seriesID),
  };
}

/**
 * Most seasons a series is taken to have: the `seasons` list and the estimate are built from this count, so an
 * upstream answer claiming a billion seasons must not become a billion-element list. The longest-running series OMDb
 * lists have well under a hundred.
 */
export const MAX_SERIES_SEASONS = 200;

function seasonCount(value: string | undefined): number | null {
  const n = integer(value);
  return n === null ? null : Math.min(Math.max(n, 0), MAX_SERIES_SEASONS);
}

/** The fields a search hit carries; the rest of the record is looked up only when selected. */
export const SEARCH_ITEM_FIELDS = ['imdbId', 'title', 'year', 'type', 'posterUrl'] as const;

/** One search hit. */
export function toSearchItem(json: OmdbSearchItemJson): TitleRef {
  return {
    imdbId: json.imdbID,
    known: {
      imdbId: json.imdbID,
      title: json.Title,
      year: text(json.Year),
      type: toTitleType(json.Type),
      posterUrl: text(json.Poster),
    },
  };
}

/** The fields an episode of a season list carries. */
export const SEASON_EPISODE_FIELDS = [
  'imdbId',
  'title',
  'type',
  'released',
  'imdbRating',
  'season',
  'episode',
  'seriesId',
] as const;

/** The episodes of a season list. */
export function toSeasonEpisodes(json: OmdbSeasonJson, seriesId: string): TitleRef[] {
  const season = integer(json.Season);
  return (json.Episodes ?? []).map((e) => ({
    imdbId: e.imdbID,
    known: {
      imdbId: e.imdbID,
      title: e.Title,
      type: 'EPISODE',
      released: isoDate(e.Released),
      imdbRating: decimal(e.imdbRating),
      season,
      episode: integer(e.Episode),
      seriesId,
    },
  }));
}
