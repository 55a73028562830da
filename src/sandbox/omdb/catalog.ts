/** The emulator's titles and the indexes that make every lookup a map access or a short intersection. */

export type TitleType = 'movie' | 'series' | 'episode';

export interface Rating {
  Source: 'Internet Movie Database' | 'Rotten Tomatoes' | 'Metacritic';
  Value: string;
}

/** Fields every title has, already in OMDb's display form ("N/A" where the real service writes it). */
interface TitleFields {
  imdbID: string;
  title: string;
  /** Display year: "1978", "2013–2020", "2019–" or "2019". */
  year: string;
  firstYear: number;
  /** Last year the title covers; null for a running series. */
  lastYear: number | null;
  rated: string;
  /** "15 Dec 1978" or "N/A". */
  released: string;
  runtime: string;
  genre: string;
  director: string;
  writer: string;
  actors: string;
  plotShort: string;
  plotFull: string;
  language: string;
  country: string;
  awards: string;
  poster: string;
  ratings: Rating[];
  metascore: string;
  imdbRating: string;
  imdbVotes: string;
  /** imdbVotes as a number (0 when "N/A"); orders search results and picks among titles that share a name. */
  popularity: number;
}

export interface Movie extends TitleFields {
  type: 'movie';
  dvd: string;
  boxOffice: string;
  production: string;
  website: string;
}

export interface Series extends TitleFields {
  type: 'series';
  /** Episodes of each season; index 0 is season 1. */
  seasons: Episode[][];
}

export interface Episode extends TitleFields {
  type: 'episode';
  season: number;
  episode: number;
  seriesID: string;
  /** `Released` as the season list writes it: "2011-04-17" or "N/A". */
  releasedIso: string;
}

export type OmdbTitle = Movie | Series | Episode;

export interface TitleFilter {
  /** Only this type; when absent, episodes are left out (they are reached through their series or `type=episode`). */
  type?: string;
  /** Only titles running in this year (a series matches any year of its run). */
  year?: number;
}

/** Lower-cased words of a title or query, accents and punctuation removed: "Batman: The Movie" → batman, the, movie. */
export function titleWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function titleKey(text: string): string {
  return titleWords(text).join(' ');
}

function matches(t: OmdbTitle, filter: TitleFilter): boolean {
  if (filter.type === undefined ? t.type === 'episode' : t.type !== filter.type) return false;
  if (filter.year !== undefined && (filter.year < t.firstYear || filter.year > (t.lastYear ?? Infinity))) return false;
  return true;
}

/** Most popular first, then by ID so that ties keep one stable order. */
function byPopularity(a: OmdbTitle, b: OmdbTitle): number {
  return b.popularity - a.popularity || (a.imdbID < b.imdbID ? -1 : 1);
}

export class Catalog {
  private readonly byId = new Map<string, OmdbTitle>();
  private readonly byTitleKey = new Map<string, OmdbTitle[]>();
  private readonly byWord = new Map<string, { list: OmdbTitle[]; set: Set<OmdbTitle> }>();

  constructor(titles: readonly OmdbTitle[]) {
    const all = titles
      .flatMap((t): OmdbTitle[] => (t.type === 'series' ? [t, ...t.seasons.flat()] : [t]))
      .sort(byPopularity);
    for (const t of all) {
      if (this.byId.has(t.imdbID)) throw new Error(`duplicate imdbID ${t.imdbID} in the OMDb sandbox catalog`);
      this.byId.set(t.imdbID, t);
      const key = titleKey(t.title);
      const same = this.byTitleKey.get(key) ?? [];
      same.push(t);
      this.byTitleKey.set(key, same);
      for (const word of new Set(titleWords(t.title))) {
        const entry = this.byWord.get(word) ?? { list: [], set: new Set() };
        entry.list.push(t);
        entry.set.add(t);
        this.byWord.set(word, entry);
      }
    }
  }

  get size(): number {
    return this.byId.size;
  }

  all(): IterableIterator<OmdbTitle> {
    return this.byId.values();
  }

  byImdbId(id: string): OmdbTitle | undefined {
    return this.byId.get(id);
  }

  /** Case-insensitive exact title match; among several, the most popular (as `t=` answers one title). */
  byTitle(title: string, filter: TitleFilter): OmdbTitle | undefined {
    return this.byTitleKey.get(titleKey(title))?.find((t) => matches(t, filter));
  }

  /** Titles containing every one of `words` as a whole word, most popular first. */
  search(words: readonly string[], filter: TitleFilter): OmdbTitle[] {
    const entries = [...new Set(words)].map((w) => this.byWord.get(w));
    if (entries.length === 0 || entries.some((e) => e === undefined)) return [];
    const [shortest, ...others] = (entries as { list: OmdbTitle[]; set: Set<OmdbTitle> }[]).sort(
      (a, b) => a.list.length - b.list.length,
    );
    return shortest.list.filter((t) => matches(t, filter) && others.every((o) => o.set.has(t)));
  }
}
