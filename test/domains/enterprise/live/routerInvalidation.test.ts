/**
 * Live health tells routers what went stale (ROUTER_INVALIDATION_URLS): with no subscriber at all, a change made
 * upstream reaches an emulated Apollo Router invalidation endpoint (test/support/invalidationEndpoint.ts) at the
 * first poll after it, from the leader replica alone.
 */
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startGateway } from '../../../../src/app/gateway.js';
import { loadConfig } from '../../../../src/config/env.js';
import type { LiveHealth } from '../../../../src/domains/enterprise/live/feed.js';
import type { PollReport } from '../../../../src/domains/enterprise/live/poller.js';
import { MemoryState } from '../../../../src/state/index.js';
import { LogCapture, startTestGateway, type TestGateway } from '../../../support/gateway.js';
import { ManualClock } from '../../../support/pollClock.js';
import { startInvalidationEndpoint, type InvalidationEndpoint } from '../../../support/invalidationEndpoint.js';
import { graphCalls } from '../../../support/graphRequests.js';

const SECRET = 'invalidation-shared-key-0123';

async function pollOnce(live: LiveHealth, clock: ManualClock): Promise<PollReport> {
  const report = once(live.poller, 'poll');
  clock.fire();
  return ((await report) as [PollReport])[0];
}

const env = (router: InvalidationEndpoint) => ({
  GRAPH_POLL_INTERVAL_MS: '60000',
  ROUTER_INVALIDATION_URLS: `ops=${router.url}`,
  ROUTER_INVALIDATION_SECRET: SECRET,
});
const DEGRADE = `mutation { updateServiceHealth(id: "Exchange", input: { status: SERVICE_DEGRADATION }) { id } }`;
const tagsOf = (router: InvalidationEndpoint) =>
  router.received.flatMap((r) => r.requests.map((q) => (q.kind === 'cache_tag' ? q.cache_tag : q.kind)));

describe('live health with ROUTER_INVALIDATION_URLS', () => {
  let router: InvalidationEndpoint;
  let gw: TestGateway;
  let live: LiveHealth;
  const clock = new ManualClock();
  beforeAll(async () => {
    router = await startInvalidationEndpoint({ ops: SECRET });
    gw = await startTestGateway(env(router), {}, { domains: { liveHealth: { clock } } });
    live = gw.gateway.services.domains.liveHealth;
  });
  afterAll(async () => {
    await gw?.close();
    await router?.close();
  });

  it('serves @cacheTag on the entities, linking Federation 2.12', async () => {
    const { body } = await gw.query('{ _service { sdl } }');
    const sdl: string = body.data._service.sdl;
    expect(sdl).toMatch(
      /@link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.12", import: \[[^\]]*"@cacheTag"\]\)/,
    );
    expect(sdl).toMatch(/type ServiceHealth[^{]*@cacheTag\(format: "service-health-\{\$key\.id\}"\)/);
    expect(sdl).toMatch(/type Title[^{]*@cacheTag\(format: "title-\{\$key\.imdbId\}"\)/);
    expect(sdl).toMatch(/admin: Admin![^\n]*@cacheTag\(format: "service-announcement"\)/);
  });

  it('polls without subscribers and tells the router of a change at the first poll after it, sending nothing when nothing changed', async () => {
    expect(live.subscriberCount).toBe(0);
    await vi.waitFor(() => expect(live.poller.scheduled).toBe(true));
    // The baseline poll ran at start-up; a poll that finds nothing sends nothing.
    expect((await pollOnce(live, clock)).changes).toBe(0);
    await gw.gateway.services.clients.routers!.settled();
    expect(router.received).toEqual([]);

    // What the router holds: Exchange's and SharePoint's health entities, a title.
    router.cache.set('ops', new Set(['service-health-Exchange', 'service-health-SharePoint', 'title-tt0078748']));
    expect((await gw.query(DEGRADE)).body.errors).toBeUndefined();
    const polled = Date.now();
    const report = await pollOnce(live, clock);
    expect(report.changes).toBe(1);
    await gw.gateway.services.clients.routers!.settled();
    expect(router.received).toHaveLength(1);
    expect(router.received[0]).toMatchObject({ authorization: SECRET, status: 202 });
    expect(router.received[0].requests).toEqual([
      { kind: 'cache_tag', subgraphs: ['ops'], cache_tag: 'service-health-Exchange' },
      { kind: 'cache_tag', subgraphs: ['ops'], cache_tag: 'service-announcement' },
    ]);
    // Exchange's cached health is dropped within that one poll; the rest stays.
    expect([...router.cache.get('ops')!]).toEqual(['service-health-SharePoint', 'title-tt0078748']);
    console.info(
      `invalidation delay: the router heard of the change ${router.received[0].at - polled} ms after the poll that saw it began (the same poll; load ${(await import('node:os')).loadavg()[0].toFixed(1)})`,
    );
    // One health request per poll, nothing else for the routers' sake.
    expect(graphCalls(gw).filter((c) => c.startsWith('GET /admin/serviceAnnouncement/healthOverviews?'))).toHaveLength(
      3,
    );
  });
});

describe('two replicas with ROUTER_INVALIDATION_URLS', () => {
  it('tell the router once per change: only the leader sends', async () => {
    const router = await startInvalidationEndpoint({ ops: SECRET });
    const state = new MemoryState();
    const clocks = [new ManualClock(), new ManualClock()];
    const first = await startTestGateway(env(router), {}, { domains: { liveHealth: { state, clock: clocks[0] } } });
    const second = await startGateway({
      config: loadConfig({ PORT: '0', LOG_LEVEL: 'warn', ...env(router) }),
      sandbox: first.sandbox,
      logDestination: new LogCapture(),
      domains: { liveHealth: { state, clock: clocks[1] } },
    });
    try {
      const replicas = [first.gateway, second].map((g) => g.services.domains.liveHealth);
      await vi.waitFor(() => expect(clocks.every((c) => c.waiting === 1)).toBe(true));
      // Both tick each interval; one holds the lease and polls.
      const tick = async () => {
        const polled = replicas.map((r) => once(r.poller, 'poll'));
        clocks[0].fire();
        clocks[1].fire();
        await Promise.race(polled);
        await vi.waitFor(() => expect(clocks.every((c) => c.waiting === 1)).toBe(true));
      };
      await tick();
      expect((await first.query(DEGRADE)).body.errors).toBeUndefined();
      await tick();
      await Promise.all([first.gateway, second].map((g) => g.services.clients.routers!.settled()));
      expect(tagsOf(router)).toEqual(['service-health-Exchange', 'service-announcement']);
      expect(replicas.map((r) => r.poller.pollCount).sort()).toEqual([0, 3]);
    } finally {
      await second.close();
      await first.close();
      await router.close();
    }
  });
});
