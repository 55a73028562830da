import type { Resolvers } from '../../generated/resolvers.js';
import type { GatewayContext } from '../../context/request.js';
import { PAGES, searchQuery, seasonNumber, titleQuery } from './input.js';
import { asRef, lookupTitle, lookupTitleRef, searchPage, seasonEpisodes, titleDetails } from './loaders.js';
import type { TitleRecord, TitleRef } from './model.js';
import { SEARCH_PAGE_SIZE } from './estimate.js';
import { refuseIfOverQuota } from './quota.js';

/**
 * A field of a title: from what the parent already knows (then at once, not as a promise: after a lookup every field
 * is known, and a promise per field costs its ticks), else from its looked-up record.
 */
function known<K extends keyof TitleRecord>(
  ref: TitleRef,
  key: K,
  ctx: GatewayContext,
): TitleRecord[K] | Promise<TitleRecord[K]> {
  const value = ref.known[key];
  return value !== undefined ? (value as TitleRecord[K]) : titleDetails(ctx, ref).then((record) => record[key]);
}

const field =
  <K extends keyof TitleRecord>(key: K) =>
  (ref: TitleRef, _args: unknown, ctx: GatewayContext) =>
    known(ref, key, ctx);

/**
 * Arguments are checked first (bad input costs no request: `parsed` is made before this is called), then the quota
 * decision made before execution.
 */
function admit<T>(ctx: GatewayContext, parsed: T): T {
  refuseIfOverQuota(ctx);
  return parsed;
}

export const titleResolvers: Resolvers = {
  Query: {
    title(_root, args, ctx) {
      return lookupTitleRef(ctx, admit(ctx, titleQuery(args)));
    },
    async searchTitles(_root, args, ctx) {
      return searchPage(ctx, admit(ctx, searchQuery(args)));
    },
  },
  TitleSearchPage: {
    totalPages: (page) => Math.ceil(page.totalResults / SEARCH_PAGE_SIZE),
    hasNextPage: (page) => page.page < PAGES.max && page.page * SEARCH_PAGE_SIZE < page.totalResults,
  },
  Title: {
    // An entity reference is looked up like `title(imdbId:)`: one request per distinct id, cached, inside the quota
    // guard; an id OMDb does not know is null.
    async __resolveReference(ref, ctx) {
      const record = await lookupTitle(
        ctx,
        admit(ctx, titleQuery({ imdbId: ref.imdbId === undefined ? undefined : String(ref.imdbId) })),
      );
      return record && asRef(record);
    },
    // `imdbId` has no resolver: every TitleRef carries it, and compiled execution reads a plain property without a
    // resolver call and its resolve info.
    title: field('title'),
    year: field('year'),
    type: field('type'),
    rated: field('rated'),
    released: field('released'),
    runtimeMinutes: field('runtimeMinutes'),
    genres: field('genres'),
    directors: field('directors'),
    writers: field('writers'),
    cast: field('cast'),
    plot: field('plot'),
    languages: field('languages'),
    countries: field('countries'),
    awards: field('awards'),
    posterUrl: field('posterUrl'),
    ratings: field('ratings'),
    imdbRating: field('imdbRating'),
    imdbVotes: field('imdbVotes'),
    metascore: field('metascore'),
    boxOffice: field('boxOffice'),
    dvd: field('dvd'),
    production: field('production'),
    website: field('website'),
    totalSeasons: field('totalSeasons'),
    season: field('season'),
    episode: field('episode'),
    async series(ref, _args, ctx) {
      if ((await known(ref, 'type', ctx)) !== 'EPISODE') return null;
      const seriesId = await known(ref, 'seriesId', ctx);
      return seriesId ? { imdbId: seriesId, known: { imdbId: seriesId } } : null;
    },
    async seasons(ref, _args, ctx) {
      if ((await known(ref, 'type', ctx)) !== 'SERIES') return [];
      const count = (await known(ref, 'totalSeasons', ctx)) ?? 0;
      return Array.from({ length: count }, (_, i) => ({ seriesId: ref.imdbId, number: i + 1 }));
    },
    async episodes(ref, args, ctx) {
      const season = seasonNumber(args.season);
      if ((await known(ref, 'type', ctx)) !== 'SERIES') return [];
      return seasonEpisodes(ctx, ref.imdbId, season);
    },
  },
  TitleSeason: {
    number: (season) => season.number,
    episodes: (season, _args, ctx) => seasonEpisodes(ctx, season.seriesId, season.number),
  },
};
