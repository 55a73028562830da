import { Readable } from 'node:stream';
import { pino } from 'pino';
import { Agent } from 'undici';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { counted } from '../../../src/upstreams/http/counted.js';
import { retried, type RetryRequest } from '../../../src/upstreams/http/retried.js';
import { DEFAULT_RETRY_POLICY } from '../../../src/upstreams/http/retry.js';
import { UpstreamTally } from '../../../src/upstreams/http/tally.js';
import { useLoopback } from './interceptorServer.js';

const server = useLoopback();
let up: ReturnType<typeof server>;
beforeEach(() => (up = server()));

const agent = () =>
  new Agent().compose(
    counted('test'),
    retried({ upstream: 'test', metrics: new GatewayMetrics(), log: pino({ level: 'silent' }) }),
  );
const retry = (over: Partial<RetryRequest> = {}): RetryRequest => ({
  policy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 5 },
  attempts: 0,
  holdLimit: 1024,
  ...over,
});
const send = (a: ReturnType<typeof agent>, r: RetryRequest, more: Record<string, unknown> = {}) =>
  a.request({
    origin: up.origin,
    path: '/x',
    method: 'GET',
    url: `${up.origin}/x`,
    attempt: 1,
    retry: r,
    ...more,
  } as never);

describe('retried interceptor', () => {
  it('hands on only the answer no retry follows, each attempt counted as it is sent', async () => {
    up.plan.push(
      { status: 429, headers: { 'retry-after': '0' }, body: 'slow down' },
      { status: 503 },
      { status: 200, body: 'done' },
    );
    const a = agent();
    const tally = new UpstreamTally();
    const r = retry();
    const res = await send(a, r, { tally });
    expect(res.statusCode).toBe(200);
    expect(await res.body.text()).toBe('done');
    expect([r.attempts, tally.total, up.seen.length]).toEqual([3, 3, 3]);
    await a.close();
  });

  it('returns the last answer when the attempts are spent, and a Retry-After past the budget is not waited for', async () => {
    const a = agent();
    up.plan.push({ status: 503 }, { status: 503 }, { status: 503 });
    const spent = retry({ policy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1, maxAttempts: 2 } });
    expect((await send(a, spent)).statusCode).toBe(503);
    expect(spent.attempts).toBe(2);
    up.plan.length = 0;
    up.plan.push({ status: 429, headers: { 'retry-after': '120' } });
    const started = Date.now();
    const budget = retry({ policy: { ...DEFAULT_RETRY_POLICY, budgetMs: 1_000 } });
    expect((await send(a, budget)).statusCode).toBe(429);
    expect(budget.attempts).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
    await a.close();
  });

  it('asks isFinal with the held body and hands that same answer on when it is final', async () => {
    up.plan.push({ status: 429, body: '{"error":"quota"}' });
    const a = agent();
    const asked: string[] = [];
    const r = retry({
      isFinal: async (status, _headers, chunks) => (asked.push(`${status} ${Buffer.concat(chunks)}`), true),
    });
    const res = await send(a, r);
    expect([res.statusCode, await res.body.text(), r.attempts]).toEqual([429, '{"error":"quota"}', 1]);
    expect(asked).toEqual(['429 {"error":"quota"}']);
    await a.close();
  });

  it('holds at most holdLimit bytes of an error body for isFinal: a longer one is cut, not judged, and retried', async () => {
    up.plan.push(
      { status: 429, headers: { 'retry-after': '0' }, body: 'x'.repeat(64 * 1024) },
      { status: 200, body: 'done' },
    );
    const a = agent();
    let asked = 0;
    const r = retry({ isFinal: async () => (asked++, true) });
    const res = await send(a, r);
    expect([res.statusCode, await res.body.text(), r.attempts, asked]).toEqual([200, 'done', 2, 0]);
    await a.close();
  });

  it('retries writes only on 429, and reopens a streamed body for each attempt', async () => {
    const a = agent();
    up.plan.push({ status: 503 });
    expect((await send(a, retry(), { method: 'POST', body: '{}' })).statusCode).toBe(503);
    expect(up.seen).toHaveLength(1);
    up.plan.push({ status: 429, headers: { 'retry-after': '0' } }, { status: 201 });
    let opened = 0;
    const r = retry({ openBody: () => Readable.from([Buffer.from(`part ${++opened}`)]) });
    expect((await send(a, r, { method: 'POST' })).statusCode).toBe(201);
    expect(up.seen.slice(1).map((s) => s.body)).toEqual(['part 1', 'part 2']);
    await a.close();
  });

  it('retries a GET whose connection was reset, and gives the last error when the attempts are spent', async () => {
    const a = agent();
    const r = retry({ policy: { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1, maxAttempts: 3 } });
    await expect(
      a.request({ origin: up.origin, path: '/reset', method: 'GET', url: '', attempt: 1, retry: r } as never),
    ).rejects.toThrow();
    expect([r.attempts, up.seen.length]).toEqual([3, 3]);
    await a.close();
  });

  it('ends at once when the caller aborts during a wait, without another attempt', async () => {
    up.plan.push({ status: 503, headers: { 'retry-after': '30' } });
    const a = agent();
    const controller = new AbortController();
    const pending = send(a, retry(), { signal: controller.signal });
    // Abort once the first attempt was answered (the wait has begun), not after a guessed time.
    await vi.waitFor(() => expect(up.seen).toHaveLength(1), { timeout: 10_000 });
    controller.abort(new Error('caller left'));
    const started = Date.now();
    await expect(pending).rejects.toThrow('caller left');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(up.seen).toHaveLength(1);
    await a.close();
  });
});
