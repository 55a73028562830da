import type { CostHints } from '../../planning/cost.js';
import { UNSEEN_SEASON_EPISODES, UNSEEN_SERIES_SEASONS } from './allowance.js';
import { looksUpListedTitles, SEARCH_PAGE_SIZE } from './estimate.js';

/**
 * What the OMDb estimate knows of each field's cost (estimate.ts): the lookups (`title`, a search page, a series, a
 * season's episodes) send a request of their own; a search page has 10 items, a series is sized as the estimate
 * takes one it has not seen (8 seasons of 26 episodes), and a title has at most 3 ratings (IMDb, Rotten Tomatoes,
 * Metacritic). A listed title (a search item, a season's episode) selecting a field its listing does not carry is
 * looked up, one request each: those fields weigh the lookup.
 */
export const titlesCostHints: CostHints = {
  'Query.title': { upstream: true },
  'Query.searchTitles': { upstream: true },
  'TitleSearchPage.items': { listSize: { assumedSize: SEARCH_PAGE_SIZE } },
  Title: { lookupWhenSelected: looksUpListedTitles },
  'Title.series': { upstream: true },
  'Title.seasons': { listSize: { assumedSize: UNSEEN_SERIES_SEASONS } },
  'TitleSeason.episodes': { upstream: true, listSize: { assumedSize: UNSEEN_SEASON_EPISODES } },
  'Title.episodes': { upstream: true, listSize: { assumedSize: UNSEEN_SEASON_EPISODES } },
  'Title.ratings': { listSize: { assumedSize: 3 } },
};
