import { describe, expect, it } from 'vitest';
import {
  decimal,
  integer,
  MAX_SERIES_SEASONS,
  isoDate,
  list,
  ratings,
  runtimeMinutes,
  text,
  toSearchItem,
  toSeasonEpisodes,
  plainTitleRecord,
  toTitleRecord,
  toTitleType,
} from '../../../src/domains/titles/mapping.js';
import type { OmdbTitleJson } from '../../../src/upstreams/omdb/types.js';

const superman: OmdbTitleJson = {
  Title: 'Superman',
  Year: '1978',
  Rated: 'PG',
  Released: '15 Dec 1978',
  Runtime: '143 min',
  Genre: 'Action, Adventure, Sci-Fi',
  Director: 'Richard Donner',
  Writer: 'Jerry Siegel, Joe Shuster, Mario Puzo',
  Actors: 'Christopher Reeve, Margot Kidder, Gene Hackman',
  Plot: 'An alien orphan is sent from his dying planet.',
  Language: 'English',
  Country: 'United States, United Kingdom, Switzerland, Panama',
  Awards: 'Nominated for 3 Oscars. 19 wins & 23 nominations total',
  Poster: 'https://m.media-amazon.com/images/M/x.jpg',
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
};

const allNa: OmdbTitleJson = {
  Title: 'Obscure',
  Year: 'N/A',
  Rated: 'N/A',
  Released: 'N/A',
  Runtime: 'N/A',
  Genre: 'N/A',
  Director: 'N/A',
  Writer: 'N/A',
  Actors: 'N/A',
  Plot: 'N/A',
  Language: 'N/A',
  Country: 'N/A',
  Awards: 'N/A',
  Poster: 'N/A',
  Ratings: [],
  Metascore: 'N/A',
  imdbRating: 'N/A',
  imdbVotes: 'N/A',
  imdbID: 'tt1234567',
  Type: 'movie',
  DVD: 'N/A',
  BoxOffice: 'N/A',
  Production: 'N/A',
  Website: 'N/A',
};

describe('toTitleRecord', () => {
  it('parses numbers, splits lists, turns dates to ISO and keeps the rest as text', () => {
    expect(plainTitleRecord(toTitleRecord(superman))).toEqual({
      imdbId: 'tt0078346',
      title: 'Superman',
      year: '1978',
      type: 'MOVIE',
      rated: 'PG',
      released: '1978-12-15',
      runtimeMinutes: 143,
      genres: ['Action', 'Adventure', 'Sci-Fi'],
      directors: ['Richard Donner'],
      writers: ['Jerry Siegel', 'Joe Shuster', 'Mario Puzo'],
      cast: ['Christopher Reeve', 'Margot Kidder', 'Gene Hackman'],
      plot: 'An alien orphan is sent from his dying planet.',
      languages: ['English'],
      countries: ['United States', 'United Kingdom', 'Switzerland', 'Panama'],
      awards: 'Nominated for 3 Oscars. 19 wins & 23 nominations total',
      posterUrl: 'https://m.media-amazon.com/images/M/x.jpg',
      ratings: [
        { source: 'Internet Movie Database', value: '7.4/10' },
        { source: 'Rotten Tomatoes', value: '93%' },
        { source: 'Metacritic', value: '82/100' },
      ],
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
      seriesId: null,
    });
  });

  it('turns every "N/A" into null or an empty list, never the string', () => {
    const record = toTitleRecord(allNa);
    for (const [key, value] of Object.entries(plainTitleRecord(record))) {
      if (['imdbId', 'title', 'type'].includes(key)) continue;
      expect(value === null || (Array.isArray(value) && value.length === 0), `${key} = ${JSON.stringify(value)}`).toBe(
        true,
      );
    }
    expect(JSON.stringify(record)).not.toContain('N/A');
  });

  it('reads a series range year and totalSeasons, and an episode its season, number and series', () => {
    const series = toTitleRecord({
      Title: 'Game of Thrones',
      Year: '2011–2019',
      imdbID: 'tt0944947',
      Type: 'series',
      totalSeasons: '8',
    });
    expect(series).toMatchObject({ year: '2011–2019', type: 'SERIES', totalSeasons: 8, seriesId: null });
    const episode = toTitleRecord({
      Title: 'Winter Is Coming',
      Year: '2011',
      Season: '1',
      Episode: '1',
      imdbID: 'tt1480055',
      seriesID: 'tt0944947',
      Type: 'episode',
    });
    expect(episode).toMatchObject({
      type: 'EPISODE',
      season: 1,
      episode: 1,
      seriesId: 'tt0944947',
      genres: [],
      ratings: [],
    });
  });
  it('takes a series to have at most MAX_SERIES_SEASONS seasons, whatever count an answer claims', () => {
    expect(
      toTitleRecord({ Title: 'Odd', Year: '2001', imdbID: 'tt0000001', Type: 'series', totalSeasons: '1000000000' })
        .totalSeasons,
    ).toBe(MAX_SERIES_SEASONS);
    expect(
      toTitleRecord({ Title: 'Odd', Year: '2001', imdbID: 'tt0000001', Type: 'series', totalSeasons: '-3' })
        .totalSeasons,
    ).toBeNull();
  });
});

describe('field parsers', () => {
  it('strips thousands separators and refuses what is not a number', () => {
    expect(integer('1,234,567')).toBe(1234567);
    expect(integer('82')).toBe(82);
    expect(integer('N/A')).toBeNull();
    expect(integer('$12')).toBeNull();
    expect(integer(undefined)).toBeNull();
    expect(decimal('7.4')).toBe(7.4);
    expect(decimal('N/A')).toBeNull();
    expect(runtimeMinutes('62 min')).toBe(62);
    expect(runtimeMinutes('N/A')).toBeNull();
  });

  it('reads both date forms OMDb writes and nothing else', () => {
    expect(isoDate('01 Apr 2011')).toBe('2011-04-01');
    expect(isoDate('5 May 1999')).toBe('1999-05-05');
    expect(isoDate('2011-04-17')).toBe('2011-04-17');
    expect(isoDate('N/A')).toBeNull();
    expect(isoDate('sometime in 1999')).toBeNull();
  });

  it('splits comma lists, trimming, and treats "N/A" and blanks as missing', () => {
    expect(list(' Drama ,Crime,, ')).toEqual(['Drama', 'Crime']);
    expect(list('N/A')).toEqual([]);
    expect(text('  N/A ')).toBeNull();
    expect(text('')).toBeNull();
  });

  it('maps types case-insensitively and an unknown one to UNKNOWN_FUTURE_VALUE', () => {
    expect(['movie', 'SERIES', 'Episode', 'game', 'podcast', undefined].map(toTitleType)).toEqual([
      'MOVIE',
      'SERIES',
      'EPISODE',
      'GAME',
      'UNKNOWN_FUTURE_VALUE',
      'UNKNOWN_FUTURE_VALUE',
    ]);
  });

  it('puts the IMDb rating first, adding it from imdbRating when Ratings lacks it', () => {
    expect(
      ratings({
        Ratings: [
          { Source: 'Metacritic', Value: '82/100' },
          { Source: 'Internet Movie Database', Value: '7.4/10' },
        ],
        imdbRating: '7.4',
      }),
    ).toEqual([
      { source: 'Internet Movie Database', value: '7.4/10' },
      { source: 'Metacritic', value: '82/100' },
    ]);
    expect(ratings({ Ratings: [], imdbRating: '6.1' })).toEqual([
      { source: 'Internet Movie Database', value: '6.1/10' },
    ]);
    expect(ratings({ Ratings: [], imdbRating: 'N/A' })).toEqual([]);
  });
});

describe('partial titles', () => {
  it('knows exactly the five search fields of a search hit', () => {
    expect(
      toSearchItem({ Title: 'Batman Begins', Year: '2005', imdbID: 'tt0372784', Type: 'movie', Poster: 'N/A' }),
    ).toEqual({
      imdbId: 'tt0372784',
      known: { imdbId: 'tt0372784', title: 'Batman Begins', year: '2005', type: 'MOVIE', posterUrl: null },
    });
  });

  it('gives season-list episodes their season, number, ISO date and series', () => {
    const [e] = toSeasonEpisodes(
      {
        Title: 'Game of Thrones',
        Season: '1',
        totalSeasons: '8',
        Episodes: [
          { Title: 'Winter Is Coming', Released: '2011-04-17', Episode: '1', imdbRating: 'N/A', imdbID: 'tt1480055' },
        ],
      },
      'tt0944947',
    );
    expect(e.known).toEqual({
      imdbId: 'tt1480055',
      title: 'Winter Is Coming',
      type: 'EPISODE',
      released: '2011-04-17',
      imdbRating: null,
      season: 1,
      episode: 1,
      seriesId: 'tt0944947',
    });
  });
});
