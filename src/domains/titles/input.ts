/** Arguments to OMDb queries, refused with BAD_USER_INPUT before any upstream request when they cannot be right. */
import { badInput } from '../../errors/codes.js';
import type { PlotLength, TitleType } from '../../generated/types.js';
import type { OmdbQuery } from '../../upstreams/omdb/query.js';
import { toOmdbType } from './mapping.js';

const IMDB_ID = /^tt\d{7,8}$/i;
export const YEARS = { min: 1870, max: 2100 } as const;
/** OMDb serves pages 1 to 100. */
export const PAGES = { min: 1, max: 100 } as const;

export interface TitleArgs {
  imdbId?: string | null;
  title?: string | null;
  year?: number | null;
  type?: TitleType | null;
  plot?: PlotLength | null;
}

export interface SearchArgs {
  query: string;
  year?: number | null;
  type?: TitleType | null;
  page?: number | null;
}

function year(value: number | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (value < YEARS.min || value > YEARS.max) {
    throw badInput(
      `year ${value} is outside ${YEARS.min}..${YEARS.max}: give a release year such as 1978, or leave year out.`,
      'year',
    );
  }
  return value;
}

function type(value: TitleType | null | undefined) {
  if (value === null || value === undefined) return undefined;
  if (value === 'UNKNOWN_FUTURE_VALUE') {
    throw badInput(
      'type UNKNOWN_FUTURE_VALUE only describes answers: ask for MOVIE, SERIES, EPISODE or GAME, or leave type out.',
      'type',
    );
  }
  return toOmdbType(value);
}

/** `title(...)`: exactly one of `imdbId` and `title`. */
export function titleQuery(args: TitleArgs): Extract<OmdbQuery, { kind: 'byId' | 'byTitle' }> {
  const plot = args.plot === 'FULL' ? 'full' : 'short';
  const hasId = args.imdbId !== null && args.imdbId !== undefined;
  const hasTitle = args.title !== null && args.title !== undefined;
  if (hasId && hasTitle) {
    throw badInput(
      `Give either imdbId or title, not both (got imdbId ${JSON.stringify(args.imdbId)} and title ${JSON.stringify(args.title)}).`,
      'imdbId',
    );
  }
  if (!hasId && !hasTitle)
    throw badInput('Give imdbId (e.g. "tt0078346") or title (e.g. "Superman") to look a title up.', 'imdbId');
  if (hasId) {
    const id = args.imdbId!.trim();
    if (!IMDB_ID.test(id)) {
      throw badInput(
        `imdbId ${JSON.stringify(args.imdbId)} is not an IMDb title ID: use "tt" followed by 7 or 8 digits, e.g. "tt0078346".`,
        'imdbId',
      );
    }
    if (args.year != null || args.type != null) {
      throw badInput(
        `year and type narrow a lookup by title; imdbId ${JSON.stringify(id)} names one title already, so leave them out.`,
        args.year != null ? 'year' : 'type',
      );
    }
    return { kind: 'byId', imdbId: id.toLowerCase(), plot };
  }
  if (!args.title!.trim()) throw badInput('title is empty: give the title to look up, e.g. "Superman".', 'title');
  return { kind: 'byTitle', title: args.title!, year: year(args.year), type: type(args.type), plot };
}

/** `searchTitles(...)`. */
export function searchQuery(args: SearchArgs): Extract<OmdbQuery, { kind: 'search' }> {
  if (!args.query.trim())
    throw badInput('query is empty: give words of the title to search for, e.g. "batman".', 'query');
  const page = args.page ?? 1;
  if (!Number.isInteger(page) || page < PAGES.min || page > PAGES.max) {
    throw badInput(
      `page ${page} is outside ${PAGES.min}..${PAGES.max}: OMDb serves at most ${PAGES.max} pages of 10 results.`,
      'page',
    );
  }
  return { kind: 'search', query: args.query, year: year(args.year), type: type(args.type), page };
}

/** `episodes(season:)`. */
export function seasonNumber(value: number): number {
  if (value < 1) throw badInput(`season ${value} is not a season number: seasons count from 1.`, 'season');
  return value;
}
