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

/**
 * A movie, series or episode record, each field mapped from OMDb's when it is read: a lookup selects a few of the 28
 * fields, and mapping all of them (lists split, dates and numbers parsed) was ≈ 6 % of a title lookup's CPU
 * (bench/PROFILE.md, thirteenth pass). A field read again is mapped again (cheap, and a cached answer's record is
 * shared: no state to keep per reader). Its fields are getters: {@link plainTitleRecord} copies them into an object.
 */
export function toTitleRecord(json: OmdbTitleJson): TitleRecord {
  return new OmdbTitleRecord(json);
}

class OmdbTitleRecord implements TitleRecord {
  readonly #json: OmdbTitleJson;
  constructor(json: OmdbTitleJson) {
    this.#json = json;
  }
  get imdbId() {
    return this.#json.imdbID;
  }
  get title() {
    return this.#json.Title;
  }
  get year() {
    return text(this.#json.Year);
  }
  get type() {
    return toTitleType(this.#json.Type);
  }
  get rated() {
    return text(this.#json.Rated);
  }
  get released() {
    return isoDate(this.#json.Released);
  }
  get runtimeMinutes() {
    return runtimeMinutes(this.#json.Runtime);
  }
  get genres() {
    return list(this.#json.Genre);
  }
  get directors() {
    return list(this.#json.Director);
  }
  get writers() {
    return list(this.#json.Writer);
  }
  get cast() {
    return list(this.#json.Actors);
  }
  get plot() {
    return text(this.#json.Plot);
  }
  get languages() {
    return list(this.#json.Language);
  }
  get countries() {
    return list(this.#json.Country);
  }
  get awards() {
    return text(this.#json.Awards);
  }
  get posterUrl() {
    return text(this.#json.Poster);
  }
  get ratings() {
    return ratings(this.#json);
  }
  get imdbRating() {
    return decimal(this.#json.imdbRating);
  }
  get imdbVotes() {
    return integer(this.#json.imdbVotes);
  }
  get metascore() {
    return integer(this.#json.Metascore);
  }
  get boxOffice() {
    return text(this.#json.BoxOffice);
  }
  get dvd() {
    return isoDate(this.#json.DVD);
  }
  get production() {
    return text(this.#json.Production);
  }
  get website() {
    return text(this.#json.Website);
  }
  get totalSeasons() {
    return seasonCount(this.#json.totalSeasons);
  }
  get season() {
    return integer(this.#json.Season);
  }
  get episode() {
    return integer(this.#json.Episode);
  }
  get seriesId() {
    return text(this.#json.seriesID);
  }
  /** Its fields, for whatever serialises a record. */
  toJSON(): TitleRecord {
    return plainTitleRecord(this);
  }
}

/** Every field of a title record, in the model's order. */
export const TITLE_RECORD_FIELDS = Object.getOwnPropertyNames(OmdbTitleRecord.prototype).filter(
  (name) => name !== 'constructor' && name !== 'toJSON',
) as ReadonlyArray<keyof TitleRecord>;

/** A record's fields as a plain object (a record's own are getters). */
export function plainTitleRecord(record: TitleRecord): TitleRecord {
  return Object.fromEntries(TITLE_RECORD_FIELDS.map((name) => [name, record[name]])) as unknown as TitleRecord;
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
