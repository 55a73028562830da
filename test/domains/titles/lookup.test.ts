import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { titlesExamples } from '../../../src/domains/titles/index.js';
import { exampleOperations } from '../../support/examples.js';
import { omdbQueries } from '../../support/omdbRequests.js';

let t: TestGateway;
const sent = () => omdbQueries(t.upstreamRequests('omdb'));

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());
beforeEach(() => {
  t.sandbox.faults.clear();
  t.clearUpstreamRequests();
});

describe('title lookup', () => {
  it('maps a movie to the typed record with one request: numbers, lists, ISO dates, null for "N/A"', async () => {
    const { body } = await t.query(`{ title(imdbId: "tt0078346") {
      imdbId title year type rated released runtimeMinutes genres directors writers cast languages countries awards
      posterUrl ratings { source value } imdbRating imdbVotes metascore boxOffice dvd production website totalSeasons
      season episode series { title } seasons { number } } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data.title).toMatchObject({
      imdbId: 'tt0078346',
      title: 'Superman',
      year: '1978',
      type: 'MOVIE',
      rated: 'PG',
      released: '1978-12-15',
      runtimeMinutes: 143,
      genres: ['Action', 'Adventure', 'Sci-Fi'],
      directors: ['Richard Donner'],
      cast: ['Christopher Reeve', 'Margot Kidder', 'Gene Hackman'],
      countries: ['United States', 'United Kingdom', 'Switzerland', 'Panama'],
      imdbRating: 7.4,
      imdbVotes: 191580,
      metascore: 82,
      boxOffice: '$134,478,449',
      dvd: null,
      production: null,
      website: null,
      totalSeasons: null,
      season: null,
      episode: null,
      series: null,
      seasons: [],
    });
    expect(body.data.title.ratings[0]).toEqual({ source: 'Internet Movie Database', value: '7.4/10' });
    expect(JSON.stringify(body)).not.toContain('N/A');
    expect(sent()).toEqual(['i=tt0078346']);
  });

  it('sends 3 requests for 10 aliases over 3 distinct IDs (any case, through fragments), and none when asked again', async () => {
    const query = `fragment F on Title { title cast }
      query Many {
        a: title(imdbId: "tt0468569") { title } b: title(imdbId: "TT0468569") { ...F } c: title(imdbId: " tt0468569 ") { year }
        d: title(imdbId: "tt1345836") { title } e: title(imdbId: "tt1345836") { ...F } f: title(imdbId: "tt1345836") { genres }
        g: title(imdbId: "tt0096895") { title } h: title(imdbId: "tt0096895") { ...F } i: title(imdbId: "tt0096895") { plot }
        j: title(imdbId: "tt0468569") { ... on Title { imdbRating } }
      }`;
    const first = await t.query(query);
    expect(first.body.errors).toBeUndefined();
    expect(first.body.data.b.title).toBe('The Dark Knight');
    expect(sent().sort()).toEqual(['i=tt0096895', 'i=tt0468569', 'i=tt1345836']);
    t.clearUpstreamRequests();
    const again = await t.query(query);
    expect(again.body.data).toEqual(first.body.data);
    expect(sent()).toEqual([]);
    // Each answer says so: three requests the first time (10 per request, 1 per title object), none the second.
    expect(first.body.extensions!.cost).toEqual({
      estimated: 40,
      actual: 40,
      upstreamRequestsEstimated: 3,
      upstreamRequests: 3,
    });
    expect(again.body.extensions!.cost).toEqual({
      estimated: 10,
      actual: 10,
      upstreamRequestsEstimated: 0,
      upstreamRequests: 0,
    });
  });

  it('coalesces two concurrent identical operations into one request per title', async () => {
    // Slow answers keep both operations in flight at once, so only coalescing (not the cache) can save requests.
    t.sandbox.faults.push({ upstream: 'omdb', times: 6, delayMs: 300 });
    const query =
      '{ a: title(imdbId: "tt0133093") { title } b: title(imdbId: "tt0234215") { title } c: title(imdbId: "tt0242653") { title } }';
    const [x, y] = await Promise.all([t.query(query), t.query(query)]);
    expect(x.body.data).toEqual(y.body.data);
    expect(x.body.data.a.title).toBe('The Matrix');
    expect(sent().sort()).toEqual(['i=tt0133093', 'i=tt0234215', 'i=tt0242653']);
    // A shared request counts for the operation that sent it: three between the two, each estimated alone.
    expect(x.body.extensions!.cost.upstreamRequests + y.body.extensions!.cost.upstreamRequests).toBe(3);
    expect([x, y].map((r) => r.body.extensions!.cost.upstreamRequestsEstimated)).toEqual([3, 3]);
  });

  it('looks up by title with year, type and plot, and answers a later lookup of that ID from the cache', async () => {
    const { body } = await t.query(
      '{ title(title: "  the   AVENGERS ", year: 1998, type: MOVIE, plot: FULL) { imdbId year plot } }',
    );
    expect(body.data.title).toMatchObject({ imdbId: 'tt0118661', year: '1998' });
    expect(sent()).toEqual(['t=the AVENGERS&y=1998&type=movie&plot=full']);
    t.clearUpstreamRequests();
    const byId = await t.query('{ title(imdbId: "tt0118661", plot: FULL) { title plot } }');
    expect(byId.body.data.title.plot).toBe(body.data.title.plot);
    expect(sent()).toEqual([]);
  });

  it('gives a short plot by default and a different, longer one for plot: FULL', async () => {
    const { body } = await t.query(
      '{ s: title(imdbId: "tt0372784") { plot } f: title(imdbId: "tt0372784", plot: FULL) { plot } }',
    );
    expect(body.data.f.plot.length).toBeGreaterThan(body.data.s.plot.length);
    expect(sent().sort()).toEqual(['i=tt0372784', 'i=tt0372784&plot=full']);
  });

  it('answers null for unknown IDs and titles, and remembers that briefly', async () => {
    const query = '{ a: title(imdbId: "tt9999999") { title } b: title(title: "No Such Film Anywhere") { title } }';
    const { body } = await t.query(query);
    expect(body).toEqual({ data: { a: null, b: null }, extensions: { cost: expect.any(Object) } });
    expect(sent().sort()).toEqual(['i=tt9999999', 't=No Such Film Anywhere']);
    t.clearUpstreamRequests();
    expect((await t.query(query)).body).toEqual({
      data: { a: null, b: null },
      extensions: { cost: expect.any(Object) },
    });
    expect(sent()).toEqual([]);
  });

  it('refuses bad input with BAD_USER_INPUT before any request, naming the argument, while other fields still resolve', async () => {
    const cases: Array<[string, string]> = [
      ['title(imdbId: "tt0078346", title: "Superman")', 'imdbId'],
      ['title { title }', 'imdbId'],
      ['title(imdbId: "nm0000123")', 'imdbId'],
      ['title(imdbId: "tt123")', 'imdbId'],
      ['title(imdbId: "tt0078346", year: 1978)', 'year'],
      ['title(title: "   ")', 'title'],
      ['title(title: "Superman", year: 1869)', 'year'],
      ['title(title: "Superman", year: 2101)', 'year'],
      ['title(title: "Superman", type: UNKNOWN_FUTURE_VALUE)', 'type'],
      ['searchTitles(query: "batman", page: 0)', 'page'],
      ['searchTitles(query: "batman", page: 101)', 'page'],
      ['searchTitles(query: " ")', 'query'],
      ['searchTitles(query: "batman", year: 3000)', 'year'],
    ];
    for (const [field, argument] of cases) {
      const selection = field.startsWith('search')
        ? `${field} { totalResults }`
        : field.includes('{')
          ? field
          : `${field} { title }`;
      const { body } = await t.query(`{ upstreams { id } ${selection} }`);
      expect(body.errors, field).toHaveLength(1);
      expect(body.errors![0].extensions, field).toMatchObject({ code: 'BAD_USER_INPUT', argument });
      // A failed title or search nulls only itself (schema/README.md): the gateway's own field still answers.
      expect(body.data?.upstreams, field).toContainEqual({ id: 'omdb' });
      expect(body.data?.[field.startsWith('search') ? 'searchTitles' : 'title'], field).toBeNull();
    }
    expect(sent()).toEqual([]);
  });

  it('keeps other fields when OMDb fails, reporting UPSTREAM_ERROR with the status', async () => {
    t.sandbox.faults.push({ upstream: 'omdb', times: 1, status: 500, match: 'tt0080684' });
    const { body } = await t.query(
      '{ bad: title(imdbId: "tt0080684") { title } good: title(imdbId: "tt0076759") { title } }',
    );
    expect(body.data).toEqual({ bad: null, good: { title: 'Star Wars: Episode IV - A New Hope' } });
    expect(body.errors![0]).toMatchObject({
      path: ['bad'],
      extensions: { code: 'UPSTREAM_ERROR', upstream: 'omdb', status: 500 },
    });
    expect(sent().sort()).toEqual(['i=tt0076759', 'i=tt0080684']);
  });
});

describe('search', () => {
  it('sends one request for a page whose items select only their own fields', async () => {
    const { body } = await t.query(
      '{ searchTitles(query: "Batman") { totalResults page totalPages hasNextPage items { imdbId title year type posterUrl } } }',
    );
    expect(body.errors).toBeUndefined();
    const page = body.data.searchTitles;
    expect(page).toMatchObject({ totalResults: 14, page: 1, totalPages: 2, hasNextPage: true });
    expect(page.items).toHaveLength(10);
    expect(page.items[0]).toMatchObject({ imdbId: 'tt0372784', title: 'Batman Begins', year: '2005', type: 'MOVIE' });
    expect(sent()).toEqual(['s=Batman']);
  });

  it('looks each item up once when a detail field is selected: 1 + 10 requests, deduplicated across aliases', async () => {
    const query = `{
      a: searchTitles(query: "love") { items { title cast } }
      b: searchTitles(query: "LOVE") { items { imdbId genres } }
      c: searchTitles(query: "love") { totalResults }
    }`;
    const { body } = await t.query(query);
    expect(body.errors).toBeUndefined();
    const ids = body.data.b.items.map((i: { imdbId: string }) => i.imdbId) as string[];
    expect(ids).toHaveLength(10);
    expect(body.data.a.items[0].cast.length).toBeGreaterThan(0);
    expect(sent().sort()).toEqual(['s=love', ...ids.map((id) => `i=${id}`)].sort());
  });

  it('serves the last page and an empty page past the end or without a match', async () => {
    const { body } = await t.query(`{
      last: searchTitles(query: "batman", page: 2) { totalResults page hasNextPage items { title } }
      past: searchTitles(query: "batman", page: 3) { totalResults page hasNextPage items { title } }
      none: searchTitles(query: "zzzqqq") { totalResults totalPages items { title } }
    }`);
    expect(body.data.last).toMatchObject({ totalResults: 14, page: 2, hasNextPage: false });
    expect(body.data.last.items).toHaveLength(4);
    expect(body.data.past).toEqual({ totalResults: 0, page: 3, hasNextPage: false, items: [] });
    expect(body.data.none).toEqual({ totalResults: 0, totalPages: 0, items: [] });
    expect(sent().sort()).toEqual(['s=batman&page=2', 's=batman&page=3', 's=zzzqqq']);
  });

  it('narrows by type and year', async () => {
    const { body } = await t.query(
      '{ searchTitles(query: "batman", type: SERIES) { totalResults items { imdbId type } } }',
    );
    expect(body.data.searchTitles.items.map((i: { imdbId: string }) => i.imdbId).sort()).toEqual([
      'tt0059968',
      'tt0103359',
    ]);
    expect(sent()).toEqual(['s=batman&type=series']);
  });

  it('asks for a longer query when OMDb finds too many results', async () => {
    const { body } = await t.query('{ searchTitles(query: "the") { totalResults } }');
    expect(body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'query' });
    expect(body.errors![0].message).toMatch(/longer/);
    expect(sent()).toEqual(['s=the']);
  });
});

describe('series and episodes', () => {
  it('reaches every season and its episodes from a series: one request per season list', async () => {
    const { body } = await t.query(
      '{ title(imdbId: "tt0944947") { title totalSeasons seasons { number episodes { episode title released season } } } }',
    );
    expect(body.errors).toBeUndefined();
    const series = body.data.title;
    expect(series.seasons.map((s: { number: number }) => s.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(series.seasons[0].episodes[0]).toEqual({
      episode: 1,
      title: 'Winter Is Coming',
      released: '2011-04-17',
      season: 1,
    });
    expect(series.seasons[7].episodes).toHaveLength(6);
    expect(sent().sort()).toEqual(
      ['i=tt0944947', ...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => `i=tt0944947&Season=${n}`)].sort(),
    );
  });

  it('gives episodes of one season, looking up only those whose other fields are selected, and shares the season with seasons{}', async () => {
    const { body } = await t.query(`{ title(title: "Breaking Bad") {
      episodes(season: 2) { imdbId episode imdbRating series { title } }
      seasons { number }
      none: episodes(season: 99) { title }
    } }`);
    expect(body.errors).toBeUndefined();
    expect(body.data.title.episodes).toHaveLength(13);
    expect(body.data.title.episodes[0].series).toEqual({ title: 'Breaking Bad' });
    expect(body.data.title.none).toEqual([]);
    expect(sent().sort()).toEqual(['i=tt0903747&Season=2', 'i=tt0903747&Season=99', 't=Breaking Bad']);
  });

  it("knows an episode's season, number and series, the series looked up lazily", async () => {
    // An episode of a series no other test touched (asked of the sandbox directly), so nothing is cached yet.
    const list = await (await fetch(`${t.sandbox.baseUrls.omdb}/?apikey=sandbox&i=tt8111088&Season=2`)).json();
    const episodeId = list.Episodes[2].imdbID as string;
    t.clearUpstreamRequests();
    const { body } = await t.query(
      `{ title(imdbId: "${episodeId}") { type season episode series { imdbId title totalSeasons } } }`,
    );
    expect(body.data.title).toEqual({
      type: 'EPISODE',
      season: 2,
      episode: 3,
      series: { imdbId: 'tt8111088', title: 'The Mandalorian', totalSeasons: 3 },
    });
    expect(sent().sort()).toEqual([`i=${episodeId}`, 'i=tt8111088']);
  });

  it('refuses a season below 1 before any request', async () => {
    const { body } = await t.query('{ title(imdbId: "tt0944947") { episodes(season: 0) { title } } }');
    expect(body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'season' });
  });
});

describe('GraphiQL examples', () => {
  it('run without errors, each operation of the tab', async () => {
    const operations = exampleOperations(titlesExamples);
    expect(operations.map((op) => op.name)).toEqual(['Movie', 'Search', 'Deferred', 'Series']);
    for (const op of operations) {
      const { body } = await t.query(op.query, op.variables);
      expect(body.errors, op.name).toBeUndefined();
    }
  });
});
