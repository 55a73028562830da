import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { collect, wsClient } from '../support/ws.js';

describe('per-upstream metrics', () => {
  let t: TestGateway;
  let text: string;
  beforeAll(async () => {
    t = await startTestGateway();
    t.sandbox.faults.push({ upstream: 'omdb', times: 1, status: 503, retryAfter: 0 });
    await t.query('{ title(imdbId: "tt0078346") { title } }');
    // Another document for the same title: the OMDb cache answers it (the response cache would answer the same one).
    await t.query('{ title(imdbId: "tt0078346") { title year } }');
    await t.query('{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { status } } } }');
    text = await (await fetch(`${t.gateway.origin}/metrics`)).text();
  });
  afterAll(() => t.close());

  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);

  it('counts upstream requests by status, and retries by reason', () => {
    expect(value(/gateway_upstream_requests_total\{upstream="omdb",status="503"\} (\d+)/)).toBe(1);
    expect(value(/gateway_upstream_requests_total\{upstream="omdb",status="200"\} (\d+)/)).toBe(1);
    expect(value(/gateway_upstream_retries_total\{upstream="omdb",reason="503"\} (\d+)/)).toBe(1);
    expect(value(/gateway_upstream_requests_total\{upstream="graph",status="200"\} (\d+)/)).toBeGreaterThanOrEqual(1);
  });

  it('has an upstream latency histogram, the circuit state, the OMDb quota left and cache hits', () => {
    expect(value(/gateway_upstream_request_duration_seconds_count\{upstream="omdb"\} (\d+)/)).toBe(2);
    expect(value(/gateway_upstream_circuit_state\{upstream="omdb"\} (\d+)/)).toBe(0);
    expect(value(/gateway_upstream_quota_remaining\{upstream="omdb"\} (\d+)/)).toBeLessThan(1000);
    expect(value(/gateway_upstream_cache_lookups_total\{upstream="omdb",result="miss"\} (\d+)/)).toBe(1);
    expect(value(/gateway_upstream_cache_lookups_total\{upstream="omdb",result="hit"\} (\d+)/)).toBe(1);
  });

  it('never puts the OMDb key or a URL into a label', () => {
    expect(text).not.toMatch(/apikey|sandbox@|http:\/\/127/);
  });
});

describe('gateway_graphql_subscriptions_started_total', () => {
  it('counts each subscription that starts over graphql-ws, not those refused before they start nor queries', async () => {
    const t = await startTestGateway();
    const client = wsClient(t.gateway.wsUrl);
    try {
      const started = async () =>
        Number(
          /gateway_graphql_subscriptions_started_total (\d+)/.exec(
            await (await fetch(`${t.gateway.origin}/metrics`)).text(),
          )?.[1] ?? NaN,
        );
      expect(await started()).toBe(0);
      for (let i = 0; i < 2; i++)
        expect((await collect(client, 'subscription { serverTime(intervalMs: 10, count: 1) }')).results).toHaveLength(
          1,
        );
      // Refused by its resolver (one result with the error), and by validation (graphql-ws's error message).
      const refused = await collect(client, 'subscription { serverTime(intervalMs: 1, count: 1) }');
      expect(refused.results[0].errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
      expect((await collect(client, 'subscription { nope }')).error).toBeDefined();
      expect((await collect(client, '{ upstreams { id } }')).results[0].errors).toBeUndefined();
      // A query delivered in parts is an iterator on the socket too, and no subscription.
      expect(
        (await collect(client, '{ upstreams { id } ... @defer { chatProviders { id } } }')).results.length,
      ).toBeGreaterThan(1);
      expect(await started()).toBe(2);
    } finally {
      await client.dispose();
      await t.close();
    }
  });
});
