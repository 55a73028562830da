import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../src/observability/metrics.js';
import {
  createSharedState,
  MemoryState,
  type RedisState,
  type SharedState,
  type StoredDocument,
} from '../../src/state/index.js';
import { startRedis } from '../support/redis.js';
import { useRedisStates } from '../support/sharedState.js';

/**
 * One suite, two implementations: every behaviour of shared state holds in process (one replica) and in Redis (any
 * number of replicas). "Replicas" of the in-process state are the one state object of this process, as in a gateway.
 */
const shared = useRedisStates();
const redisReplicas = shared.states;
const redis = { stop: () => shared.redis().stop(), start: () => shared.redis().start() };
const opened: SharedState[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

const backends: Array<{ name: string; replicas: (n: number) => Promise<SharedState[]> }> = [
  {
    name: 'in process',
    replicas: async (n) => {
      const state = new MemoryState();
      return Array.from({ length: n }, () => state);
    },
  },
  { name: 'redis', replicas: (n) => redisReplicas(n) },
];

const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(backends)('shared state ($name)', ({ name, replicas }) => {
  describe('daily quota', () => {
    it('grants exactly the limit when 3 replicas race 30 reservations against a limit of 10', async () => {
      const quotas = (await replicas(3)).map((s) => s.dailyQuota('omdb', { limit: 10 }));
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => quotas[i % 3].reserve()));
      expect(results.filter((r) => r.granted)).toHaveLength(10);
      expect(await quotas[1].remaining()).toBe(0);
      expect(results.filter((r) => !r.granted).every((r) => r.remaining === 0)).toBe(true);
    });

    it('refuses a reservation larger than what remains and takes nothing', async () => {
      const [a, b] = (await replicas(2)).map((s) => s.dailyQuota('omdb', { limit: 5 }));
      expect(await a.reserve(3)).toEqual({ granted: true, remaining: 2 });
      expect(await b.reserve(3)).toEqual({ granted: false, remaining: 2 });
      expect(await b.reserve(2)).toEqual({ granted: true, remaining: 0 });
    });

    it('tells a caller about to spend more than remains how much does, and leaves those units to the others', async () => {
      const [a, b] = (await replicas(2)).map((s) => s.dailyQuota('omdb', { limit: 5 }));
      expect(await a.reserve(3)).toEqual({ granted: true, remaining: 2 });
      expect(await b.remaining(3)).toBe(2);
      expect(await a.reserve(2)).toEqual({ granted: true, remaining: 0 });
      expect(await b.remaining(1)).toBe(0);
    });

    it('answers what remains without a round trip only when this replica can, and then as `remaining` does', async () => {
      const [a, b] = (await replicas(2)).map((s) => s.dailyQuota('omdb', { limit: 5 }));
      expect(await a.reserve(3)).toEqual({ granted: true, remaining: 2 });
      // In process the counter answers; with Redis this replica holds no slice yet: it must ask.
      expect(b.remainingHere(2)).toBe(name === 'redis' ? undefined : 2);
      expect(await b.remaining(2)).toBe(2);
      expect(b.remainingHere(2)).toBe(2);
      // More than its slice covers: Redis asks again, never answering from the slice alone.
      expect(b.remainingHere(3)).toBe(name === 'redis' ? undefined : 2);
    });

    it('reserves without a round trip only from what this replica holds, and takes nothing when it cannot', async () => {
      const [a, b] = (await replicas(2)).map((s) => s.dailyQuota('omdb', { limit: 4 }));
      // With Redis nothing is held before a claim: undefined, nothing taken.
      if (name === 'redis') expect(a.reserveHere(1)).toBeUndefined();
      expect(await a.reserve(2)).toEqual({ granted: true, remaining: 2 });
      expect(await b.reserve(1)).toEqual({ granted: true, remaining: 1 });
      // Taken from the slice (or the counter) at once; the last unit is b's in Redis, so a cannot take it alone.
      expect(b.reserveHere(1)).toEqual(name === 'redis' ? undefined : { granted: true, remaining: 0 });
      if (name === 'redis') expect(await b.reserve(1)).toEqual({ granted: true, remaining: 0 });
      expect(a.reserveHere(1)).toEqual(name === 'redis' ? undefined : { granted: false, remaining: 0 });
      expect(await a.reserve(1)).toEqual({ granted: false, remaining: 0 });
    });

    it('counts retries beyond the reservation, and an upstream "limit reached" exhausts the day for every replica', async () => {
      const [a, b] = (await replicas(2)).map((s) => s.dailyQuota('omdb', { limit: 10 }));
      await a.reserve();
      await a.add(2);
      expect(await b.remaining()).toBe(7);
      await b.exhaust();
      expect(await a.remaining()).toBe(0);
      expect((await a.reserve()).granted).toBe(false);
    });

    it('starts afresh at 00:00 UTC and tells the seconds until then', async () => {
      let now = Date.UTC(2025, 0, 1, 23, 59, 0);
      const [a, b] = (await replicas(2)).map((s) => s.dailyQuota('omdb', { limit: 1, now: () => now }));
      expect(a.secondsUntilReset()).toBe(60);
      expect((await a.reserve()).granted).toBe(true);
      expect((await b.reserve()).granted).toBe(false);
      now += 60_000;
      expect((await b.reserve()).granted).toBe(true);
      expect(await a.remaining()).toBe(0);
      now += DAY;
      expect(await a.remaining()).toBe(1);
    });

    it('reports every change of the remaining units', async () => {
      const seen: number[] = [];
      const [state] = await replicas(1);
      const quota = state.dailyQuota('omdb', { limit: 3, onChange: (n) => seen.push(n) });
      await quota.reserve();
      await quota.reserve();
      expect(seen).toEqual([3, 2, 1]);
    });
  });

  describe('rate limiter', () => {
    it('grants perMinute requests in any 60 s, then refuses with the time until the oldest leaves the window', async () => {
      let now = 1_000_000;
      const [state] = await replicas(1);
      const limiter = state.rateLimiter('deepseek', { perMinute: 2, maxWaitMs: 0, now: () => now });
      expect(await limiter.acquire()).toEqual({ ok: true });
      now += 10_000;
      expect(await limiter.acquire()).toEqual({ ok: true });
      expect(await limiter.acquire()).toEqual({ ok: false, retryAfterMs: 50_000 });
      now += 50_000;
      expect(await limiter.acquire()).toEqual({ ok: true });
      expect(await limiter.acquire()).toEqual({ ok: false, retryAfterMs: 10_000 });
    });

    it('holds perMinute for all replicas together', async () => {
      const now = 5_000_000;
      const limiters = (await replicas(3)).map((s) =>
        s.rateLimiter('deepseek', { perMinute: 6, maxWaitMs: 0, now: () => now }),
      );
      const verdicts = await Promise.all(Array.from({ length: 18 }, (_, i) => limiters[i % 3].acquire()));
      expect(verdicts.filter((v) => v.ok)).toHaveLength(6);
      expect(verdicts.filter((v) => !v.ok).every((v) => !v.ok && v.retryAfterMs === 60_000)).toBe(true);
    });

    it('lets a request wait in line when its slot frees within maxWaitMs, and counts the waiting one', async () => {
      let now = 0;
      const [a, b] = (await replicas(2)).map((s) =>
        s.rateLimiter('deepseek', { perMinute: 1, maxWaitMs: 60_000, now: () => now }),
      );
      await a.acquire();
      now = 59_990;
      // Its slot frees in 10 ms: it waits instead of being refused; the one after it would wait 60 s more.
      const waiting = b.acquire();
      await sleep(5);
      expect(await a.acquire()).toEqual({ ok: false, retryAfterMs: 60_010 });
      expect(await waiting).toEqual({ ok: true });
    });

    it('gives the slot back when a waiting caller goes away', async () => {
      let now = 0;
      const [state] = await replicas(1);
      const limiter = state.rateLimiter('deepseek', { perMinute: 1, maxWaitMs: 60_000, now: () => now });
      await limiter.acquire();
      now = 30_000;
      const controller = new AbortController();
      const waiting = limiter.acquire(controller.signal);
      await sleep(5);
      controller.abort(new Error('client left'));
      await expect(waiting).rejects.toThrow('client left');
      now = 60_000;
      expect(await limiter.acquire()).toEqual({ ok: true });
    });
  });

  describe('cache', () => {
    it('serves an entry one replica stored to the others, and to their synchronous copy once fetched', async () => {
      const [a, b] = (await replicas(2)).map((s) => s.cache<{ title: string }>('omdb', { max: 10, ttlMs: 60_000 }));
      expect(await b.get('tt1')).toBeUndefined();
      await a.set('tt1', { title: 'Alien' });
      expect(await b.get('tt1')).toEqual({ title: 'Alien' });
      expect(b.local('tt1')).toEqual({ title: 'Alien' });
    });

    it('copies entries into the local copy with prefetch, so estimates can read them synchronously', async () => {
      const [a, b] = (await replicas(2)).map((s) => s.cache<{ n: number }>('omdb', { max: 10, ttlMs: 60_000 }));
      await a.set('k1', { n: 1 });
      await a.set('k2', { n: 2 });
      await b.prefetch(['k1', 'k2', 'k3']);
      expect([b.local('k1'), b.local('k2'), b.local('k3')]).toEqual([{ n: 1 }, { n: 2 }, undefined]);
    });

    it('forgets an entry after its time to live, on every replica', async () => {
      const [a, b] = (await replicas(2)).map((s) => s.cache<{ n: number }>('omdb', { max: 10, ttlMs: 60_000 }));
      // Long enough that the read right after the write is inside it even on a loaded machine.
      await a.set('short', { n: 1 }, 1_500);
      expect(await b.get('short')).toEqual({ n: 1 });
      await sleep(2_000);
      expect(await a.get('short')).toBeUndefined();
      expect(await b.get('short')).toBeUndefined();
    });
  });

  describe('response store', () => {
    const body = (c: string) => `{"data":"${c.repeat(390)}"}`;

    it('serves an answer one replica stored to the others until its time to live', async () => {
      const name = `responses-${randomUUID()}`;
      const [a, b] = (await replicas(2)).map((s) => s.responseStore(name, { maxBytes: 10_000 }));
      await a.set('k', body('a'), 1_500, ['enterprise']);
      expect(await b.get('k', ['enterprise'])).toBe(body('a'));
      await sleep(2_000);
      expect(await a.get('k', ['enterprise'])).toBeUndefined();
    });

    it('drops every answer of a tag on every replica, and only those', async () => {
      const name = `responses-${randomUUID()}`;
      const [a, b] = (await replicas(2)).map((s) => s.responseStore(name, { maxBytes: 10_000 }));
      await a.set('health', body('h'), 60_000, ['enterprise']);
      await a.set('both', body('b'), 60_000, ['enterprise', 'titles']);
      await b.set('title', body('t'), 60_000, ['titles']);
      await b.invalidate(['enterprise']);
      expect([await a.get('health', []), await a.get('both', []), await a.get('title', [])]).toEqual([
        undefined,
        undefined,
        body('t'),
      ]);
    });

    it('keeps at most maxBytes: the oldest answers go first', async () => {
      const name = `responses-${randomUUID()}`;
      const [a, b] = (await replicas(2)).map((s) => s.responseStore(name, { maxBytes: 1_000 }));
      await a.set('first', body('1'), 60_000, ['titles']);
      await b.set('second', body('2'), 60_000, ['titles']);
      await a.set('third', body('3'), 60_000, ['titles']);
      expect([
        await b.get('first', ['titles']),
        await b.get('second', ['titles']),
        await b.get('third', ['titles']),
      ]).toEqual([undefined, body('2'), body('3')]);
    });
  });

  describe('documents', () => {
    const doc = (id: string, extra: Partial<StoredDocument> = {}): StoredDocument => ({
      id,
      owner: 'owner-a',
      provider: 'moonshot',
      fileId: `file-${id}`,
      fileName: `${id}.pdf`,
      mediaType: 'application/pdf',
      bytes: 1_000,
      tokens: 300,
      status: 'ready',
      createdAt: 1_000,
      ...extra,
    });

    it("keeps a document and the text the gateway extracted, for every replica: by id, in its owner's list, in its provider's usage", async () => {
      const name = `documents-${randomUUID()}`;
      const [a, b] = (await replicas(2)).map((s) => s.documents(name, { maxTextBytes: 10_000 }));
      await a.add(doc('d1', { createdAt: 1 }));
      await b.add(doc('d2', { createdAt: 2, bytes: 500 }));
      await a.add(doc('d3', { createdAt: 3, provider: 'deepseek', fileId: undefined }), 'the extracted text');
      await b.add(doc('d4', { owner: 'owner-b' }));
      expect(await b.get('d1')).toEqual(doc('d1', { createdAt: 1 }));
      expect(await b.text('d3')).toBe('the extracted text');
      expect(await a.text('d1')).toBeUndefined();
      expect((await b.list('owner-a')).map((d) => d.id)).toEqual(['d3', 'd2', 'd1']);
      expect(await a.usage('moonshot')).toEqual({ files: 3, bytes: 2_500 });
      expect(await a.usage('deepseek')).toEqual({ files: 0, bytes: 0 });
      expect([
        await b.usage('moonshot', 'owner-a'),
        await b.usage('moonshot', 'owner-b'),
        await b.usage('deepseek', 'owner-a'),
      ]).toEqual([
        { files: 2, bytes: 1_500 },
        { files: 1, bytes: 1_000 },
        { files: 0, bytes: 0 },
      ]);
      expect([await b.holds('moonshot', 'file-d2'), await b.holds('moonshot', 'file-nope')]).toEqual([true, false]);
    });

    it('refuses a text past maxTextBytes and adds nothing, never dropping another document; a removal makes room', async () => {
      const name = `documents-${randomUUID()}`;
      const [a, b] = (await replicas(2)).map((s) => s.documents(name, { maxTextBytes: 100 }));
      expect(await a.add(doc('d1', { fileId: undefined }), 'x'.repeat(60))).toBe('added');
      expect(await b.add(doc('d2', { fileId: undefined }), 'y'.repeat(60))).toBe('full');
      expect([await b.get('d2'), await a.text('d1')]).toEqual([undefined, 'x'.repeat(60)]);
      expect(await b.remove('d1')).toEqual(doc('d1', { fileId: undefined }));
      expect(await b.add(doc('d2', { fileId: undefined }), 'y'.repeat(60))).toBe('added');
    });

    it('changes a status for every replica, and removes a document once, with its usage and file index', async () => {
      const name = `documents-${randomUUID()}`;
      const [a, b] = (await replicas(2)).map((s) => s.documents(name, { maxTextBytes: 100 }));
      await a.add(doc('d1'));
      await b.setStatus('d1', 'unavailable');
      expect((await a.get('d1'))!.status).toBe('unavailable');
      expect((await b.remove('d1'))!.id).toBe('d1');
      expect(await a.remove('d1')).toBeUndefined();
      expect([
        await a.get('d1'),
        await b.list('owner-a'),
        await a.usage('moonshot'),
        await a.usage('moonshot', 'owner-a'),
        await a.holds('moonshot', 'file-d1'),
      ]).toEqual([undefined, [], { files: 0, bytes: 0 }, { files: 0, bytes: 0 }, false]);
    });
    it("refuses an owner's text past its share (clientMaxBytes) while another owner's is added; a removal gives the share back", async () => {
      const name = `documents-${randomUUID()}`;
      const [a, b] = (await replicas(2)).map((s) => s.documents(name, { maxTextBytes: 1_000, clientMaxBytes: 100 }));
      const text = (id: string, owner: string) => doc(id, { owner, fileId: undefined, provider: null });
      expect(await a.add(text('d1', 'owner-a'), 'x'.repeat(60))).toBe('added');
      expect(await b.add(text('d2', 'owner-a'), 'y'.repeat(60))).toBe('client-full');
      expect(await b.add(text('d3', 'owner-b'), 'z'.repeat(90))).toBe('added');
      expect([await a.held('owner-a'), await a.held('owner-b'), await b.get('d2')]).toEqual([60, 90, undefined]);
      await b.remove('d1');
      expect(await a.held('owner-a')).toBe(0);
      expect(await a.add(text('d2', 'owner-a'), 'y'.repeat(60))).toBe('added');
    });

    it('treats a document past expiresAt as gone for every read, and hands it to the sweep until it is removed', async () => {
      const name = `documents-${randomUUID()}`;
      let now = 10_000;
      const [a, b] = (await replicas(2)).map((s) => s.documents(name, { maxTextBytes: 1_000, now: () => now }));
      await a.add(doc('d1', { expiresAt: 20_000 }));
      await a.add(doc('d2', { expiresAt: 30_000, fileId: undefined, provider: null }), 'kept text');
      expect((await b.list('owner-a')).map((d) => d.id)).toEqual(['d2', 'd1']);
      expect(await b.expired(10)).toEqual([]);
      now = 25_000;
      expect([await b.get('d1'), (await b.list('owner-a')).map((d) => d.id)]).toEqual([undefined, ['d2']]);
      // Until the sweep removes it, the expired document still holds its provider file (the reconcile leaves it).
      expect(await b.holds('moonshot', 'file-d1')).toBe(true);
      now = 40_000;
      expect((await a.expired(10)).map((d) => d.id)).toEqual(['d1', 'd2']);
      await b.remove('d1');
      await b.remove('d2');
      expect([await a.expired(10), await a.held('owner-a'), await a.usage('moonshot')]).toEqual([
        [],
        0,
        { files: 0, bytes: 0 },
      ]);
    });

    it('settles an add whose answer was lost: a landed one is kept or removed, one not landed is barred for good', async () => {
      const name = `documents-${randomUUID()}`;
      const [a, b] = (await replicas(2)).map((s) => s.documents(name, { maxTextBytes: 1_000 }));
      await a.add(doc('d1'));
      // An add sent again (its answer lost) changes nothing: counted once.
      expect(await b.add(doc('d1'))).toBe('added');
      expect(await a.usage('moonshot')).toEqual({ files: 1, bytes: 1_000 });
      expect(await b.cancel(doc('d1'), 'keep')).toBe('stored');
      expect((await a.get('d1'))?.id).toBe('d1');
      expect(await b.cancel(doc('d1'), 'remove')).toBe('removed');
      expect([await a.get('d1'), await a.usage('moonshot')]).toEqual([undefined, { files: 0, bytes: 0 }]);
      // The add arrives after its cancellation (a hung Redis working off its queue): nothing is added.
      expect(await b.cancel(doc('d2'), 'keep')).toBe('barred');
      await a.add(doc('d2'), 'late text');
      expect([await a.get('d2'), await a.list('owner-a'), await a.holds('moonshot', 'file-d2')]).toEqual([
        undefined,
        [],
        false,
      ]);
    });
  });

  describe('shared value (the Graph token)', () => {
    it('is created once for 3 replicas asking at once, and again once it expired', async () => {
      const values = (await replicas(3)).map((s) => s.sharedValue<string>('graph-token'));
      let created = 0;
      const create = async () => {
        created++;
        await sleep(100);
        return { value: `token-${created}`, ttlMs: 1_500 };
      };
      const got = await Promise.all(Array.from({ length: 9 }, (_, i) => values[i % 3].get(create)));
      expect(created).toBe(1);
      expect(new Set(got)).toEqual(new Set(['token-1']));
      await sleep(1_700);
      expect(await values[2].get(create)).toBe('token-2');
      expect(await values[0].get(create)).toBe('token-2');
      expect(created).toBe(2);
    });

    it('peeks at the value only while it is good (no promise per reader)', async () => {
      const [value] = (await replicas(1)).map((s) => s.sharedValue<string>('graph-token'));
      expect(value.peek()).toBeUndefined();
      expect(await value.get(async () => ({ value: 'held', ttlMs: 300 }))).toBe('held');
      expect(value.peek()).toBe('held');
      await sleep(400);
      expect(value.peek()).toBeUndefined();
    });

    it('hands a failed creation to its callers and tries again on the next call', async () => {
      const [value] = (await replicas(1)).map((s) => s.sharedValue<string>('graph-token'));
      await expect(value.get(() => Promise.reject(new Error('AADSTS7000215')))).rejects.toThrow('AADSTS7000215');
      expect(await value.get(async () => ({ value: 'ok', ttlMs: 1_000 }))).toBe('ok');
    });
  });

  describe('leader lease', () => {
    it('has one holder at a time; another takes it after release or when it lapses', async () => {
      const leases = (await replicas(3)).map((s) => s.leaderLease('health-poller', { ttlMs: 1_000 }));
      const first = await Promise.all(leases.map((l) => l.acquire()));
      expect(first.filter(Boolean)).toHaveLength(1);
      const leader = first.indexOf(true);
      const [x, y] = [0, 1, 2].filter((i) => i !== leader);
      expect(await leases[leader].renew()).toBe(true);
      expect(await leases[x].renew()).toBe(false);
      await leases[leader].release();
      expect(await leases[x].acquire()).toBe(true);
      expect(await leases[y].acquire()).toBe(false);
      // x stops renewing: after the TTL y takes over, and x learns it lost the lease.
      await sleep(1_300);
      expect(await leases[y].acquire()).toBe(true);
      expect(await leases[x].renew()).toBe(false);
    });

    it("hands the holder's checkpoint to the next holder, and takes none from a replica that does not hold it", async () => {
      const [a, b] = (await replicas(2)).map((s) =>
        s.leaderLease('health-poller', { ttlMs: 5_000, checkpointTtlMs: 1_000 }),
      );
      expect(await a.lastCheckpoint()).toBeUndefined();
      expect(await a.acquire()).toBe(true);
      await a.checkpoint({ poll: 1, services: ['Exchange'] });
      await b.checkpoint({ poll: 99 });
      await a.release();
      expect(await b.acquire()).toBe(true);
      expect(await b.lastCheckpoint()).toEqual({ poll: 1, services: ['Exchange'] });
      await b.checkpoint({ poll: 2 });
      expect(await a.lastCheckpoint()).toEqual({ poll: 2 });
      // A checkpoint nobody renews is forgotten: a holder long after starts afresh.
      await sleep(1_300);
      expect(await a.lastCheckpoint()).toBeUndefined();
    });
  });

  describe('daily counters', () => {
    it('sums the counters of each entry of a day, across replicas, exactly under concurrent additions', async () => {
      const [a, b, c] = (await replicas(3)).map((s) => s.dailyCounters('usage'));
      await Promise.all(
        Array.from({ length: 90 }, (_, i) =>
          [a, b, c][i % 3].add('2025-03-01', 'glm/glm-4-flash', { total: 3, requests: 1 }),
        ),
      );
      await a.add('2025-03-01', 'ark/ep-1#x', { total: 5, requests: 1 });
      await b.add('2025-03-02', 'glm/glm-4-flash', { total: 1, requests: 1 });
      expect(await c.read('2025-03-01')).toEqual(
        new Map([
          ['glm/glm-4-flash', { total: 270, requests: 90 }],
          ['ark/ep-1#x', { total: 5, requests: 1 }],
        ]),
      );
      expect(await a.read('2025-03-02')).toEqual(new Map([['glm/glm-4-flash', { total: 1, requests: 1 }]]));
      expect(await a.read('2025-03-03')).toEqual(new Map());
    });

    it('refuses a counter name holding the field separator', async () => {
      const [state] = await replicas(1);
      await expect(state.dailyCounters('usage').add('2025-03-01', 'glm', { 'a#b': 1 })).rejects.toThrow(
        'counter name "a#b" holds "#"',
      );
    });
  });

  describe('client budgets', () => {
    it("takes a cost from a bucket that holds a minute's budget and refills it continuously, telling the wait", async () => {
      let now = 1_000_000;
      const [state] = await replicas(1);
      const budgets = state.clientBudgets('cost', { perMinute: 120, perDay: 0, now: () => now });
      expect(await budgets.spend('a', 100)).toEqual({ ok: true });
      expect(await budgets.spend('a', 30)).toEqual({ ok: false, limit: 'perMinute', retryAfterMs: 5_000 });
      // Another client has its own budget.
      expect(await budgets.spend('b', 120)).toEqual({ ok: true });
      now += 5_000;
      expect(await budgets.spend('a', 30)).toEqual({ ok: true });
    });

    it('gives back what an operation took beyond its actual cost, and refuses past the day until 00:00 UTC', async () => {
      let now = Date.UTC(2025, 5, 1, 23, 59, 0);
      const [x, y] = (await replicas(2)).map((s) =>
        s.clientBudgets('cost', { perMinute: 0, perDay: 50, now: () => now }),
      );
      expect(await x.spend('a', 40)).toEqual({ ok: true });
      x.adjust('a', -30);
      expect(await x.spend('a', 0)).toEqual({ ok: true });
      expect(await y.spend('a', 40)).toEqual({ ok: true });
      expect(await y.spend('a', 1)).toEqual({ ok: false, limit: 'perDay', retryAfterMs: 60_000 });
      now += 60_000;
      expect(await x.spend('a', 50)).toEqual({ ok: true });
    });
  });

  describe('holdings', () => {
    it('grants a client at most max shares of a kind across replicas, and one more once one is released', async () => {
      const holdings = (await replicas(2)).map((s) => s.holdings('caps'));
      const taken = await Promise.all(
        Array.from({ length: 8 }, (_, i) => holdings[i % 2].acquire('subscription', 'c', 5)),
      );
      expect(taken.filter(Boolean)).toHaveLength(5);
      expect(await holdings[0].acquire('chatStream', 'c', 5)).toBeDefined();
      expect(await holdings[1].count('subscription', 'c')).toBe(5);
      taken.find(Boolean)!.release();
      await until(async () => (await holdings[1].count('subscription', 'c')) === 4);
      expect(await holdings[1].acquire('subscription', 'c', 5)).toBeDefined();
    });
  });

  describe('fan-out channel', () => {
    it('delivers a message published on one replica to the subscribers of every replica, once each', async () => {
      const channels = (await replicas(3)).map((s) => s.channel<{ service: string }>('health'));
      const received: Array<[number, string]> = [];
      const stops = await Promise.all(channels.map((c, i) => c.subscribe((m) => received.push([i, m.service]))));
      await channels[1].publish({ service: 'Exchange Online' });
      await until(() => received.length >= 3);
      expect(received.sort()).toEqual([
        [0, 'Exchange Online'],
        [1, 'Exchange Online'],
        [2, 'Exchange Online'],
      ]);
      stops.forEach((stop) => stop());
      await channels[0].publish({ service: 'Teams' });
      await sleep(100);
      expect(received).toHaveLength(3);
    });
  });
});

describe('client budgets across replicas', () => {
  it('refuses what 3 replicas spend together past the per-minute budget, telling when it fits, and refills continuously', async () => {
    let now = 10_000_000;
    const budgets = (await redisReplicas(3)).map((s) =>
      s.clientBudgets('cost', { perMinute: 60, perDay: 0, now: () => now }),
    );
    const verdicts = await Promise.all(
      Array.from({ length: 9 }, (_, i) => budgets[i % 3].spend('address:10.0.0.7', 10)),
    );
    expect(verdicts.filter((v) => v.ok)).toHaveLength(6);
    expect(
      verdicts.filter((v) => !v.ok).every((v) => !v.ok && v.limit === 'perMinute' && v.retryAfterMs === 10_000),
    ).toBe(true);
    now += 10_000;
    expect(await budgets[2].spend('address:10.0.0.7', 10)).toEqual({ ok: true });
  });

  it("writes corrections after the fact with the next spend, and counts a replica's outage spend once Redis is back", async () => {
    const now = 20_000_000;
    const [a, b] = (await redisReplicas(2)).map((s) =>
      s.clientBudgets('cost', { perMinute: 0, perDay: 100, now: () => now }),
    );
    expect(await a.spend('k', 80)).toEqual({ ok: true });
    a.adjust('k', -50);
    // b cannot see a's correction before it is written: a's next spend (or its timer, within a second) writes it.
    expect(await a.spend('k', 0)).toEqual({ ok: true });
    expect(await b.spend('k', 70)).toEqual({ ok: true });
    expect((await b.spend('k', 1)).ok).toBe(false);
  });
});

describe('shared holdings: a lease per share', () => {
  it("lets a dead replica's leases lapse within the TTL, and renews a live one's", async () => {
    let now = 30_000_000;
    const [a, b] = (await redisReplicas(2)).map((s) => s.holdings('caps', { ttlMs: 30_000, now: () => now }));
    expect(await a.acquire('subscription', 'c', 2)).toBeDefined();
    expect(await b.acquire('subscription', 'c', 2)).toBeDefined();
    expect(await b.acquire('subscription', 'c', 2)).toBeUndefined();
    now += 20_000;
    // b renews (alive), a does not (dead): 10 s past a's lease end its share is free again.
    await (b as unknown as { renew(): Promise<void> }).renew();
    now += 20_000;
    expect(await b.count('subscription', 'c')).toBe(1);
    expect(await b.acquire('subscription', 'c', 2)).toBeDefined();
  });
});

describe('daily counters retention', () => {
  it('keeps the newest keepDays days that saw additions in process', async () => {
    const counters = new MemoryState().dailyCounters('usage', { keepDays: 2 });
    for (const day of ['2025-03-01', '2025-03-02', '2025-03-03']) await counters.add(day, 'glm/m', { total: 1 });
    expect(await counters.read('2025-03-01')).toEqual(new Map());
    expect(await counters.read('2025-03-03')).toEqual(new Map([['glm/m', { total: 1 }]]));
  });

  it('lets Redis expire a day keepDays after its last addition', async () => {
    const [state] = await redisReplicas(1);
    await state.dailyCounters('usage', { keepDays: 2 }).add('2025-03-01', 'glm/m', { total: 1 });
    const ttl = await (state as RedisState).connection.client.pttl('counters:usage:2025-03-01');
    expect(ttl).toBeGreaterThan(2 * DAY - 60_000);
    expect(ttl).toBeLessThanOrEqual(2 * DAY);
  });
});

describe('redis outage', () => {
  it('falls back to the quota slice and the rate-limit slots it holds without hanging, and restores the whole day once Redis is back, even empty', async () => {
    const [a, b] = await redisReplicas(2);
    const quota = a.dailyQuota('omdb', { limit: 10 });
    // 40 a minute for 2 replicas: a share of 20, leased 5 slots at a time.
    const limiter = a.rateLimiter('deepseek', { perMinute: 40, maxWaitMs: 0 });
    const cache = a.cache<{ n: number }>('omdb', { max: 10, ttlMs: 60_000 });
    expect((await limiter.acquire()).ok).toBe(true);
    // The first reservation claims a slice of 2 (half of the 10 free, divided by 2 replicas, is 2.5): 1 held ahead.
    expect(await quota.reserve()).toEqual({ granted: true, remaining: 9 });
    await cache.set('kept', { n: 1 });
    expect(a.status()).toEqual({ store: 'redis', status: 'ready' });

    await redis.stop();
    // The quota spends only the unit it holds, the limiter the 4 leased slots it holds; the cache answers from this replica.
    const reservations = await Promise.all(Array.from({ length: 6 }, () => quota.reserve()));
    expect(reservations.filter((r) => r.granted)).toHaveLength(1);
    expect(reservations.filter((r) => !r.granted).every((r) => r.remaining === 0)).toBe(true);
    const verdicts = await Promise.all(Array.from({ length: 6 }, () => limiter.acquire()));
    expect(verdicts.filter((v) => v.ok)).toHaveLength(4);
    expect(await cache.get('kept')).toEqual({ n: 1 });
    expect(await cache.get('other')).toBeUndefined();
    await cache.set('during', { n: 2 });
    expect(a.status().status).toBe('down');

    await redis.start();
    await until(() => a.status().status === 'ready' && b.status().status === 'ready', 15_000);
    // The restarted Redis is empty: the replica puts back its claim of 2 (both spent), then claims a new slice of 2
    // (half of the 8 free, divided by 2) for the next reservation.
    expect(await quota.reserve()).toEqual({ granted: true, remaining: 7 });
    expect(await b.dailyQuota('omdb', { limit: 10 }).remaining()).toBe(6);
    // The limiter writes back its 5 slots of the minute with its next claim, which leases 5 more: 10 of 40 taken.
    expect((await limiter.acquire()).ok).toBe(true);
    expect(await (a as RedisState).connection.client.zcard('ratelimit:deepseek')).toBe(10);
  });

  it('gets the day’s quota count and the minute’s rate-limit slots back from the replicas when Redis restarts empty', async () => {
    const [a, b] = await redisReplicas(2);
    const quotas = [a, b].map((s) => s.dailyQuota('omdb', { limit: 10 }));
    const limiters = [a, b].map((s) => s.rateLimiter('deepseek', { perMinute: 6, maxWaitMs: 0 }));
    for (const [i, n] of [
      [0, 3],
      [1, 2],
    ])
      for (let k = 0; k < n; k++) expect((await quotas[i].reserve()).granted).toBe(true);
    for (const [i, n] of [
      [0, 2],
      [1, 1],
    ])
      for (let k = 0; k < n; k++) expect((await limiters[i].acquire()).ok).toBe(true);

    // Slices: a holds 4 (claimed 2, then 2 of the 8 free), b 2 (1 of the 6 free, then 1 of the 5): 6 of 10.
    const books = async () =>
      (a as RedisState).connection.client.hgetall(`quota:omdb:${new Date().toISOString().slice(0, 10)}`);
    expect(Object.values(await books()).sort()).toEqual(['2', '4']);

    await redis.stop();
    await redis.start();
    await until(() => a.status().status === 'ready' && b.status().status === 'ready', 15_000);
    // No command failed on the way, yet each replica puts its claim back as it reconnects.
    for (let i = 0; i < 100 && Object.keys(await books()).length < 2; i++) await sleep(20);
    expect(Object.values(await books()).sort()).toEqual(['2', '4']);
    expect(await quotas[1].remaining()).toBe(4);
    // a still holds one unit it has not spent: it takes that one, claiming nothing more.
    expect((await quotas[0].reserve()).granted).toBe(true);
    expect(Object.values(await books()).sort()).toEqual(['2', '4']);
    expect((await limiters[0].acquire()).ok).toBe(true);
    expect((await limiters[1].acquire()).ok).toBe(true);
    expect((await limiters[0].acquire()).ok).toBe(true);
    expect(await limiters[1].acquire()).toMatchObject({ ok: false });
  });

  it('keeps daily counts made while Redis is down and adds them once it is back; limits count them once per replica', async () => {
    const [a, b] = await redisReplicas(2);
    const [ca, cb] = [a, b].map((s) => s.dailyCounters('usage'));
    await cb.add('2025-03-01', 'glm/m', { total: 100 });
    expect(await ca.read('2025-03-01')).toEqual(new Map([['glm/m', { total: 100 }]]));

    await redis.stop();
    await ca.add('2025-03-01', 'glm/m', { total: 10 });
    await ca.add('2025-03-01', 'ark/m', { total: 1 });
    // The last counts read plus this replica's own; for a limit, its own as if both replicas had spent them.
    expect(await ca.read('2025-03-01')).toEqual(
      new Map([
        ['glm/m', { total: 110 }],
        ['ark/m', { total: 1 }],
      ]),
    );
    expect(await ca.read('2025-03-01', { forLimit: true })).toEqual(
      new Map([
        ['glm/m', { total: 120 }],
        ['ark/m', { total: 2 }],
      ]),
    );

    await redis.start();
    await until(() => a.status().status === 'ready', 15_000);
    // The restarted Redis is empty: it holds what a counted during the outage, handed over by a's next command.
    await ca.add('2025-03-01', 'glm/m', { total: 1 });
    expect(await cb.read('2025-03-01')).toEqual(
      new Map([
        ['glm/m', { total: 11 }],
        ['ark/m', { total: 1 }],
      ]),
    );
  });
});

describe('redis not there at start-up', () => {
  it('starts at once, refusing quota it holds no slice of, and uses Redis once it comes up', async () => {
    const late = await startRedis();
    await late.stop();
    try {
      const state = await createSharedState({
        redis: { url: late.url, keyPrefix: `test:${randomUUID()}:`, commandTimeoutMs: 500 },
        replicas: 2,
        metrics: new GatewayMetrics(),
        log: pino({ level: 'silent' }),
      });
      opened.push(state);
      expect(state.status()).toEqual({ store: 'redis', status: 'down' });
      const quota = state.dailyQuota('omdb', { limit: 10 });
      // It holds no slice of the quota and cannot know what other replicas spent: refused, nothing is sent.
      expect(await quota.reserve()).toEqual({ granted: false, remaining: 0 });
      await late.start();
      await until(() => state.status().status === 'ready', 15_000);
      // A slice of 2 (half of the 10 free, divided by 2 replicas), one of it spent.
      expect(await quota.reserve()).toEqual({ granted: true, remaining: 9 });
    } finally {
      await late.close();
    }
  });
});

/** Polls until `check` holds, failing after `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(20);
  }
}
