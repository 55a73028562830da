import type { Resolvers } from '../../generated/resolvers.js';
import type { GraphiqlExample } from '../graphiqlExample.js';
import { titleResolvers } from './resolvers.js';

/** Title metadata (OMDb): resolvers and GraphiQL tabs. */
export const titlesResolvers: Resolvers = titleResolvers;
export const titlesExamples: GraphiqlExample[] = [
  {
    title: 'A movie by IMDb ID, full plot',
    query:
      'query Movie($imdbId: ID!) {\n  title(imdbId: $imdbId, plot: FULL) {\n    title\n    year\n    type\n    runtimeMinutes\n    genres\n    directors\n    cast\n    plot\n    imdbRating\n    imdbVotes\n    ratings {\n      source\n      value\n    }\n    posterUrl\n  }\n}',
    variables: '{ "imdbId": "tt0078346" }',
  },
  {
    title: 'Search titles: one upstream request, details only where selected',
    query:
      'query Search($query: String!, $page: Int) {\n  searchTitles(query: $query, page: $page) {\n    totalResults\n    totalPages\n    items {\n      imdbId\n      title\n      year\n      type\n    }\n  }\n}',
    variables: '{ "query": "batman", "page": 1 }',
  },
  {
    title: 'Search titles, details deferred (@defer): the list first, each title as its lookup answers',
    query:
      'query SearchDeferred($query: String!) {\n  searchTitles(query: $query) {\n    totalResults\n    items {\n      imdbId\n      title\n      year\n      ... @defer(label: "details") {\n        directors\n        imdbRating\n        plot\n      }\n    }\n  }\n}',
    variables: '{ "query": "star wars" }',
  },
  {
    title: 'A series, a season and its episodes',
    query:
      'query Series {\n  title(title: "Game of Thrones", type: SERIES) {\n    title\n    year\n    totalSeasons\n    episodes(season: 1) {\n      episode\n      title\n      released\n      imdbRating\n    }\n  }\n}',
  },
];
export { decideOmdbQuota, estimateOmdbBeforeRun } from './quotaGuard.js';
