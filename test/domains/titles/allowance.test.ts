import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

/**
 * What the estimate admits is what runs (src/domains/titles/allowance.ts): a season the estimate has not seen is
 * taken as 26 episodes, the loader sends no more requests than the estimate, and the next time the season is known.
 * The default budget (GATEWAY_MAX_UPSTREAM_REQUESTS 50) is judged against that estimate at admission.
 */
describe('OMDb requests within the estimate', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ RESPONSE_CACHE_MAX_BYTES: '0' });
  });
  afterAll(() => t?.close());

  // Batman: The Animated Series: a first season of 65 episodes.
  const SEASON_OF_65 = '{ title(imdbId: "tt0103359") { title episodes(season: 1) { title plot } } }';

  it('sends a season it has not seen only as far as its estimate, saying so at each episode left out, and all of it once the season is known', async () => {
    const first = await t.query(SEASON_OF_65);
    // The series, its season list, 26 episodes.
    expect(first.body.extensions!.cost).toMatchObject({ upstreamRequestsEstimated: 28, upstreamRequests: 28 });
    expect(t.upstreamRequests('omdb')).toHaveLength(28);
    const episodes = first.body.data.title.episodes as Array<{ title: string; plot: string | null }>;
    expect(episodes).toHaveLength(65);
    expect(episodes.slice(0, 26).every((e) => e.plot)).toBe(true);
    expect(episodes.slice(26).every((e) => e.title && e.plot === null)).toBe(true);
    expect(first.body.errors).toHaveLength(39);
    expect(first.body.errors![0]).toMatchObject({
      path: ['title', 'episodes', 26, 'plot'],
      extensions: { code: 'QUERY_TOO_COMPLEX', upstream: 'omdb', limit: 'upstreamRequestsEstimated', max: 28 },
    });
    expect(first.body.errors![0].message).toMatch(/admitted for 28 OMDb requests.*send the operation again/);

    t.clearUpstreamRequests();
    const again = await t.query(SEASON_OF_65);
    expect(again.body.errors).toBeUndefined();
    expect(again.body.extensions!.cost).toMatchObject({ upstreamRequestsEstimated: 39, upstreamRequests: 39 });
    expect(t.upstreamRequests('omdb')).toHaveLength(39);
  });

  it('refuses at admission, before any request, two series whose estimate is over the budget', async () => {
    t.clearUpstreamRequests();
    const { body } = await t.query(
      '{ a: title(imdbId: "tt0903747") { episodes(season: 2) { plot } } b: title(imdbId: "tt0059968") { episodes(season: 2) { plot } } }',
    );
    // Each: the series, its season list, 26 episodes.
    expect(body.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS',
      max: 50,
      found: 56,
      upstream: 'omdb',
    });
    expect(t.upstreamRequests()).toEqual([]);
  });

  it('estimates series nested in their own episodes in linear time at the default limits (it took minutes before)', async () => {
    t.clearUpstreamRequests();
    // Depth 11 of 12: every episode's series, its seasons, their episodes, three times over.
    let inner = 'title plot';
    for (let i = 0; i < 3; i++) inner = `seasons { episodes { plot series { ${inner} } } }`;
    const { body } = await t.query(`{ title(imdbId: "tt0092455") { ${inner} } }`);
    expect(body.errors![0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS',
    });
    expect(t.upstreamRequests()).toEqual([]);
  }, 20_000);
});
