import type { Domain } from '../domain.js';
import type { GraphiqlExample } from '../graphiqlExample.js';
import { titlesCostHints } from './cost.js';
import { estimateOmdbBeforeRun } from './estimate.js';
import { useTitlesQuota } from './quota.js';
import { titleResolvers } from './resolvers.js';

export const titlesExamples: GraphiqlExample[] = [
  {
    title: 'Titles (OMDb): a movie, a search, a search with deferred details, a series. Run offers each',
    query: `# A movie by IMDb ID, with its full plot.
query Movie($imdbId: ID!) {
  title(imdbId: $imdbId, plot: FULL) {
    title
    year
    type
    runtimeMinutes
    genres
    directors
    cast
    plot
    imdbRating
    imdbVotes
    ratings { source value }
    posterUrl
  }
}

# A search: one upstream request, details only where
# selected.
query Search($search: String!, $page: Int) {
  searchTitles(query: $search, page: $page) {
    totalResults
    totalPages
    items { imdbId title year type }
  }
}

# The list first, then each title's details as its
# lookup answers (@defer).
query Deferred($deferredSearch: String!) {
  searchTitles(query: $deferredSearch) {
    totalResults
    items {
      imdbId
      title
      year
      ... @defer(label: "details") {
        directors
        imdbRating
        plot
      }
    }
  }
}

# A series, its first season's episodes.
query Series {
  title(title: "Game of Thrones", type: SERIES) {
    title
    year
    totalSeasons
    episodes(season: 1) { episode title released imdbRating }
  }
}`,
    variables: JSON.stringify({ imdbId: 'tt0078346', search: 'batman', page: 1, deferredSearch: 'star wars' }, null, 2),
  },
];

/** Title metadata (OMDb): its resolvers, the OMDb estimate, its cost hints, GraphiQL tabs and the daily-quota rule. */
export const titles: Domain = {
  name: 'titles',
  // A title is the same for every caller (OMDb with the gateway's key).
  routerSharing: 'always',
  cacheTags: { Title: 'title-{$key.imdbId}' },
  resolvers: titleResolvers,
  estimate: estimateOmdbBeforeRun,
  costHints: titlesCostHints,
  examples: titlesExamples,
  rules: ({ schema }) => [useTitlesQuota({ schema })],
};
