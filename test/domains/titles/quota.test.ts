import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { collect, wsClient } from '../../support/ws.js';
import { omdbQueries } from '../../support/omdbRequests.js';

let t: TestGateway | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function sandboxQuota(gateway: TestGateway, omdbDailyQuota: number): Promise<void> {
  const res = await fetch(`${gateway.sandbox.origin}/_sandbox/config`, {
    method: 'POST',
    body: JSON.stringify({ omdbDailyQuota }),
  });
  expect(res.status).toBe(200);
}

async function quotaGauge(gateway: TestGateway): Promise<string | undefined> {
  const text = await (await fetch(`${gateway.gateway.origin}/metrics`)).text();
  return /^gateway_upstream_quota_remaining\{upstream="omdb"\} (\d+)$/m.exec(text)?.[1];
}

describe('daily quota guard', () => {
  it('refuses an operation that could cross the quota before sending anything, while cached ones still answer', async () => {
    t = await startTestGateway({ OMDB_DAILY_QUOTA: '5' });
    await sandboxQuota(t, 5);
    const three =
      '{ a: title(imdbId: "tt0078346") { title } b: title(imdbId: "tt0372784") { title } c: title(imdbId: "tt0468569") { title } }';
    expect((await t.query(three)).body.errors).toBeUndefined();
    expect(omdbQueries(t.upstreamRequests()).length).toBe(3);
    expect(await quotaGauge(t)).toBe('2');

    t.clearUpstreamRequests();
    const search = await t.query('{ searchTitles(query: "batman") { items { title cast } } }');
    expect(search.body.data).toEqual({ searchTitles: null });
    expect(search.body.errors![0].extensions).toMatchObject({ code: 'UPSTREAM_QUOTA_EXHAUSTED', upstream: 'omdb' });
    expect(search.body.errors![0].message).toContain('2 remain today and this operation can need 11');
    expect(t.upstreamRequests()).toEqual([]);

    // Everything cached: needs nothing, so it runs.
    expect((await t.query(three)).body.data.c.title).toBe('The Dark Knight');
    // Exactly the two that remain.
    const two = await t.query(
      '{ a: title(imdbId: "tt0133093") { title } b: title(imdbId: "tt0096895") { title } a2: title(imdbId: "tt0133093") { year } }',
    );
    expect(two.body.errors).toBeUndefined();
    expect(omdbQueries(t.upstreamRequests()).sort()).toEqual(['i=tt0096895', 'i=tt0133093']);
    expect(await quotaGauge(t)).toBe('0');

    t.clearUpstreamRequests();
    const more = await t.query('{ upstreams { id } title(imdbId: "tt0076759") { title } }');
    expect(more.body.data.title).toBeNull();
    expect(more.body.data.upstreams.length).toBeGreaterThan(0);
    expect(more.body.errors![0]).toMatchObject({
      path: ['title'],
      extensions: { code: 'UPSTREAM_QUOTA_EXHAUSTED', upstream: 'omdb' },
    });
    expect(more.body.errors![0].extensions!.retryAfter).toBeGreaterThan(0);
    expect(t.upstreamRequests()).toEqual([]);
    // The upstream never had to say no.
    expect(t.logs.lines.some((l) => l.includes('Request limit reached'))).toBe(false);
  });

  it('guards operations over the WebSocket the same way, with the estimate made before execution', async () => {
    t = await startTestGateway({ OMDB_DAILY_QUOTA: '5' });
    await sandboxQuota(t, 5);
    const client = wsClient(t.gateway.wsUrl);
    const refused = await collect<{ searchTitles: unknown }>(
      client,
      '{ searchTitles(query: "batman") { items { title cast } } }',
    );
    const allowed = await collect<{ title: { title: string } }>(client, '{ title(imdbId: "tt0078346") { title } }');
    await client.dispose();
    expect(refused.results[0].errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_QUOTA_EXHAUSTED',
      upstream: 'omdb',
    });
    expect(refused.results[0].errors![0].message).toContain('5 remain today and this operation can need 11');
    expect(allowed.results[0].data!.title.title).toBe('Superman');
    expect(omdbQueries(t.upstreamRequests())).toEqual(['i=tt0078346']);
  });

  it('counts a search with only item fields as one request, honouring @include and fragments', async () => {
    t = await startTestGateway({ OMDB_DAILY_QUOTA: '3' });
    const query = `query S($details: Boolean!) { searchTitles(query: "star") { ...Items } }
      fragment Items on TitleSearchPage { items { title ... @include(if: $details) { directors } } }`;
    const refused = await t.query(query, { details: true });
    expect(refused.body.errors![0].message).toContain('3 remain today and this operation can need 11');
    expect(t.upstreamRequests()).toEqual([]);
    const allowed = await t.query(query, { details: false });
    expect(allowed.body.errors).toBeUndefined();
    expect(omdbQueries(t.upstreamRequests())).toEqual(['s=star']);
  });

  it('maps OMDb\'s own "Request limit reached!" to UPSTREAM_QUOTA_EXHAUSTED and then stops asking for the day', async () => {
    t = await startTestGateway();
    await sandboxQuota(t, 1);
    expect((await t.query('{ title(imdbId: "tt0078346") { title } }')).body.data.title.title).toBe('Superman');
    const limited = await t.query('{ title(imdbId: "tt0372784") { title } }');
    expect(limited.body.errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_QUOTA_EXHAUSTED',
      upstream: 'omdb',
      status: 401,
      upstreamCode: 'Request limit reached!',
    });
    expect(t.upstreamRequests().map((r) => r.status)).toEqual([200, 401]);

    t.clearUpstreamRequests();
    const after = await t.query('{ title(imdbId: "tt0468569") { title } }');
    expect(after.body.errors![0].extensions!.code).toBe('UPSTREAM_QUOTA_EXHAUSTED');
    expect(t.upstreamRequests()).toEqual([]);
    expect(await quotaGauge(t)).toBe('0');
  });
});
