import { describe, expect, it } from 'vitest';
import { formEncoded, omdbQueryKey } from '../../../src/upstreams/omdb/query.js';

/** The keys of the loaders, the in-flight map and the shared cache (Redis included) must not change with the encoder. */
describe('formEncoded writes what URLSearchParams writes', () => {
  const samples = [
    'tt0133093',
    'The Matrix',
    "Schindler's List (1993)!",
    'Amélie ~ 東京物語 & more = 100% *-._',
    'a+b/c?d#e',
    'lone \ud800 surrogate',
    '',
    '😀 emoji',
  ];
  it.each(samples)('%s', (value) => {
    const pairs: Array<[string, string]> = [
      ['t', value],
      ['y', '1999'],
      ['apikey', value],
    ];
    expect(formEncoded(pairs)).toBe(new URLSearchParams(pairs).toString());
  });

  it('for 2,000 random strings of every code unit range', () => {
    let seed = 42;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 2000; i++) {
      const length = next() % 12;
      let value = '';
      for (let j = 0; j < length; j++)
        value += String.fromCharCode(next() % 4 === 0 ? next() % 0x10000 : 32 + (next() % 95));
      expect(formEncoded([['s', value]])).toBe(new URLSearchParams([['s', value]]).toString());
    }
  });

  it('keys as before: lower-cased titles, trimmed ids, plot only when full', () => {
    expect(omdbQueryKey({ kind: 'byTitle', title: '  The   Matrix ', year: 1999, plot: 'full' })).toBe(
      't=the+matrix&y=1999&plot=full',
    );
    expect(omdbQueryKey({ kind: 'byId', imdbId: ' TT0133093 ', plot: 'short' })).toBe('i=tt0133093');
  });

  it('keys a lookup by id, written out, as the pairs of its normalized query encode', () => {
    for (const imdbId of [' TT0133093 ', 'tt1', 'a b&c=d', 'ÄÖ~!', '\ud800', '', 'x+y%20'])
      for (const plot of ['short', 'full'] as const) {
        const q = { kind: 'byId', imdbId, plot } as const;
        const pairs = [['i', imdbId.trim().toLowerCase()], ...(plot === 'full' ? [['plot', 'full']] : [])] as const;
        expect(omdbQueryKey({ ...q }), JSON.stringify(q)).toBe(formEncoded(pairs as never));
      }
  });
});
