import { sandboxTokenRequest } from '../operations.js';
/**
 * The naive baseline: resolvers as a first version usually looks. Every resolver fetches what it needs on its own:
 * no DataLoader, no `$select`/`$expand`, no `$batch`, no cache. A field the parent does not carry (a search item's
 * plot) fetches the whole title again, once per such field.
 */

interface Env {
  sandboxOrigin: string;
}

type Raw = Record<string, unknown>;

const snake = (v: unknown, known: readonly string[]) => {
  if (typeof v !== 'string') return null;
  const s = v.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
  return known.includes(s) ? s : 'UNKNOWN_FUTURE_VALUE';
};
const STATUS = [
  'SERVICE_OPERATIONAL',
  'INVESTIGATING',
  'RESTORING_SERVICE',
  'VERIFYING_SERVICE',
  'SERVICE_RESTORED',
  'POST_INCIDENT_REVIEW_PUBLISHED',
  'SERVICE_DEGRADATION',
  'SERVICE_INTERRUPTION',
  'EXTENDED_RECOVERY',
  'FALSE_POSITIVE',
  'INVESTIGATION_SUSPENDED',
  'RESOLVED',
  'MITIGATED_EXTERNAL',
  'MITIGATED',
  'RESOLVED_EXTERNAL',
  'CONFIRMED',
  'REPORTED',
];
const na = (v: unknown) => (v === undefined || v === null || v === 'N/A' ? null : v);
const list = (v: unknown) => (typeof na(v) === 'string' ? (v as string).split(',').map((s) => s.trim()) : []);
const int = (v: unknown) => {
  const n = Number.parseInt(String(na(v) ?? '').replace(/,/g, ''), 10);
  return Number.isFinite(n) ? n : null;
};
const float = (v: unknown) => {
  const n = Number.parseFloat(String(na(v) ?? ''));
  return Number.isFinite(n) ? n : null;
};

export function naiveResolvers(env: Env) {
  const graph = `${env.sandboxOrigin}/graph/v1.0/admin/serviceAnnouncement`;
  const omdb = `${env.sandboxOrigin}/omdb/`;
  let token: Promise<string> | undefined;

  async function getToken(): Promise<string> {
    const login = sandboxTokenRequest(env.sandboxOrigin);
    token ??= fetch(login.url, { method: 'POST', headers: login.headers, body: login.body }).then(
      async (r) => ((await r.json()) as { access_token: string }).access_token,
    );
    return token;
  }

  async function graphGet(path: string): Promise<Raw | null> {
    const res = await fetch(graph + path, { headers: { authorization: `Bearer ${await getToken()}` } });
    const body = (await res.json()) as Raw;
    if (res.status === 404) return null;
    if (!res.ok) throw new Error(`graph ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
    return body;
  }

  async function omdbGet(params: Record<string, string>): Promise<Raw> {
    const res = await fetch(`${omdb}?${new URLSearchParams({ apikey: 'sandbox', ...params })}`);
    const body = (await res.json()) as Raw;
    if (!res.ok) throw new Error(`omdb ${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
    return body;
  }

  const connection = (rows: Raw[]) => ({
    nodes: rows,
    edges: rows.map((node) => ({ cursor: String(node.id), node })),
    pageInfo: {
      hasNextPage: false,
      hasPreviousPage: false,
      startCursor: rows.length ? String(rows[0].id) : null,
      endCursor: null,
    },
  });

  /** A Title field: from the object when present, else one more lookup of the whole title. */
  const detail =
    (key: string, map: (v: unknown) => unknown = na) =>
    async (t: Raw) =>
      map(key in t ? t[key] : (await omdbGet({ i: String(t.imdbID) }))[key]);

  return {
    Query: {
      upstreams: () => [],
      admin: () => ({}),
      async title(_: unknown, args: { imdbId?: string; title?: string; year?: number; plot?: string }) {
        const params: Record<string, string> = args.imdbId ? { i: args.imdbId } : { t: args.title ?? '' };
        if (args.year) params.y = String(args.year);
        if (args.plot === 'FULL') params.plot = 'full';
        const body = await omdbGet(params);
        return body.Response === 'False' ? null : body;
      },
      async searchTitles(_: unknown, args: { query: string; page?: number }) {
        const body = await omdbGet({ s: args.query, page: String(args.page ?? 1) });
        return {
          totalResults: int(body.totalResults) ?? 0,
          page: args.page ?? 1,
          items: (body.Search as Raw[] | undefined) ?? [],
        };
      },
    },
    Admin: { serviceAnnouncement: () => ({}), properties: () => [] },
    ServiceAnnouncement: {
      async healthOverviews(_: unknown, args: { first?: number }) {
        const body = await graphGet(`/healthOverviews${args.first ? `?$top=${args.first}` : ''}`);
        return connection((body?.value as Raw[]) ?? []);
      },
      healthOverview: (_: unknown, args: { id: string }) => graphGet(`/healthOverviews/${encodeURIComponent(args.id)}`),
      async issues(_: unknown, args: { first?: number }) {
        const body = await graphGet(`/issues${args.first ? `?$top=${args.first}` : ''}`);
        return connection((body?.value as Raw[]) ?? []);
      },
      properties: () => [],
    },
    ServiceHealth: {
      status: (s: Raw) => snake(s.status, STATUS),
      etag: (s: Raw) => s['@odata.etag'] ?? null,
      async issues(s: Raw, args: { first?: number }) {
        const body = await graphGet(
          `/healthOverviews/${encodeURIComponent(String(s.id))}/issues${args.first ? `?$top=${args.first}` : ''}`,
        );
        return connection((body?.value as Raw[]) ?? []);
      },
    },
    ServiceHealthIssue: {
      status: (i: Raw) => snake(i.status, STATUS),
      classification: (i: Raw) => snake(i.classification, ['ADVISORY', 'INCIDENT']),
      origin: (i: Raw) => snake(i.origin, ['MICROSOFT', 'THIRD_PARTY', 'CUSTOMER']),
      details: (i: Raw) => (i.details as unknown[]) ?? [],
      posts: (i: Raw) => (i.posts as unknown[]) ?? [],
    },
    TitleSearchPage: {
      totalPages: (p: { totalResults: number }) => Math.ceil(p.totalResults / 10),
      hasNextPage: (p: { totalResults: number; page: number }) => p.page * 10 < p.totalResults,
    },
    Title: {
      imdbId: (t: Raw) => t.imdbID,
      title: detail('Title'),
      year: detail('Year'),
      type: detail('Type', (v) => snake(v, ['MOVIE', 'SERIES', 'EPISODE', 'GAME'])),
      rated: detail('Rated'),
      released: detail('Released'),
      runtimeMinutes: detail('Runtime', int),
      genres: detail('Genre', list),
      directors: detail('Director', list),
      writers: detail('Writer', list),
      cast: detail('Actors', list),
      plot: detail('Plot'),
      languages: detail('Language', list),
      countries: detail('Country', list),
      awards: detail('Awards'),
      posterUrl: detail('Poster'),
      ratings: detail('Ratings', (v) =>
        ((v as Raw[] | undefined) ?? []).map((r) => ({ source: r.Source, value: r.Value })),
      ),
      imdbRating: detail('imdbRating', float),
      imdbVotes: detail('imdbVotes', int),
      metascore: detail('Metascore', int),
      boxOffice: detail('BoxOffice'),
      totalSeasons: detail('totalSeasons', int),
      seasons: () => [],
      episodes: () => [],
    },
  };
}
