import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { OmdbClient } from '../../../src/upstreams/omdb/client.js';
import { omdbQueries } from '../../support/omdbRequests.js';

let sandbox: Sandbox;
let client: OmdbClient;

beforeAll(async () => {
  sandbox = await startSandbox();
  client = new OmdbClient({
    baseUrl: sandbox.baseUrls.omdb,
    apiKey: 'sandbox',
    dailyQuota: 1000,
    cacheTtlMs: 60_000,
    cacheMax: 100,
    metrics: new GatewayMetrics(),
    log: pino({ level: 'silent' }),
    redact: (s) => s,
  });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});
beforeEach(() => {
  sandbox.faults.clear();
  sandbox.record.clear();
});

/** Polls until `check` holds, failing after `ms`. */
async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('OmdbClient requests', () => {
  it('sends the key first and each kind of query as the form serializer writes it', async () => {
    const queries: Array<Parameters<OmdbClient['get']>[0]> = [
      { kind: 'byId', imdbId: ' TT0076759 ', plot: 'full' },
      { kind: 'byTitle', title: "  Amélie   l'été ", year: 2001, type: 'movie', plot: 'short' },
      { kind: 'search', query: 'star wars', page: 2 },
      { kind: 'season', imdbId: 'tt0944947', season: 1 },
    ];
    for (const q of queries) await client.get(q).catch(() => undefined);
    const sent = sandbox.record.list().map((r) => r.url.split('?')[1]);
    const expected = [
      [
        ['i', 'tt0076759'],
        ['plot', 'full'],
      ],
      [
        ['t', "Amélie l'été"],
        ['y', '2001'],
        ['type', 'movie'],
      ],
      [
        ['s', 'star wars'],
        ['page', '2'],
      ],
      [
        ['i', 'tt0944947'],
        ['Season', '1'],
      ],
    ].map((pairs) => new URLSearchParams([['apikey', 'sandbox'], ...pairs]).toString());
    expect(sent).toEqual(expected);
  });
});

describe('OmdbClient sharing one request between callers', () => {
  it('keeps a shared request going while one caller still waits, and answers that caller', async () => {
    sandbox.faults.push({ upstream: 'omdb', times: 1, delayMs: 500 });
    const leaving = new AbortController();
    const first = client.get({ kind: 'byId', imdbId: 'tt0120915', plot: 'short' }, { signal: leaving.signal });
    const second = client.get(
      { kind: 'byId', imdbId: 'TT0120915', plot: 'short' },
      { signal: new AbortController().signal },
    );
    leaving.abort(new Error('client went away'));
    await expect(first).rejects.toThrow('client went away');
    const answer = await second;
    expect(answer.kind === 'title' && answer.title.Title).toBe('Star Wars: Episode I - The Phantom Menace');
    expect(omdbQueries(sandbox.record.list())).toEqual(['i=tt0120915']);
    expect(sandbox.record.list()[0]).toMatchObject({ aborted: false, status: 200 });
  });

  it('cancels the upstream request when every caller waiting on it has gone', async () => {
    sandbox.faults.push({ upstream: 'omdb', times: 1, delayMs: 10_000 });
    const a = new AbortController();
    const b = new AbortController();
    const pending = [
      client.get({ kind: 'byId', imdbId: 'tt0086190', plot: 'short' }, { signal: a.signal }),
      client.get({ kind: 'byId', imdbId: 'tt0086190', plot: 'short' }, { signal: b.signal }),
    ];
    await until(() => sandbox.record.list().length === 1);
    a.abort(new Error('gone'));
    b.abort(new Error('gone'));
    await Promise.allSettled(pending);
    await until(() => sandbox.record.list()[0].aborted);
    // Nothing was cached from the cancelled request: the next caller asks again.
    const answer = await client.get({ kind: 'byId', imdbId: 'tt0086190', plot: 'short' });
    expect(answer.kind).toBe('title');
    expect(omdbQueries(sandbox.record.list())).toEqual(['i=tt0086190', 'i=tt0086190']);
  });

  it('answers a repeat that differs only in spacing and case from the cache', async () => {
    await client.get({ kind: 'search', query: 'Dark  Knight ', page: 1 });
    await client.get({ kind: 'search', query: 'dark knight', page: 1 });
    expect(omdbQueries(sandbox.record.list())).toEqual(['s=Dark Knight']);
    expect(client.peek({ kind: 'search', query: 'DARK KNIGHT', page: 1 })?.kind).toBe('search');
  });
});
