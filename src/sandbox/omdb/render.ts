/**
 * An {@link Answer} in OMDb's wire forms. JSON keys follow the real service's order, which clients that compare
 * bodies or print them depend on. The XML form follows captures of `r=xml` (docs/upstreams.md 2.4 and client fixtures):
 * attributes named like the JSON keys with a lower-case first letter, `Ratings`, `DVD`, `BoxOffice`, `Production`
 * and `Website` left out as in those captures. The XML of a season list is not documented anywhere [?]; it mirrors
 * the search form.
 */
import type { Episode, Movie, OmdbTitle, Series } from './catalog.js';
import type { Answer } from './query.js';

type Json = Record<string, unknown>;

function head(t: OmdbTitle): Json {
  return { Title: t.title, Year: t.year, Rated: t.rated, Released: t.released };
}

function body(t: OmdbTitle, plot: 'short' | 'full'): Json {
  return {
    Runtime: t.runtime,
    Genre: t.genre,
    Director: t.director,
    Writer: t.writer,
    Actors: t.actors,
    Plot: plot === 'full' ? t.plotFull : t.plotShort,
    Language: t.language,
    Country: t.country,
    Awards: t.awards,
    Poster: t.poster,
    Ratings: t.ratings,
    Metascore: t.metascore,
    imdbRating: t.imdbRating,
    imdbVotes: t.imdbVotes,
    imdbID: t.imdbID,
  };
}

function movieJson(t: Movie, plot: 'short' | 'full'): Json {
  return {
    ...head(t),
    ...body(t, plot),
    Type: 'movie',
    DVD: t.dvd,
    BoxOffice: t.boxOffice,
    Production: t.production,
    Website: t.website,
    Response: 'True',
  };
}

function seriesJson(t: Series, plot: 'short' | 'full'): Json {
  return { ...head(t), ...body(t, plot), Type: 'series', totalSeasons: String(t.seasons.length), Response: 'True' };
}

function episodeJson(t: Episode, plot: 'short' | 'full'): Json {
  return {
    ...head(t),
    Season: String(t.season),
    Episode: String(t.episode),
    ...body(t, plot),
    seriesID: t.seriesID,
    Type: 'episode',
    Response: 'True',
  };
}

function titleJson(t: OmdbTitle, plot: 'short' | 'full'): Json {
  return t.type === 'movie' ? movieJson(t, plot) : t.type === 'series' ? seriesJson(t, plot) : episodeJson(t, plot);
}

export function toJson(a: Answer): Json {
  switch (a.kind) {
    case 'title':
      return titleJson(a.title, a.plot);
    case 'season':
      return {
        Title: a.series.title,
        Season: String(a.season),
        totalSeasons: String(a.series.seasons.length),
        Episodes: a.series.seasons[a.season - 1].map((e) => ({
          Title: e.title,
          Released: e.releasedIso,
          Episode: String(e.episode),
          imdbRating: e.imdbRating,
          imdbID: e.imdbID,
        })),
        Response: 'True',
      };
    case 'search':
      return {
        Search: a.page.map((t) => ({ Title: t.title, Year: t.year, imdbID: t.imdbID, Type: t.type, Poster: t.poster })),
        totalResults: String(a.totalResults),
        Response: 'True',
      };
    case 'error':
      return { Response: 'False', Error: a.error };
  }
}

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => XML_ESCAPES[c]);

/** `Title` → `title`, `imdbID` stays: the attribute names of OMDb's XML. */
function attributes(json: Json, leaveOut: readonly string[] = []): string {
  return Object.entries(json)
    .filter(([k, v]) => typeof v === 'string' && k !== 'Response' && !leaveOut.includes(k))
    .map(([k, v]) => ` ${k[0].toLowerCase()}${k.slice(1)}="${escapeXml(v as string)}"`)
    .join('');
}

const XML_LEFT_OUT = ['DVD', 'BoxOffice', 'Production', 'Website'];

export function toXml(a: Answer): string {
  const json = toJson(a);
  let root: string;
  switch (a.kind) {
    case 'title':
      root = `<root response="True"><movie${attributes(json, XML_LEFT_OUT)}/></root>`;
      break;
    case 'season': {
      const items = (json.Episodes as Json[]).map((e) => `<result${attributes(e)}/>`).join('');
      root = `<root${attributes(json)} response="True">${items}</root>`;
      break;
    }
    case 'search': {
      const items = (json.Search as Json[]).map((e) => `<result${attributes(e)}/>`).join('');
      root = `<root totalResults="${a.totalResults}" response="True">${items}</root>`;
      break;
    }
    case 'error':
      root = `<root response="False"><error>${escapeXml(a.error)}</error></root>`;
  }
  return `<?xml version="1.0" encoding="UTF-8"?>${root}`;
}
