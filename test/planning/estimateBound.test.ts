import { afterAll, describe, expect, it } from 'vitest';
import { KNOWN_SERIES } from '../../src/sandbox/omdb/knownTitles.js';
import { pipelineHarness, type PipelineHarness } from '../support/pipeline.js';

/**
 * The estimate bounds the work: an operation's `extensions.cost.upstreamRequests` is never above its
 * `upstreamRequestsEstimated` (no retries here: the sandbox answers every request), and it is exactly what the
 * sandbox received. Over every trusted operation, and over series queries of every shape a probe tried first, on
 * the sandbox's series at the edges of the estimate's bounds (seasons of 5 to 65 episodes, 1 to 8 seasons), with
 * nothing cached and then with what the first run cached.
 */
interface Cost {
  estimated: number;
  actual: number;
  upstreamRequestsEstimated: number;
  upstreamRequests: number;
}

let h: PipelineHarness;
/** A gateway with nothing cached, whose budget and quota admit every shape below: the estimate is what is checked. */
async function freshGateway(): Promise<void> {
  await h?.close();
  h = await pipelineHarness({
    RESPONSE_CACHE_MAX_BYTES: '0',
    GATEWAY_MAX_UPSTREAM_REQUESTS: '100000',
    OMDB_DAILY_QUOTA: '100000',
  });
}
afterAll(() => h?.close());

/** Runs one operation; returns its cost after checking it against the sandbox's record. */
async function run(query: string, variables: Record<string, unknown> = {}): Promise<Cost & { errors: number }> {
  h.sandbox.record.clear();
  const result = await h.inProcess.execute({ query, variables });
  const cost = result.extensions?.cost as Cost;
  // The Graph app token ('login') is the gateway's own, not the operation's.
  const received = h.sandbox.record.list().filter((r) => r.upstream !== 'login').length;
  expect(cost.upstreamRequests, query).toBe(received);
  expect(cost.upstreamRequests, query).toBeLessThanOrEqual(cost.upstreamRequestsEstimated);
  return { ...cost, errors: result.errors?.length ?? 0 };
}

/** Variables for each trusted operation (a new one fails here until it has some). */
const TRUSTED_VARIABLES: Record<string, Array<Record<string, unknown>>> = {
  ChatProviders: [{}],
  RecentServiceIssues: [{}, { first: 3 }],
  ServiceHealthOverview: [{}, { first: 2 }],
  ServiceHealth: [{ id: 'Exchange' }, { id: 'Nothing such', issues: 50 }],
  TitleLookup: [{ imdbId: 'tt0944947' }, { title: 'Breaking Bad', type: 'SERIES' }, { title: 'No such title at all' }],
  TitleSearch: [{ query: 'batman' }, { query: 'star', page: 2, type: 'SERIES' }],
};

describe('every trusted operation', () => {
  it('sends no more upstream requests than it was estimated at, cold and cached', async () => {
    await freshGateway();
    const operations = h.services.trusted.operations.list();
    expect(operations.map((op) => op.name).sort()).toEqual(Object.keys(TRUSTED_VARIABLES).sort());
    let sent = 0;
    for (const op of operations) {
      for (const variables of TRUSTED_VARIABLES[op.name]) {
        for (let pass = 0; pass < 2; pass++) {
          const cost = await run(op.query, variables);
          expect(cost.errors, `${op.name} ${JSON.stringify(variables)}`).toBe(0);
          sent += cost.upstreamRequests;
        }
      }
    }
    // The check is not vacuous: the operations did reach their upstreams.
    expect(sent).toBeGreaterThan(5);
  });
});

const SHAPES: Record<string, (id: string) => string> = {
  'one season, each episode looked up': (id) =>
    `{ title(imdbId: "${id}") { title episodes(season: 1) { title plot } } }`,
  "every season's list": (id) => `{ title(imdbId: "${id}") { seasons { number episodes { title released } } } }`,
  'every episode looked up': (id) => `{ title(imdbId: "${id}") { seasons { episodes { plot } } } }`,
  'nested: episodes, their series, its seasons': (id) =>
    `{ title(imdbId: "${id}") { seasons { episodes { title series { title seasons { number episodes { title } } } } } } }`,
  "nested: an episode's series, its season's episodes looked up": (id) =>
    `{ title(imdbId: "${id}") { episodes(season: 2) { series { episodes(season: 1) { directors } } } } }`,
  'two series in one operation': (id) =>
    `{ a: title(imdbId: "${id}") { episodes(season: 1) { title plot } } b: title(title: "Batman", type: SERIES) { seasons { episodes { imdbRating writers } } } }`,
};

/** Series of the sandbox at the edges of the estimate's bounds: seasons over 26 episodes, 8 seasons, the fewest. */
const SERIES = KNOWN_SERIES.filter(
  (s) => Math.max(...s.seasons) > 26 || s.seasons.length >= 8 || s.seasons.length <= 3,
);

describe("series queries on the sandbox's series", () => {
  it.each(Object.entries(SHAPES))(
    '%s: never more requests than estimated, whatever the season holds',
    async (_shape, query) => {
      await freshGateway();
      let cut = 0;
      let whole = 0;
      expect(SERIES.map((s) => s.id)).toContain('tt0103359');
      for (const series of SERIES) {
        const first = await run(query(series.id));
        const again = await run(query(series.id));
        // A run cut at its estimate says so; the second run is estimated from what the first fetched, so it finishes.
        if (first.errors) cut++;
        expect(again.errors).toBe(0);
        whole += first.upstreamRequests + again.upstreamRequests;
      }
      expect(whole).toBeGreaterThan(0);
      // Only seasons longer than the estimate's 26 episodes are cut, and only where each episode is looked up.
      expect(cut).toBeLessThanOrEqual(3);
    },
  );
});
