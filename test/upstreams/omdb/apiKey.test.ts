import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/env.js';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { OmdbClient } from '../../../src/upstreams/omdb/client.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { omdbQueries } from '../../support/omdbRequests.js';

/** Live mode: the gateway is pointed at a separate sandbox as if it were www.omdbapi.com, with a configured key. */
let omdb: Sandbox;
beforeAll(async () => {
  omdb = await startSandbox();
});
afterAll(() => omdb.close());

/** Everything the gateway said during a test: responses, metrics and every log line (debug level logs URLs). */
async function everythingSaid(t: TestGateway, responses: unknown[]): Promise<string> {
  const metrics = await (await fetch(`${t.gateway.origin}/metrics`)).text();
  return [...responses.map((r) => JSON.stringify(r)), metrics, ...t.logs.lines].join('\n');
}

describe('a configured OMDb key', () => {
  it('rides upstream in apikey and never shows in a response, an error, a metric or a log line', async () => {
    const t = await startTestGateway({
      OMDB_BASE_URL: omdb.baseUrls.omdb,
      OMDB_API_KEY: 'sandbox',
      LOG_LEVEL: 'debug',
    });
    try {
      omdb.record.clear();
      const responses = [
        await t.query('{ upstreams { id mode baseUrl } title(imdbId: "tt0078346") { title posterUrl } }'),
        await t.query('{ searchTitles(query: "matrix") { items { title cast } } }'),
      ].map((r) => r.body);
      expect(responses[0].data.upstreams).toContainEqual({ id: 'omdb', mode: 'LIVE', baseUrl: omdb.baseUrls.omdb });
      expect(responses[0].data.title.title).toBe('Superman');
      const record = omdb.record.list();
      expect(record.length).toBeGreaterThan(1);
      for (const r of record) expect(new URLSearchParams(r.url.split('?')[1]).get('apikey')).toBe('sandbox');
      const said = await everythingSaid(t, responses);
      expect(said).toContain('upstream request'); // debug lines with the (redacted) URLs were written
      expect(said).not.toContain('apikey=sandbox');
      expect(said).not.toMatch(/apikey=(?!\[REDACTED\])/);
    } finally {
      await t.close();
    }
  });

  it("reports a rejected key as the gateway's own (UPSTREAM_ERROR, GATEWAY_CREDENTIALS_REJECTED), asked once per backoff window, the key redacted everywhere", async () => {
    const key = 'k3y-SECRET-123456';
    const t = await startTestGateway({ OMDB_BASE_URL: omdb.baseUrls.omdb, OMDB_API_KEY: key, LOG_LEVEL: 'debug' });
    try {
      omdb.record.clear();
      const responses = [
        await t.query('{ upstreams { id } title(imdbId: "tt0078346") { title } }'),
        await t.query('{ searchTitles(query: "batman") { totalResults } }'),
      ].map((r) => r.body);
      expect(responses[0].data.upstreams.length).toBeGreaterThan(0);
      expect(responses[0].data.title).toBeNull();
      for (const body of responses) {
        expect(body.errors![0].extensions).toMatchObject({
          code: 'UPSTREAM_ERROR',
          reason: 'GATEWAY_CREDENTIALS_REJECTED',
          upstream: 'omdb',
          status: 401,
        });
        expect(body.errors![0].message).toMatch(/rejected the gateway's API key.*Fix OMDB_API_KEY/);
      }
      // Sent with the key (the upstream saw it), answered 401 and not retried; the search is refused without asking again.
      expect(omdbQueries(omdb.record.list())).toEqual(['i=tt0078346']);
      expect(omdb.record.list().map((r) => r.status)).toEqual([401]);
      expect(omdb.record.list()[0].url).toContain(`apikey=${key}`);
      const said = await everythingSaid(t, responses);
      expect(said).toContain('upstream request');
      expect(said).not.toContain(key);
      expect(said).not.toContain('SECRET');
    } finally {
      await t.close();
    }
  });

  it('a live OMDb without a key does not start: the configuration error names OMDB_API_KEY, and nothing is sent', () => {
    omdb.record.clear();
    expect(() => loadConfig({ OMDB_BASE_URL: omdb.baseUrls.omdb })).toThrow(
      /^OMDB_API_KEY: is required with OMDB_BASE_URL/,
    );
    expect(omdb.record.list()).toEqual([]);
  });

  it('a client without a key (no configuration makes one) refuses without a request', async () => {
    const client = new OmdbClient({
      baseUrl: omdb.baseUrls.omdb,
      dailyQuota: 10,
      cacheTtlMs: 0,
      cacheMax: 0,
      metrics: new GatewayMetrics(),
      log: pino({ level: 'silent' }),
      redact: (t) => t,
    });
    omdb.record.clear();
    const refused = await client
      .get({ kind: 'byId', imdbId: 'tt0078346', plot: 'short' }, {
        requestId: 'r1',
        signal: new AbortController().signal,
        log: pino({ level: 'silent' }),
      } as never)
      .catch((e: Error) => e);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toContain('OMDB_API_KEY is not set');
    expect(omdb.record.list()).toEqual([]);
    await client.close();
  });
});
