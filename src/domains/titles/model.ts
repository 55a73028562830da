import type { TitleType } from '../../generated/types.js';

/** A title in the graph's shape: what {@link toTitleRecord} makes of one OMDb record. */
export interface TitleRecord {
  imdbId: string;
  title: string;
  year: string | null;
  type: TitleType;
  rated: string | null;
  released: string | null;
  runtimeMinutes: number | null;
  genres: string[];
  directors: string[];
  writers: string[];
  cast: string[];
  plot: string | null;
  languages: string[];
  countries: string[];
  awards: string | null;
  posterUrl: string | null;
  ratings: Array<{ source: string; value: string }>;
  imdbRating: number | null;
  imdbVotes: number | null;
  metascore: number | null;
  boxOffice: string | null;
  dvd: string | null;
  production: string | null;
  website: string | null;
  totalSeasons: number | null;
  season: number | null;
  episode: number | null;
  /** Episodes: the series' IMDb ID. */
  seriesId: string | null;
}

/**
 * The parent of every `Title` field: the ID plus whatever is already known (a whole record after a lookup, five
 * fields of a search item, a season list's few). A field not in `known` looks the title up through the loader.
 */
export interface TitleRef {
  imdbId: string;
  known: Partial<TitleRecord>;
}

/** The parent of `TitleSeason` fields. */
export interface SeasonRef {
  seriesId: string;
  number: number;
}
