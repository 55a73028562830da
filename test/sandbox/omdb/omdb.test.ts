import { describe, expect, it } from 'vitest';
import { omdbCatalog } from '../../../src/sandbox/omdb/index.js';
import { seedTitles } from '../../../src/sandbox/omdb/seed.js';
import { useSandbox } from '../../support/sandbox.js';

const env = useSandbox();
const { control } = env;

function fetchOmdb(params: Record<string, string>, path = '/'): Promise<Response> {
  return fetch(`${env.sandbox.baseUrls.omdb}${path}?${new URLSearchParams(params)}`);
}

/** A request with the sandbox key; returns status and parsed JSON body. */
async function omdb(params: Record<string, string>): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetchOmdb({ apikey: 'sandbox', ...params });
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return { status: res.status, body: await res.json() };
}

const error = (text: string) => ({ Response: 'False', Error: text });

const MOVIE_KEYS = [
  'Title',
  'Year',
  'Rated',
  'Released',
  'Runtime',
  'Genre',
  'Director',
  'Writer',
  'Actors',
  'Plot',
  'Language',
  'Country',
  'Awards',
  'Poster',
  'Ratings',
  'Metascore',
  'imdbRating',
  'imdbVotes',
  'imdbID',
  'Type',
  'DVD',
  'BoxOffice',
  'Production',
  'Website',
  'Response',
];
const SERIES_KEYS = [...MOVIE_KEYS.slice(0, MOVIE_KEYS.indexOf('Type') + 1), 'totalSeasons', 'Response'];
const EPISODE_KEYS = [
  'Title',
  'Year',
  'Rated',
  'Released',
  'Season',
  'Episode',
  'Runtime',
  'Genre',
  'Director',
  'Writer',
  'Actors',
  'Plot',
  'Language',
  'Country',
  'Awards',
  'Poster',
  'Ratings',
  'Metascore',
  'imdbRating',
  'imdbVotes',
  'imdbID',
  'seriesID',
  'Type',
  'Response',
];

describe('API key and daily quota', () => {
  it('answers 401 "No API key provided." without a key, also for an empty one', async () => {
    for (const params of [{ i: 'tt0078346' }, { i: 'tt0078346', apikey: '' }] as Record<string, string>[]) {
      const res = await fetchOmdb(params);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual(error('No API key provided.'));
    }
  });

  it('answers 401 "Invalid API key!" for any key but sandbox', async () => {
    for (const apikey of ['abc123', 'Sandbox']) {
      const res = await fetchOmdb({ apikey, i: 'tt0078346' });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(error('Invalid API key!'));
    }
  });

  it('counts every valid-key request against the daily quota, errors included, and refuses the rest with 401', async () => {
    await control('config', { omdbDailyQuota: 3 });
    await fetchOmdb({ apikey: 'wrong', i: 'tt0078346' }); // an invalid key does not use the sandbox key's quota
    expect((await omdb({ i: 'tt0078346' })).status).toBe(200);
    expect((await omdb({ t: 'No Such Film Anywhere' })).body).toEqual(error('Movie not found!'));
    expect((await omdb({ s: 'batman' })).status).toBe(200);
    const over = await omdb({ i: 'tt0078346' });
    expect(over).toEqual({ status: 401, body: error('Request limit reached!') });
  });

  it('starts a fresh quota on the next UTC day of the sandbox clock', async () => {
    await control('config', { omdbDailyQuota: 1 });
    expect((await omdb({ i: 'tt0078346' })).status).toBe(200);
    expect((await omdb({ i: 'tt0078346' })).status).toBe(401);
    await control('clock', { offsetMs: 86_400_000 });
    expect((await omdb({ i: 'tt0078346' })).status).toBe(200);
    expect((await omdb({ i: 'tt0078346' })).body).toEqual(error('Request limit reached!'));
  });

  it('forgets used quota on reset', async () => {
    await control('config', { omdbDailyQuota: 1 });
    await omdb({ i: 'tt0078346' });
    expect((await omdb({ i: 'tt0078346' })).status).toBe(401);
    await control('reset', {});
    await control('config', { omdbDailyQuota: 1 });
    expect((await omdb({ i: 'tt0078346' })).status).toBe(200);
  });
});

describe('title by ID or title', () => {
  it('serves the documentation example for tt0078346 verbatim, keys in the real order', async () => {
    const { status, body } = await omdb({ i: 'tt0078346' });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(MOVIE_KEYS);
    expect(body).toMatchObject({
      Title: 'Superman',
      Year: '1978',
      Rated: 'PG',
      Released: '15 Dec 1978',
      Runtime: '143 min',
      Genre: 'Action, Adventure, Sci-Fi',
      Director: 'Richard Donner',
      Writer: 'Jerry Siegel, Joe Shuster, Mario Puzo',
      Actors: 'Christopher Reeve, Margot Kidder, Gene Hackman',
      Language: 'English',
      Country: 'United States, United Kingdom, Switzerland, Panama',
      Awards: 'Nominated for 3 Oscars. 19 wins & 23 nominations total',
      Ratings: [
        { Source: 'Internet Movie Database', Value: '7.4/10' },
        { Source: 'Rotten Tomatoes', Value: '93%' },
        { Source: 'Metacritic', Value: '82/100' },
      ],
      Metascore: '82',
      imdbRating: '7.4',
      imdbVotes: '191,580',
      imdbID: 'tt0078346',
      Type: 'movie',
      DVD: 'N/A',
      BoxOffice: '$134,478,449',
      Production: 'N/A',
      Website: 'N/A',
      Response: 'True',
    });
    expect(body.Plot).toMatch(/^An alien orphan is sent from his dying planet/);
    expect(body.Poster).toMatch(/^https:\/\/m\.media-amazon\.com\/images\/M\/.+_V1_SX300\.jpg$/);
  });

  it('accepts 8-digit IDs', async () => {
    const { body } = await omdb({ i: 'tt10838180' });
    expect(body).toMatchObject({ Title: 'The Matrix Resurrections', imdbID: 'tt10838180', Response: 'True' });
  });

  it('gives a longer, different plot with plot=full and the short one for plot=short or junk', async () => {
    const full = (await omdb({ i: 'tt0372784', plot: 'full' })).body.Plot as string;
    const short = (await omdb({ i: 'tt0372784', plot: 'short' })).body.Plot as string;
    expect(full.length).toBeGreaterThan(short.length);
    expect(full).not.toBe(short);
    expect((await omdb({ i: 'tt0372784' })).body.Plot).toBe(short);
    expect((await omdb({ i: 'tt0372784', plot: 'long' })).body.Plot).toBe(short);
  });

  it('matches t case-insensitively and exactly, picking the most voted of titles that share the name', async () => {
    expect((await omdb({ t: 'batman begins' })).body.imdbID).toBe('tt0372784');
    expect((await omdb({ t: '  BATMAN BEGINS ' })).body.imdbID).toBe('tt0372784');
    expect((await omdb({ t: 'The Avengers' })).body).toMatchObject({ imdbID: 'tt0848228', Year: '2012' });
    expect((await omdb({ t: 'batman begin' })).body).toEqual(error('Movie not found!'));
  });

  it('narrows t by y and type', async () => {
    expect((await omdb({ t: 'The Avengers', y: '1998' })).body).toMatchObject({ imdbID: 'tt0118661', Year: '1998' });
    expect((await omdb({ t: 'Batman' })).body).toMatchObject({ imdbID: 'tt0096895', Type: 'movie' });
    expect((await omdb({ t: 'Batman', type: 'series' })).body).toMatchObject({ imdbID: 'tt0059968', Type: 'series' });
    expect((await omdb({ t: 'Batman', y: '1967' })).body).toMatchObject({ imdbID: 'tt0059968', Year: '1966–1968' });
    expect((await omdb({ t: 'Superman', type: 'series' })).body).toEqual(error('Movie not found!'));
    expect((await omdb({ t: 'Superman', y: '1999' })).body).toEqual(error('Movie not found!'));
    expect((await omdb({ t: 'Superman', type: 'game' })).body).toEqual(error('Movie not found!'));
  });

  it('ignores type and y for i, and prefers i over t and s', async () => {
    expect((await omdb({ i: 'tt0078346', type: 'series', y: '2001' })).body.Title).toBe('Superman');
    expect((await omdb({ i: 'tt0078346', t: 'Batman Begins', s: 'love' })).body.Title).toBe('Superman');
    expect((await omdb({ t: 'Batman Begins', s: 'love' })).body.Title).toBe('Batman Begins');
  });

  it('answers "Incorrect IMDb ID." for malformed or unknown IDs and when i, t and s are all missing', async () => {
    for (const i of ['tt123', 'tt123456789', 'nm0000123', 'superman', 'tt9999999']) {
      expect(await omdb({ i })).toEqual({ status: 200, body: error('Incorrect IMDb ID.') });
    }
    expect(await omdb({})).toEqual({ status: 200, body: error('Incorrect IMDb ID.') });
    expect(await omdb({ s: '', y: '2000' })).toEqual({ status: 200, body: error('Incorrect IMDb ID.') });
  });

  it('accepts r=json and v=1 as the defaults they are', async () => {
    const plain = (await omdb({ i: 'tt0078346' })).body;
    expect((await omdb({ i: 'tt0078346', r: 'json', v: '1' })).body).toEqual(plain);
  });
});

describe('series, seasons and episodes', () => {
  it('gives a series a Year range with an en dash and totalSeasons, without the movie-only fields', async () => {
    const { body } = await omdb({ i: 'tt0944947' });
    expect(Object.keys(body)).toEqual(SERIES_KEYS);
    expect(body).toMatchObject({ Title: 'Game of Thrones', Year: '2011–2019', Type: 'series', totalSeasons: '8' });
    expect((await omdb({ t: 'The Mandalorian' })).body.Year).toBe('2019–');
    expect((await omdb({ t: 'Chernobyl' })).body).toMatchObject({ Year: '2019', totalSeasons: '1' });
  });

  it('lists a season with ISO release dates', async () => {
    const { status, body } = await omdb({ t: 'Game of Thrones', Season: '1' });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['Title', 'Season', 'totalSeasons', 'Episodes', 'Response']);
    expect(body).toMatchObject({ Title: 'Game of Thrones', Season: '1', totalSeasons: '8', Response: 'True' });
    expect(body.Episodes).toHaveLength(10);
    expect(body.Episodes[0]).toEqual({
      Title: 'Winter Is Coming',
      Released: '2011-04-17',
      Episode: '1',
      imdbRating: '8.9',
      imdbID: 'tt1480055',
    });
    for (const e of body.Episodes) {
      expect(Object.keys(e)).toEqual(['Title', 'Released', 'Episode', 'imdbRating', 'imdbID']);
      expect(e.Released).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect((await omdb({ i: 'tt0944947', season: '8' })).body.Episodes).toHaveLength(6);
  });

  it('shows "N/A" ratings for the newest episodes of a running series', async () => {
    const series = (await omdb({ t: 'The Mandalorian' })).body;
    const last = (await omdb({ i: series.imdbID, Season: series.totalSeasons })).body.Episodes as {
      imdbRating: string;
    }[];
    expect(last.at(-1)!.imdbRating).toBe('N/A');
    expect(last[0].imdbRating).toMatch(/^\d\.\d$/);
  });

  it('serves one episode by Season and Episode, the same record as by its own ID', async () => {
    const { body } = await omdb({ t: 'game of thrones', Season: '1', Episode: '1' });
    expect(Object.keys(body)).toEqual(EPISODE_KEYS);
    expect(body).toMatchObject({
      Title: 'Winter Is Coming',
      Year: '2011',
      Released: '17 Apr 2011',
      Season: '1',
      Episode: '1',
      imdbID: 'tt1480055',
      seriesID: 'tt0944947',
      Type: 'episode',
      imdbRating: '8.9',
    });
    expect((await omdb({ i: 'tt1480055' })).body).toEqual(body);
    expect((await omdb({ i: 'tt0944947', season: '1', episode: '1' })).body).toEqual(body);
  });

  it('makes every listed episode a real record reachable by its ID', async () => {
    const list = (await omdb({ t: 'Breaking Bad', Season: '2' })).body.Episodes as {
      imdbID: string;
      Title: string;
      Episode: string;
    }[];
    expect(list).toHaveLength(13);
    for (const e of list) {
      const { body } = await omdb({ i: e.imdbID, plot: 'full' });
      expect(body).toMatchObject({
        Title: e.Title,
        Season: '2',
        Episode: e.Episode,
        seriesID: 'tt0903747',
        Type: 'episode',
      });
    }
  });

  it('ignores Episode without Season', async () => {
    expect((await omdb({ i: 'tt0944947', Episode: '3' })).body.Type).toBe('series');
  });

  it('answers "Series or episode not found!" for missing seasons, episodes and non-series', async () => {
    const notFound = { status: 200, body: error('Series or episode not found!') };
    expect(await omdb({ i: 'tt0944947', Season: '9' })).toEqual(notFound);
    expect(await omdb({ i: 'tt0944947', Season: '0' })).toEqual(notFound);
    expect(await omdb({ i: 'tt0944947', Season: 'one' })).toEqual(notFound);
    expect(await omdb({ i: 'tt0944947', Season: '1', Episode: '11' })).toEqual(notFound);
    expect(await omdb({ i: 'tt0078346', Season: '1' })).toEqual(notFound);
    expect(await omdb({ t: 'No Such Show', Season: '1' })).toEqual(notFound);
  });
});

describe('search', () => {
  it('returns 10 items of five fields and totalResults as a string', async () => {
    const { status, body } = await omdb({ s: 'Batman' });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['Search', 'totalResults', 'Response']);
    expect(body.totalResults).toBe('14');
    expect(body.Search).toHaveLength(10);
    for (const item of body.Search) expect(Object.keys(item)).toEqual(['Title', 'Year', 'imdbID', 'Type', 'Poster']);
    expect(body.Search[0]).toMatchObject({ Title: 'Batman Begins', imdbID: 'tt0372784', Type: 'movie', Year: '2005' });
  });

  it('pages to the end returning every hit exactly once, then "Movie not found!"', async () => {
    for (const s of ['star', 'love', 'night']) {
      const first = await omdb({ s });
      const total = Number(first.body.totalResults);
      expect(total).toBeGreaterThan(10);
      const ids: string[] = [];
      let page = 1;
      for (; ; page++) {
        const { body } = await omdb({ s, page: String(page) });
        if (body.Response === 'False') {
          expect(body).toEqual(error('Movie not found!'));
          break;
        }
        expect(body.totalResults).toBe(String(total));
        ids.push(...body.Search.map((x: { imdbID: string }) => x.imdbID));
      }
      expect(page).toBe(Math.ceil(total / 10) + 1);
      expect(ids).toHaveLength(total);
      expect(new Set(ids).size).toBe(total);
    }
  });

  it('matches whole words, all of them, case-insensitively', async () => {
    const { body } = await omdb({ s: 'DARK knight' });
    expect(body.Search.map((x: { Title: string }) => x.Title).sort()).toEqual([
      'Batman: The Dark Knight Returns, Part 1',
      'The Dark Knight',
      'The Dark Knight Rises',
    ]);
    expect((await omdb({ s: 'batma' })).body).toEqual(error('Movie not found!'));
    expect((await omdb({ s: 'zzzqqq' })).body).toEqual(error('Movie not found!'));
  });

  it('narrows by type and y', async () => {
    const series = (await omdb({ s: 'batman', type: 'series' })).body;
    expect(series.Search.map((x: { imdbID: string }) => x.imdbID).sort()).toEqual(['tt0059968', 'tt0103359']);
    expect(series.totalResults).toBe('2');
    const y = (await omdb({ s: 'batman', y: '2016' })).body;
    expect(y.Search.map((x: { Title: string }) => x.Title).sort()).toEqual([
      'Batman v Superman: Dawn of Justice',
      'Batman: The Killing Joke',
    ]);
    expect((await omdb({ s: 'batman', type: 'movie' })).body.totalResults).toBe('12');
  });

  it('finds episodes only with type=episode', async () => {
    expect((await omdb({ s: 'winter is coming' })).body).toEqual(error('Movie not found!'));
    const { body } = await omdb({ s: 'winter is coming', type: 'episode' });
    expect(body.Search[0]).toMatchObject({ Title: 'Winter Is Coming', imdbID: 'tt1480055', Type: 'episode' });
  });

  it('refuses too short or stop-word-only queries with "Too many results."', async () => {
    for (const s of ['ab', ' a  ', 'the', 'of the', 'The']) {
      expect(await omdb({ s })).toEqual({ status: 200, body: error('Too many results.') });
    }
  });

  it('answers page 0 with the SQL Server error the real service leaks, and treats a non-numeric page as 1', async () => {
    expect((await omdb({ s: 'batman', page: '0' })).body).toEqual(
      error('The offset specified in a OFFSET clause may not be negative.'),
    );
    expect((await omdb({ s: 'batman', page: 'two' })).body).toEqual((await omdb({ s: 'batman' })).body);
  });
});

describe('catalog data', () => {
  it('is deterministic', () => {
    expect(JSON.stringify(seedTitles())).toBe(JSON.stringify(seedTitles()));
  });

  it('holds about 250 movies, 30 series and a few thousand episodes', () => {
    const counts = { movie: 0, series: 0, episode: 0 };
    for (const t of omdbCatalog().all()) counts[t.type]++;
    expect(counts.movie).toBe(250);
    expect(counts.series).toBe(30);
    expect(counts.episode).toBeGreaterThan(1500);
  });

  it('writes missing values as "N/A" in a realistic share of movies and keeps display formats', async () => {
    await control('config', { omdbDailyQuota: 10_000 });
    const ids = [...omdbCatalog().all()].filter((t) => t.type === 'movie').map((t) => t.imdbID);
    const movies = await Promise.all(ids.map(async (i) => (await omdb({ i })).body));
    const share = (key: string) => movies.filter((m) => m[key] === 'N/A').length / movies.length;
    for (const key of ['Awards', 'BoxOffice', 'Metascore', 'DVD', 'Production', 'Website'])
      expect(share(key)).toBeGreaterThan(0.15);
    for (const key of ['Rated', 'Poster', 'imdbRating', 'imdbVotes', 'Released', 'Runtime']) {
      expect(share(key)).toBeGreaterThan(0);
      expect(share(key)).toBeLessThan(0.15);
    }
    expect(movies.some((m) => m.Ratings.length === 0 && m.imdbRating === 'N/A')).toBe(true);
    for (const m of movies) {
      for (const [k, v] of Object.entries(m)) if (k !== 'Ratings') expect(typeof v, `${m.imdbID} ${k}`).toBe('string');
      if (Number(m.Year) < 1997) expect(m.DVD).toBe('N/A');
      expect(m.imdbVotes).toMatch(/^(\d{1,3}(,\d{3})*|N\/A)$/);
      expect(m.BoxOffice).toMatch(/^(\$\d{1,3}(,\d{3})*|N\/A)$/);
      expect(m.Runtime).toMatch(/^(\d+ min|N\/A)$/);
      expect(m.Released).toMatch(/^(\d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}|N\/A)$/);
      expect(m.Metascore).toMatch(/^(\d{1,3}|N\/A)$/);
      for (const r of m.Ratings) {
        const format = {
          'Internet Movie Database': /^\d\.\d\/10$/,
          'Rotten Tomatoes': /^\d{1,3}%$/,
          Metacritic: /^\d{1,3}\/100$/,
        }[r.Source as string];
        expect(r.Value).toMatch(format!);
      }
      if (m.Metascore !== 'N/A')
        expect(m.Ratings).toContainEqual({ Source: 'Metacritic', Value: `${m.Metascore}/100` });
      if (m.imdbRating !== 'N/A')
        expect(m.Ratings[0]).toEqual({ Source: 'Internet Movie Database', Value: `${m.imdbRating}/10` });
    }
  });
});

describe('wire forms', () => {
  it('answers r=xml with attributes, escaped, as text/xml', async () => {
    const res = await fetchOmdb({ apikey: 'sandbox', i: 'tt0078346', r: 'xml' });
    expect(res.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    const text = await res.text();
    expect(text).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?><root response="True"><movie title="Superman" year="1978" rated="PG" released="15 Dec 1978" /,
    );
    expect(text).toContain('awards="Nominated for 3 Oscars. 19 wins &amp; 23 nominations total"');
    expect(text).toContain('imdbVotes="191,580" imdbID="tt0078346" type="movie"/></root>');
  });

  it('answers an XML search with totalResults on the root and one result element per item', async () => {
    const text = await (await fetchOmdb({ apikey: 'sandbox', s: 'batman', r: 'XML' })).text();
    expect(text).toContain(
      '<root totalResults="14" response="True"><result title="Batman Begins" year="2005" imdbID="tt0372784" type="movie" poster="',
    );
    expect(text.match(/<result /g)).toHaveLength(10);
  });

  it('answers errors in XML too, with the same status', async () => {
    const res = await fetchOmdb({ i: 'tt0078346', r: 'xml' });
    expect(res.status).toBe(401);
    expect(await res.text()).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><root response="False"><error>No API key provided.</error></root>',
    );
    const notFound = await fetchOmdb({ apikey: 'sandbox', t: 'No Such Film', r: 'xml' });
    expect(await notFound.text()).toContain('<root response="False"><error>Movie not found!</error></root>');
  });

  it('wraps JSON in the callback for JSONP, and ignores a callback that is not a plain name', async () => {
    const res = await fetchOmdb({ apikey: 'sandbox', i: 'tt0078346', callback: 'app.onMovie' });
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const text = await res.text();
    expect(text.startsWith('app.onMovie({"Title":"Superman"')).toBe(true);
    expect(text.endsWith('})')).toBe(true);
    expect(JSON.parse(text.slice('app.onMovie('.length, -1)).imdbID).toBe('tt0078346');
    const unsafe = await fetchOmdb({ apikey: 'sandbox', i: 'tt0078346', callback: 'alert(1);x' });
    expect(unsafe.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const bad = await (await fetchOmdb({ apikey: 'nope', i: 'tt0078346', callback: 'cb' })).text();
    expect(bad).toBe('cb({"Response":"False","Error":"Invalid API key!"})');
  });

  it('serves the API at /omdb and /omdb/, and nothing below', async () => {
    const bare = await fetch(`${env.sandbox.origin}/omdb?apikey=sandbox&i=tt0078346`);
    expect((await bare.json()).Title).toBe('Superman');
    expect((await fetchOmdb({ apikey: 'sandbox', i: 'tt0078346' }, '/other')).status).toBe(404);
  });
});

describe('sandbox integration', () => {
  it('records each request with its URL and status', async () => {
    await omdb({ i: 'tt0078346' });
    await fetchOmdb({ apikey: 'wrong', s: 'love' });
    const list = (await (await fetch(`${env.sandbox.origin}/_sandbox/requests`)).json()) as {
      upstream: string;
      method: string;
      url: string;
      status: number;
    }[];
    expect(list.map(({ upstream, method, url, status }) => ({ upstream, method, url, status }))).toEqual([
      { upstream: 'omdb', method: 'GET', url: '/omdb/?apikey=sandbox&i=tt0078346', status: 200 },
      { upstream: 'omdb', method: 'GET', url: '/omdb/?apikey=wrong&s=love', status: 401 },
    ]);
  });

  it('answers an injected fault with an OMDb error body, without using quota', async () => {
    await control('config', { omdbDailyQuota: 1 });
    await control('faults', { upstream: 'omdb', status: 503 });
    const res = await fetchOmdb({ apikey: 'sandbox', i: 'tt0078346' });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual(error('Something went wrong.'));
    expect((await omdb({ i: 'tt0078346' })).status).toBe(200);
  });

  it('shapes injected 401 and 429 faults like the real key and limit errors', async () => {
    await control('faults', [
      { upstream: 'omdb', status: 401 },
      { upstream: 'omdb', status: 429 },
    ]);
    expect(await (await fetchOmdb({ apikey: 'sandbox', i: 'tt0078346' })).json()).toEqual(error('Invalid API key!'));
    expect(await (await fetchOmdb({ apikey: 'sandbox', i: 'tt0078346' })).json()).toEqual(
      error('Request limit reached!'),
    );
  });
});
