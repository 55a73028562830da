import { mulberry32 } from '../prng.js';
/**
 * Deterministic generation of the OMDb catalog: the real titles of `knownTitles.ts` filled out with generated fields,
 * plus generated movies and series. Every title draws from its own PRNG seeded by its key, so adding a title never
 * changes the others, and nothing depends on Math.random or the clock.
 */
import type { Episode, Movie, OmdbTitle, Rating, Series } from './catalog.js';
import { KNOWN_MOVIES, KNOWN_SERIES, type KnownMovie, type KnownSeries } from './knownTitles.js';
import {
  ACTIONS,
  ANCHOR_WORDS,
  ANTAGONISTS,
  COMPLICATIONS,
  COUNTRIES,
  FIRST_NAMES,
  LANGUAGES,
  LAST_NAMES,
  MOVIE_GENRES,
  PLACES,
  PROTAGONISTS,
  RESOLUTIONS,
  SETTINGS,
  STUDIOS,
  TITLE_ADJECTIVES,
  TITLE_NOUNS,
} from './vocabulary.js';

/** Catalog size: about 250 movies and 30 series in all (known ones included). */
const MOVIE_COUNT = 250;
const SERIES_COUNT = 30;
/** Latest year the generated data covers; fixed so the catalog does not drift with the calendar. */
const LAST_YEAR = 2024;
const NA = 'N/A';
const POSTER_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The record of the OMDb documentation's example, verbatim, so clients written against the docs see it. */
const SUPERMAN: Movie = {
  type: 'movie',
  imdbID: 'tt0078346',
  title: 'Superman',
  year: '1978',
  firstYear: 1978,
  lastYear: 1978,
  rated: 'PG',
  released: '15 Dec 1978',
  runtime: '143 min',
  genre: 'Action, Adventure, Sci-Fi',
  director: 'Richard Donner',
  writer: 'Jerry Siegel, Joe Shuster, Mario Puzo',
  actors: 'Christopher Reeve, Margot Kidder, Gene Hackman',
  plotShort:
    "An alien orphan is sent from his dying planet to Earth, where he grows up to become his adoptive home's first and greatest superhero.",
  plotFull:
    'Just before the destruction of the planet Krypton, scientist Jor-El sends his infant son Kal-El on a spaceship to Earth. ' +
    'Raised by kindly farmers Jonathan and Martha Kent, young Clark discovers the source of his superhuman powers and moves to Metropolis to fight evil. ' +
    'As Superman, he battles the villainous Lex Luthor, while, as novice reporter Clark Kent, he attempts to woo co-worker Lois Lane.',
  language: 'English',
  country: 'United States, United Kingdom, Switzerland, Panama',
  awards: 'Nominated for 3 Oscars. 19 wins & 23 nominations total',
  poster:
    'https://m.media-amazon.com/images/M/MV5BMzA0YWMwMTUtMTVhNC00NjRkLWE2ZTgtOWEzNjJhYzNiMTlkXkEyXkFqcGdeQXVyNjc1NTYyMjg@._V1_SX300.jpg',
  ratings: [
    { Source: 'Internet Movie Database', Value: '7.4/10' },
    { Source: 'Rotten Tomatoes', Value: '93%' },
    { Source: 'Metacritic', Value: '82/100' },
  ],
  metascore: '82',
  imdbRating: '7.4',
  imdbVotes: '191,580',
  popularity: 191_580,
  dvd: NA,
  boxOffice: '$134,478,449',
  production: NA,
  website: NA,
};

/** mulberry32 over an FNV-1a hash of the seed text. */
class Dice {
  readonly next: () => number;
  constructor(seed: string) {
    let h = 0x811c9dc5;
    for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
    this.next = mulberry32(h);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  /** `n` distinct items in list order. */
  some<T>(items: readonly T[], n: number): T[] {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(n, items.length)) chosen.add(Math.floor(this.next() * items.length));
    return [...chosen].sort((a, b) => a - b).map((i) => items[i]);
  }
  /** Log-uniform: votes and box office span orders of magnitude. */
  logBetween(min: number, max: number): number {
    return Math.round(Math.exp(Math.log(min) + this.next() * (Math.log(max) - Math.log(min))));
  }
}

const thousands = new Intl.NumberFormat('en-US');
const pad2 = (n: number) => String(n).padStart(2, '0');
const displayDate = (d: Date) => `${pad2(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
const isoDate = (d: Date) => d.toISOString().slice(0, 10);
const capitalize = (s: string) => s[0].toUpperCase() + s.slice(1);

function person(d: Dice): string {
  return `${d.pick(FIRST_NAMES)} ${d.pick(LAST_NAMES)}`;
}

function people(d: Dice, n: number): string {
  return Array.from({ length: n }, () => person(d)).join(', ');
}

function dateIn(d: Dice, year: number): Date {
  return new Date(Date.UTC(year, d.int(0, 11), d.int(1, 28)));
}

function plots(d: Dice): { plotShort: string; plotFull: string } {
  const plotShort = `${capitalize(d.pick(PROTAGONISTS))} ${d.pick(SETTINGS)} ${d.pick(ACTIONS)} ${d.pick(ANTAGONISTS)}.`;
  return { plotShort, plotFull: `${plotShort} ${d.pick(COMPLICATIONS)} ${d.pick(RESOLUTIONS)}` };
}

function poster(d: Dice): string {
  const id = Array.from({ length: 40 }, () => POSTER_ALPHABET[d.int(0, POSTER_ALPHABET.length - 1)]).join('');
  return `https://m.media-amazon.com/images/M/MV5B${id}@._V1_SX300.jpg`;
}

function awards(d: Dice, rating: number, prize: 'Oscar' | 'Primetime Emmy'): string {
  if (d.chance(0.4)) return NA;
  const wins = d.int(0, rating > 8 ? 120 : 25);
  const noms = d.int(wins === 0 ? 1 : 0, rating > 8 ? 200 : 40);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const tally =
    wins && noms
      ? `${plural(wins, 'win')} & ${plural(noms, 'nomination')}`
      : wins
        ? plural(wins, 'win')
        : plural(noms, 'nomination');
  if (rating >= 7.8 && d.chance(0.4)) {
    const n = d.int(1, 6);
    return `${d.chance(0.5) ? 'Won' : 'Nominated for'} ${plural(n, prize)}. ${wins + n} wins & ${noms + n} nominations total`;
  }
  return tally;
}

/** IMDb, Rotten Tomatoes and Metacritic figures around one underlying rating; `rating` null = not rated yet. */
function scores(d: Dice, rating: number | null, votes: number, critics: number) {
  if (rating === null) return { ratings: [] as Rating[], metascore: NA, imdbRating: NA, imdbVotes: NA, popularity: 0 };
  const imdbRating = rating.toFixed(1);
  const ratings: Rating[] = [{ Source: 'Internet Movie Database', Value: `${imdbRating}/10` }];
  if (d.chance(critics)) {
    const tomato = Math.max(4, Math.min(100, Math.round(rating * 12 - 10 + d.int(-15, 15))));
    ratings.push({ Source: 'Rotten Tomatoes', Value: `${tomato}%` });
  }
  let metascore = NA;
  if (d.chance(critics * 0.85)) {
    metascore = String(Math.max(12, Math.min(100, Math.round(rating * 10 - 6 + d.int(-10, 10)))));
    ratings.push({ Source: 'Metacritic', Value: `${metascore}/100` });
  }
  return { ratings, metascore, imdbRating, imdbVotes: thousands.format(votes), popularity: votes };
}

function movieRated(d: Dice, year: number): string {
  if (d.chance(0.08)) return NA;
  if (year < 1968) return d.pick(['Approved', 'Passed', 'Not Rated', 'G']);
  return d.pick(['PG-13', 'PG-13', 'R', 'R', 'R', 'PG', 'G', 'Not Rated', 'Unrated', 'NC-17']);
}

function genres(d: Dice): string {
  return d.some(MOVIE_GENRES, d.int(1, 3)).join(', ');
}

/** Language and country of a title; most of the catalog is English-language and American. */
function origin(d: Dice): { language: string; country: string } {
  if (d.chance(0.7)) {
    return {
      language: d.chance(0.8) ? 'English' : `English, ${d.pick(LANGUAGES.slice(1))}`,
      country: d.chance(0.7) ? 'United States' : d.some(COUNTRIES.slice(0, 5), 2).join(', '),
    };
  }
  const i = d.int(1, LANGUAGES.length - 1);
  return { language: LANGUAGES[i], country: d.pick(COUNTRIES.slice(1)) };
}

/** Allocates unique 8-digit IDs (tt + 8 digits, as IMDb has issued since 2019) for generated titles. */
class IdAllocator {
  private readonly used = new Set<string>([
    SUPERMAN.imdbID,
    ...KNOWN_MOVIES.map((k) => k.id),
    ...KNOWN_SERIES.flatMap((k) => [k.id, k.pilot?.id ?? '']),
  ]);
  private readonly dice = new Dice('omdb-ids');
  next(): string {
    for (;;) {
      const id = `tt${this.dice.int(11_000_000, 39_999_999)}`;
      if (!this.used.has(id)) {
        this.used.add(id);
        return id;
      }
    }
  }
}

interface MovieSeed {
  key: string;
  id: string;
  title: string;
  year: number;
  rated?: string;
  director?: string;
  genre?: string;
  rating?: number;
  votes?: number;
  language?: string;
  country?: string;
  /** Known films always have a poster and critics' scores. */
  famous: boolean;
}

function movie(s: MovieSeed): Movie {
  const d = new Dice(s.key);
  const rating =
    s.rating ??
    (d.chance(0.04) ? null : Math.max(2, Math.min(9.1, 6.3 + (d.next() + d.next() + d.next() - 1.5) * 2.4)));
  const votes = s.votes ?? (rating === null ? 0 : d.logBetween(150, rating > 7 ? 900_000 : 250_000));
  const release = dateIn(d, s.year);
  const dvdDate = new Date(release.getTime() + d.int(90, 240) * 86_400_000);
  const place = s.famous ? { language: s.language ?? 'English', country: s.country ?? 'United States' } : origin(d);
  return {
    type: 'movie',
    imdbID: s.id,
    title: s.title,
    year: String(s.year),
    firstYear: s.year,
    lastYear: s.year,
    rated: s.rated ?? movieRated(d, s.year),
    released: !s.famous && d.chance(0.04) ? NA : displayDate(release),
    runtime: !s.famous && d.chance(0.03) ? NA : `${d.int(78, 165)} min`,
    genre: s.genre ?? genres(d),
    director: s.director ?? (d.chance(0.1) ? people(d, 2) : person(d)),
    writer: people(d, d.int(1, 3)),
    actors: people(d, 3),
    ...plots(d),
    ...place,
    awards: awards(d, rating ?? 0, 'Oscar'),
    poster: !s.famous && d.chance(0.08) ? NA : poster(d),
    ...scores(d, rating, votes, s.famous ? 1 : 0.55),
    dvd: s.year >= 1997 && d.chance(0.55) ? displayDate(dvdDate) : NA,
    boxOffice:
      s.year >= 1977 && place.country.startsWith('United States') && d.chance(s.famous ? 0.9 : 0.6)
        ? `$${thousands.format(d.logBetween(40_000, s.famous ? 900_000_000 : 120_000_000))}`
        : NA,
    production: d.chance(0.2) ? d.pick(STUDIOS) : NA,
    website: d.chance(0.08) ? `https://www.${s.title.toLowerCase().replace(/[^a-z0-9]+/g, '')}movie.com` : NA,
  };
}

/** A generated title; about 60% carry one of the anchor words, so word searches span pages. */
function generatedTitle(d: Dice, index: number): string {
  const anchor = ANCHOR_WORDS[index % ANCHOR_WORDS.length];
  const adj = d.pick(TITLE_ADJECTIVES);
  const noun = d.pick(TITLE_NOUNS);
  if (d.chance(0.6)) {
    return d.pick([
      `${anchor} of the ${noun}`,
      `The ${adj} ${anchor}`,
      `${anchor} in ${d.pick(PLACES)}`,
      `${adj} ${anchor}`,
      `The ${anchor} ${noun}`,
      `${noun} ${anchor}`,
      `${adj} ${noun}: A ${anchor} Story`,
    ]);
  }
  return d.pick([
    `The ${adj} ${noun}`,
    `${noun} of ${d.pick(PLACES)}`,
    `${d.pick(FIRST_NAMES)}'s ${noun}`,
    `Return to ${d.pick(PLACES)}`,
    `${adj} ${noun}`,
    `The ${noun}`,
    `${adj} ${noun} II`,
  ]);
}

interface SeriesSeed {
  key: string;
  id: string;
  title: string;
  firstYear: number;
  lastYear: number | null;
  rated?: string;
  creators?: string;
  genre?: string;
  rating?: number;
  votes?: number;
  seasons: number[];
  episodeTitles?: string[][];
  pilot?: KnownSeries['pilot'];
}

function series(s: SeriesSeed, ids: IdAllocator): Series {
  const d = new Dice(s.key);
  const rating = s.rating ?? Math.max(4.5, Math.min(9.2, 7.2 + (d.next() + d.next() - 1) * 2));
  const votes = s.votes ?? d.logBetween(800, 400_000);
  const runtime = d.pick([22, 30, 44, 45, 50, 60]);
  const head = {
    rated: s.rated ?? d.pick(['TV-14', 'TV-MA', 'TV-MA', 'TV-PG', 'TV-G', 'TV-Y7']),
    genre: s.genre ?? genres(d),
    writer: s.creators ?? people(d, d.int(1, 2)),
    actors: people(d, 3),
    ...(s.rated ? { language: 'English', country: 'United States' } : origin(d)),
  };
  const year = s.lastYear === s.firstYear ? String(s.firstYear) : `${s.firstYear}–${s.lastYear ?? ''}`;
  const seasons = s.seasons.map((count, i) => {
    const season = i + 1;
    const span = (s.lastYear ?? s.firstYear + s.seasons.length - 1) - s.firstYear + 1;
    const seasonYear = s.firstYear + Math.floor((i * span) / s.seasons.length);
    const start = season === 1 && s.pilot ? new Date(`${s.pilot.released}T00:00:00Z`) : dateIn(d, seasonYear);
    return Array.from({ length: count }, (_, j): Episode => {
      const ed = new Dice(`${s.key}/S${season}E${j + 1}`);
      const aired = new Date(start.getTime() + j * 7 * 86_400_000);
      const pilot = season === 1 && j === 0 ? s.pilot : undefined;
      // The newest episodes of a running series have no rating yet.
      const unrated = s.lastYear === null && season === s.seasons.length && j >= count - 2;
      const epRating = pilot
        ? Number(pilot.rating)
        : unrated
          ? null
          : Math.max(3, Math.min(9.9, rating + ed.int(-9, 8) / 10));
      const epVotes = ed.logBetween(Math.max(5, votes / 2000), Math.max(20, votes / 40));
      const epTitle =
        s.episodeTitles?.[i]?.[j] ??
        ed.pick([
          `The ${ed.pick(TITLE_NOUNS)}`,
          `${ed.pick(TITLE_ADJECTIVES)} ${ed.pick(TITLE_NOUNS)}`,
          `${ed.pick(TITLE_NOUNS)} of ${ed.pick(PLACES)}`,
          `Chapter ${j + 1}: The ${ed.pick(TITLE_NOUNS)}`,
        ]);
      const plotShort = `${capitalize(ed.pick(PROTAGONISTS))} ${ed.pick(ACTIONS)} ${ed.pick(ANTAGONISTS)}.`;
      return {
        type: 'episode',
        imdbID: pilot?.id ?? ids.next(),
        title: epTitle,
        year: String(aired.getUTCFullYear()),
        firstYear: aired.getUTCFullYear(),
        lastYear: aired.getUTCFullYear(),
        rated: head.rated,
        released: displayDate(aired),
        releasedIso: isoDate(aired),
        season,
        episode: j + 1,
        runtime: `${runtime + ed.int(-3, 4)} min`,
        genre: head.genre,
        director: person(ed),
        writer: ed.chance(0.5) ? `${head.writer}, ${person(ed)}` : head.writer,
        actors: head.actors,
        plotShort,
        plotFull: `${plotShort} ${ed.pick(COMPLICATIONS)}`,
        language: head.language,
        country: head.country,
        awards: ed.chance(0.05) ? `${ed.int(1, 3)} nominations` : NA,
        poster: ed.chance(0.4) ? NA : poster(ed),
        ...scores(ed, epRating, epVotes, 0),
        seriesID: s.id,
      };
    });
  });
  const firstAired = seasons[0][0];
  return {
    type: 'series',
    imdbID: s.id,
    title: s.title,
    year,
    firstYear: s.firstYear,
    lastYear: s.lastYear,
    rated: head.rated,
    released: firstAired.released,
    runtime: `${runtime} min`,
    genre: head.genre,
    director: NA,
    writer: head.writer,
    actors: head.actors,
    ...plots(d),
    language: head.language,
    country: head.country,
    awards: awards(d, rating, 'Primetime Emmy'),
    poster: d.chance(0.05) ? NA : poster(d),
    ...scores(d, rating, votes, 0),
    seasons,
  };
}

function knownMovie(k: KnownMovie): Movie {
  return movie({
    key: k.id,
    id: k.id,
    title: k.title,
    year: k.year,
    rated: k.rated,
    director: k.director,
    genre: k.genre,
    rating: k.rating,
    votes: k.votesK * 1000 + (k.votesK % 7) * 131,
    language: k.language,
    country: k.country,
    famous: true,
  });
}

function knownSeries(k: KnownSeries, ids: IdAllocator): Series {
  return series(
    {
      key: k.id,
      id: k.id,
      title: k.title,
      rated: k.rated,
      firstYear: k.year,
      lastYear: k.endYear,
      creators: k.creators,
      genre: k.genre,
      rating: k.rating,
      votes: k.votesK * 1000 + (k.votesK % 7) * 131,
      seasons: k.seasons,
      episodeTitles: k.episodeTitles,
      pilot: k.pilot,
    },
    ids,
  );
}

/** Every title of the sandbox; episodes hang off their series. Takes a few milliseconds. */
export function seedTitles(): OmdbTitle[] {
  const ids = new IdAllocator();
  const titles: OmdbTitle[] = [
    SUPERMAN,
    ...KNOWN_MOVIES.map(knownMovie),
    ...KNOWN_SERIES.map((k) => knownSeries(k, ids)),
  ];
  const movieCount = MOVIE_COUNT - 1 - KNOWN_MOVIES.length;
  for (let i = 0; i < movieCount; i++) {
    const key = `movie-${i}`;
    const d = new Dice(key);
    const year = LAST_YEAR - Math.floor(92 * d.next() ** 1.8);
    titles.push(movie({ key, id: ids.next(), title: generatedTitle(d, i), year, famous: false }));
  }
  for (let i = 0; i < SERIES_COUNT - KNOWN_SERIES.length; i++) {
    const key = `series-${i}`;
    const d = new Dice(key);
    const seasonCount = d.int(1, 8);
    const firstYear = d.int(1985, LAST_YEAR - seasonCount);
    const running = firstYear + seasonCount >= 2016 && d.chance(0.4);
    const lastYear = running ? null : Math.min(LAST_YEAR, firstYear + seasonCount - 1 + d.int(0, 2));
    const seasons = Array.from({ length: seasonCount }, () => d.int(6, 22));
    titles.push(series({ key, id: ids.next(), title: generatedTitle(d, i + 3), firstYear, lastYear, seasons }, ids));
  }
  return titles;
}
