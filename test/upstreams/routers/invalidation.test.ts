import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/env.js';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { MAX_PENDING_TAGS, RouterInvalidation } from '../../../src/upstreams/routers/invalidation.js';
import { LogCapture } from '../../support/gateway.js';
import { startInvalidationEndpoint, type InvalidationEndpoint } from '../../support/invalidationEndpoint.js';

const SECRET = 'invalidation-shared-key-0123';

let router: InvalidationEndpoint;
let logs: LogCapture;
let client: RouterInvalidation;

function connect(url = router.url, subgraph = 'gateway', secret = SECRET): RouterInvalidation {
  logs = new LogCapture();
  const log = pino({ level: 'info' }, logs);
  return new RouterInvalidation({ metrics: new GatewayMetrics(), log, redact: (s) => s }, [{ subgraph, url }], secret);
}

beforeEach(async () => {
  router = await startInvalidationEndpoint({ gateway: SECRET });
  client = connect();
});
afterEach(async () => {
  await client.close();
  await router.close();
});

describe("Apollo Router's invalidation endpoint, as the gateway calls it", () => {
  it('POSTs one cache_tag request per tag, naming the subgraph, with the shared key as the whole Authorization', async () => {
    router.cache.set('gateway', new Set(['service-health-Exchange', 'title-tt0078748']));
    client.invalidate(['service-health-Exchange', 'service-announcement']);
    await client.settled();
    expect(router.received).toEqual([
      {
        at: expect.any(Number),
        authorization: SECRET,
        status: 202,
        requests: [
          { kind: 'cache_tag', subgraphs: ['gateway'], cache_tag: 'service-health-Exchange' },
          { kind: 'cache_tag', subgraphs: ['gateway'], cache_tag: 'service-announcement' },
        ],
      },
    ]);
    expect([...router.cache.get('gateway')!]).toEqual(['title-tt0078748']);
  });

  it('retries a restarting router (503, Retry-After) with the one retry policy, and not a refused key', async () => {
    router.failNext(2, 503, { 'retry-after': '0' });
    client.invalidate(['service-health-Exchange']);
    await client.settled();
    expect(router.received.map((r) => r.status)).toEqual([503, 503, 202]);

    await client.close();
    client = connect(router.url, 'gateway', 'not-the-shared-key-0123');
    client.invalidate(['service-health-Exchange']);
    await client.settled();
    expect(router.received.slice(3).map((r) => r.status)).toEqual([401]);
    const line = logs
      .json()
      .find((l) => l.msg === 'router invalidation failed: the router keeps those entries until their max-age');
    expect(line).toMatchObject({ level: 40, router: router.url, attempts: 1, failures: 1 });
    expect(String(line!.err)).toContain('HTTP 401 (ROUTER_INVALIDATION_SECRET is not its shared_key)');
    // The secret is sent, never logged.
    expect(logs.lines.join('\n')).not.toContain('not-the-shared-key-0123');
  });

  it('logs a failing router at most once a minute, with the failures since the last line', async () => {
    await client.close();
    client = connect('http://127.0.0.1:9/invalidation'); // nothing listens: a network failure, retried, then given up
    const failed = () => logs.json().filter((l) => String(l.msg).startsWith('router invalidation failed'));
    for (let i = 0; i < 3; i++) {
      client.invalidate([`service-health-${i}`]);
      await client.settled();
    }
    expect(failed()).toHaveLength(1);
    expect(failed()[0]).toMatchObject({ attempts: 4, failures: 1 });
  });

  it('keeps one request in flight per router: what arrives meanwhile waits, deduplicated, and past the bound drops the subgraph whole', async () => {
    router.stall();
    client.invalidate(['service-health-Exchange']);
    await vi.waitFor(() => expect(router.received).toHaveLength(1));
    for (let i = 0; i < 3; i++) client.invalidate(['service-health-SharePoint', 'service-announcement']);
    // Still one request: the stalled one.
    expect(router.received).toHaveLength(1);
    router.release();
    await client.settled();
    expect(router.received.map((r) => r.requests.map((q) => (q.kind === 'cache_tag' ? q.cache_tag : q.kind)))).toEqual([
      ['service-health-Exchange'],
      ['service-health-SharePoint', 'service-announcement'],
    ]);

    router.stall();
    client.invalidate(['first']);
    await vi.waitFor(() => expect(router.received).toHaveLength(3));
    client.invalidate(Array.from({ length: MAX_PENDING_TAGS + 1 }, (_, i) => `service-health-${i}`));
    router.release();
    await client.settled();
    expect(router.received).toHaveLength(4);
    expect(router.received[3].requests).toEqual([{ kind: 'subgraph', subgraph: 'gateway' }]);
    expect(router.received[3].status).toBe(202);
  });

  it('is refused by the router for a subgraph whose shared key it was not given', async () => {
    await client.close();
    client = connect(router.url, 'other');
    client.invalidate(['service-health-Exchange']);
    await client.settled();
    expect(router.received.map((r) => r.status)).toEqual([401]);
  });
});

describe('ROUTER_INVALIDATION_URLS and ROUTER_INVALIDATION_SECRET', () => {
  /** The one problem loadConfig reports for `env`. */
  const problem = (env: Record<string, string>) => {
    const error = (() => {
      try {
        loadConfig(env);
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error?.problems).toHaveLength(1);
    return `${error!.problems[0].variable}: ${error!.problems[0].message}`;
  };

  it('reads URL or subgraph=URL pairs; the subgraph defaults to the name npm run supergraph gives', () => {
    const config = loadConfig({
      ROUTER_INVALIDATION_URLS: 'http://router-a:4000/invalidation, ops_enterprise=https://router-b/invalidation',
      ROUTER_INVALIDATION_SECRET: SECRET,
    });
    expect(config.routerInvalidation).toEqual({
      targets: [
        { subgraph: 'gateway', url: 'http://router-a:4000/invalidation' },
        { subgraph: 'ops_enterprise', url: 'https://router-b/invalidation' },
      ],
      secret: SECRET,
    });
    expect(config.subgraph.cacheTags).toBe(true);
    expect(config.secrets).toContain(SECRET);
    expect(loadConfig({}).routerInvalidation).toBeUndefined();
    expect(loadConfig({}).subgraph.cacheTags).toBe(false);
  });

  it('refuses what a router would not take, naming the value', () => {
    expect(problem({ ROUTER_INVALIDATION_URLS: 'http://router/invalidation' })).toMatch(
      /^ROUTER_INVALIDATION_SECRET: is required with ROUTER_INVALIDATION_URLS/,
    );
    expect(
      problem({ ROUTER_INVALIDATION_URLS: 'http://router/invalidation', ROUTER_INVALIDATION_SECRET: 'short' }),
    ).toBe('ROUTER_INVALIDATION_SECRET: must be at least 16 characters; it has 5');
    expect(
      problem({ ROUTER_INVALIDATION_URLS: 'router:4000/invalidation', ROUTER_INVALIDATION_SECRET: SECRET }),
    ).toMatch(/ROUTER_INVALIDATION_URLS.*"router:4000\/invalidation" must be an absolute http\(s\) URL/);
    expect(problem({ ROUTER_INVALIDATION_URLS: 'bad name=http://r/i', ROUTER_INVALIDATION_SECRET: SECRET })).toMatch(
      /ROUTER_INVALIDATION_URLS.*"bad name" is not a subgraph name/,
    );
    expect(problem({ ROUTER_INVALIDATION_URLS: 'file:///etc/passwd', ROUTER_INVALIDATION_SECRET: SECRET })).toMatch(
      /must be an absolute http\(s\) URL/,
    );
  });
});
