/** OMDb's wire shapes (docs/upstreams.md section 2): every value a string, "N/A" where missing, except `Ratings`. */

export interface OmdbRatingJson {
  Source: string;
  Value: string;
}

/** A movie, series or episode record (`i=` or `t=`). Series and episodes add their own keys. */
export interface OmdbTitleJson {
  Title: string;
  Year: string;
  Rated?: string;
  Released?: string;
  Runtime?: string;
  Genre?: string;
  Director?: string;
  Writer?: string;
  Actors?: string;
  Plot?: string;
  Language?: string;
  Country?: string;
  Awards?: string;
  Poster?: string;
  Ratings?: OmdbRatingJson[];
  Metascore?: string;
  imdbRating?: string;
  imdbVotes?: string;
  imdbID: string;
  Type: string;
  DVD?: string;
  BoxOffice?: string;
  Production?: string;
  Website?: string;
  totalSeasons?: string;
  Season?: string;
  Episode?: string;
  seriesID?: string;
}

/** One search hit: only these five keys. */
export interface OmdbSearchItemJson {
  Title: string;
  Year: string;
  imdbID: string;
  Type: string;
  Poster: string;
}

export interface OmdbSearchJson {
  Search: OmdbSearchItemJson[];
  totalResults: string;
}

/** A season list (`i|t` + `Season`); `Released` is ISO here. */
export interface OmdbSeasonJson {
  Title: string;
  Season: string;
  totalSeasons: string;
  Episodes: Array<{ Title: string; Released: string; Episode: string; imdbRating: string; imdbID: string }>;
}

export type OmdbTypeParam = 'movie' | 'series' | 'episode' | 'game';
