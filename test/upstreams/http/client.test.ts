import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { splitBase, splitUrl, UpstreamHttp } from '../../../src/upstreams/http/client.js';
import { UpstreamTally } from '../../../src/upstreams/http/tally.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, parseRetryAfter } from '../../../src/upstreams/http/retry.js';

/** A scripted upstream: each request takes the next planned answer. */
let plan: Array<{
  status: number;
  headers?: Record<string, string>;
  body?: string;
  hang?: boolean;
  reset?: boolean;
  /** The headers and the first part of the body, then nothing. */
  stall?: boolean;
}> = [];
const seen: Array<{ method: string; url: string; at: number }> = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, at: Date.now() });
    const next = plan.shift() ?? { status: 200, body: 'ok' };
    if (next.reset) return req.socket.destroy();
    if (next.hang) return;
    if (next.stall) {
      res.writeHead(next.status, { 'content-length': '100' });
      return void res.write('{"partial":');
    }
    res.writeHead(next.status, next.headers);
    res.end(next.body ?? '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  plan = [];
  seen.length = 0;
});

const make = (opts: Partial<ConstructorParameters<typeof UpstreamHttp>[0]> = {}) =>
  new UpstreamHttp({
    upstream: 'test',
    metrics: new GatewayMetrics(),
    log: pino({ level: 'silent' }),
    redact: (s) => s,
    retry: { baseDelayMs: 5 },
    ...opts,
  });

describe('shared upstream HTTP layer', () => {
  it('retries 429 twice after Retry-After and succeeds on the third attempt', async () => {
    plan = [
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 200, body: 'done' },
    ];
    const http = make();
    const tally = new UpstreamTally();
    const told: string[] = [];
    tally.onSent = (upstream) => told.push(upstream);
    const res = await http.send({ method: 'GET', url: `${base}/x`, tally });
    expect(res).toMatchObject({ status: 200, text: 'done', attempts: 3 });
    expect(seen).toHaveLength(3);
    // Every attempt is a request the operation pays for, each told as it is sent.
    expect(tally.total).toBe(3);
    expect(told).toEqual(['test', 'test', 'test']);
    await http.close();
  });

  it('waits as long as Retry-After says', async () => {
    plan = [{ status: 503, headers: { 'retry-after': '1' } }, { status: 200 }];
    const http = make();
    await http.send({ tally: undefined, method: 'GET', url: `${base}/x` });
    expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(950);
    await http.close();
  });

  it('retries a write only on 429, never on 503', async () => {
    const http = make();
    plan = [{ status: 503 }, { status: 200 }];
    expect((await http.send({ tally: undefined, method: 'POST', url: `${base}/w`, body: '{}' })).status).toBe(503);
    expect(seen).toHaveLength(1);
    plan = [{ status: 429, headers: { 'retry-after': '0' } }, { status: 201 }];
    expect((await http.send({ tally: undefined, method: 'PATCH', url: `${base}/w`, body: '{}' })).status).toBe(201);
    expect(seen).toHaveLength(3);
    await http.close();
  });

  it('gives up after maxAttempts and returns the last answer', async () => {
    plan = Array.from({ length: 6 }, () => ({ status: 429, headers: { 'retry-after': '0' } }));
    const http = make({ retry: { maxAttempts: 3, baseDelayMs: 1 } });
    const res = await http.send({ tally: undefined, method: 'GET', url: `${base}/x` });
    expect(res.status).toBe(429);
    expect(seen).toHaveLength(3);
    await http.close();
  });

  it('stops retrying when the next wait would cross the time budget', async () => {
    plan = [{ status: 429, headers: { 'retry-after': '120' } }, { status: 200 }];
    const http = make({ retry: { budgetMs: 10_000 } });
    const res = await http.send({ tally: undefined, method: 'GET', url: `${base}/x` });
    expect(res.status).toBe(429);
    expect(seen).toHaveLength(1);
    await http.close();
  });

  it('maps a reset connection to UPSTREAM_ERROR after retrying idempotent requests', async () => {
    plan = [
      { status: 0, reset: true },
      { status: 0, reset: true },
      { status: 0, reset: true },
      { status: 0, reset: true },
    ];
    const http = make();
    await expect(http.send({ tally: undefined, method: 'GET', url: `${base}/x` })).rejects.toMatchObject({
      extensions: { code: 'UPSTREAM_ERROR', upstream: 'test' },
      message: expect.stringMatching(/after 4 attempts/),
    });
    expect(seen).toHaveLength(4);
    await http.close();
  });

  it('maps a missing answer to UPSTREAM_TIMEOUT', async () => {
    plan = [{ status: 0, hang: true }];
    const http = make({ headersTimeoutMs: 200, retry: { maxAttempts: 1 } });
    await expect(http.send({ tally: undefined, method: 'GET', url: `${base}/x` })).rejects.toMatchObject({
      extensions: { code: 'UPSTREAM_TIMEOUT' },
    });
    await http.close();
  });

  it('aborts at once, waits included, when the caller goes away', async () => {
    plan = [{ status: 429, headers: { 'retry-after': '30' } }];
    const controller = new AbortController();
    // The caller leaves once the 30 s wait has begun (its log line), not after a fixed time: under load the 429 can
    // take longer than any fixed time to come back, and an abort before the request went out tests something else.
    const log = pino(
      { level: 'info' },
      {
        write: (line: string) => {
          if (line.includes('retrying upstream request')) controller.abort(new Error('client left'));
        },
      },
    );
    const http = make({ log });
    const started = Date.now();
    const pending = http.send({ tally: undefined, method: 'GET', url: `${base}/x`, signal: controller.signal });
    await expect(pending).rejects.toThrow('client left');
    expect(seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(10_000);
    await http.close();
  });

  it('sends nothing when the caller has gone before the request went out', async () => {
    const controller = new AbortController();
    const http = make();
    const pending = http.send({ tally: undefined, method: 'GET', url: `${base}/x`, signal: controller.signal });
    controller.abort(new Error('client left'));
    await expect(pending).rejects.toThrow('client left');
    // Long enough for a request already written to reach this server's handler.
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toHaveLength(0);
    await http.close();
  });

  it('opens the circuit after consecutive failures, answers at once while open, and closes after a good probe', async () => {
    // A cooldown far longer than two loopback calls take, even on a loaded machine: the third call must meet it open.
    const http = make({ breaker: { threshold: 2, cooldownMs: 1000 }, retry: { maxAttempts: 1 } });
    plan = [{ status: 503 }, { status: 500 }];
    expect((await http.send({ tally: undefined, method: 'GET', url: `${base}/a` })).status).toBe(503);
    expect((await http.send({ tally: undefined, method: 'GET', url: `${base}/a` })).status).toBe(500);
    expect(http.breaker.state).toBe('open');
    await expect(http.send({ tally: undefined, method: 'GET', url: `${base}/a` })).rejects.toMatchObject({
      extensions: { code: 'UPSTREAM_ERROR', upstreamCode: 'CIRCUIT_OPEN', upstream: 'test' },
    });
    expect(seen).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 1050));
    plan = [{ status: 200, body: 'back' }];
    expect((await http.send({ tally: undefined, method: 'GET', url: `${base}/a` })).text).toBe('back');
    expect(http.breaker.state).toBe('closed');
    expect(seen).toHaveLength(3);
    await http.close();
  });

  it('reopens the circuit when the half-open probe fails', async () => {
    const http = make({ breaker: { threshold: 1, cooldownMs: 100 }, retry: { maxAttempts: 1 } });
    plan = [{ status: 502 }];
    await http.send({ tally: undefined, method: 'GET', url: `${base}/a` });
    await new Promise((r) => setTimeout(r, 150));
    plan = [{ status: 503 }];
    await http.send({ tally: undefined, method: 'GET', url: `${base}/a` });
    expect(http.breaker.state).toBe('open');
    expect(seen).toHaveLength(2);
    await http.close();
  });

  it('does not count 4xx answers or callers who left as upstream failures', async () => {
    const http = make({ breaker: { threshold: 1, cooldownMs: 10_000 }, retry: { maxAttempts: 1 } });
    plan = [{ status: 404 }, { status: 400 }];
    await http.send({ tally: undefined, method: 'GET', url: `${base}/a` });
    await http.send({ tally: undefined, method: 'GET', url: `${base}/a` });
    plan = [{ status: 0, hang: true }];
    const controller = new AbortController();
    const pending = http.send({ tally: undefined, method: 'GET', url: `${base}/a`, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('left')), 50);
    await expect(pending).rejects.toThrow('left');
    expect(http.breaker.state).toBe('closed');
    await http.close();
  });

  it('bounds a whole buffered request, retries included, by the total timeout', async () => {
    plan = [{ status: 503, headers: { 'retry-after': '5' } }, { status: 200 }];
    const http = make({ totalTimeoutMs: 300 });
    await expect(http.send({ tally: undefined, method: 'GET', url: `${base}/x` })).rejects.toMatchObject({
      extensions: { code: 'UPSTREAM_TIMEOUT' },
    });
    expect(seen).toHaveLength(1);
    await http.close();
  });

  it('sends to the origin and path a client split already, and splits the URL itself otherwise', async () => {
    const http = make();
    const split = splitUrl(`${base}/graph/v1.0`);
    await http.send({
      tally: undefined,
      method: 'GET',
      url: 'http://shown.only/in/logs',
      ...split,
      path: `${split.path}/me?$select=id`,
    });
    await http.send({ tally: undefined, method: 'GET', url: `${base}/own/split?a=1#fragment` });
    expect(seen.map((r) => r.url)).toEqual(['/graph/v1.0/me?$select=id', '/own/split?a=1']);
    // A base that WHATWG parsing would rewrite is not split once: its requests split their whole URL.
    expect(splitBase(`${base}/graph/v1.0`)).toEqual(split);
    expect(splitBase('https://user:pw@example.com/v1.0')).toBeUndefined();
    expect(splitBase('https://Example.com/v1.0#x')).toBeUndefined();
    await http.close();
  });

  it('times out each of many calls in flight at its own deadline, aborts its request, and forgets calls that answered', async () => {
    const http = make({ totalTimeoutMs: 250 });
    plan = [{ status: 200, body: 'fast' }, ...Array.from({ length: 5 }, () => ({ status: 0, hang: true }))];
    const closed: string[] = [];
    const onRequest = (req: IncomingMessage) => req.socket.once('close', () => closed.push(req.url!));
    server.on('request', onRequest);
    expect((await http.send({ tally: undefined, method: 'GET', url: `${base}/fast` })).text).toBe('fast');
    expect(http.deadlines.size).toBe(0);
    const order: string[] = [];
    const early = Array.from({ length: 4 }, (_, i) =>
      http.send({ tally: undefined, method: 'GET', url: `${base}/early${i}` }).catch((error: unknown) => {
        order.push('early');
        return error;
      }),
    );
    await new Promise((r) => setTimeout(r, 120));
    const late = http.send({ tally: undefined, method: 'GET', url: `${base}/late` }).catch((error: unknown) => {
      order.push('late');
      return error;
    });
    for (const error of [...(await Promise.all(early)), await late])
      expect(error).toMatchObject({ extensions: { code: 'UPSTREAM_TIMEOUT' } });
    // The later call waited for its own deadline, not the first ones'.
    expect(order).toEqual(['early', 'early', 'early', 'early', 'late']);
    expect(http.deadlines.size).toBe(0);
    // Each request was aborted: its connection closed, so the upstream holds none of them open.
    const hung = ['/early0', '/early1', '/early2', '/early3', '/late'];
    for (let i = 0; i < 100 && !hung.every((u) => closed.includes(u)); i++) await new Promise((r) => setTimeout(r, 10));
    server.off('request', onRequest);
    expect(closed).toEqual(expect.arrayContaining(hung));
    await http.close();
  });

  it('ends a stalled body by the total timeout when it is the shortest, and by the pool body timeout when that one is', async () => {
    // The total timeout no longer than the pool's: undici is asked for no timer of its own, the total ends the call.
    plan = [{ status: 200, stall: true }];
    const total = make({ totalTimeoutMs: 200 });
    await expect(total.send({ tally: undefined, method: 'GET', url: `${base}/stalled` })).rejects.toMatchObject({
      extensions: { code: 'UPSTREAM_TIMEOUT' },
      message: expect.stringMatching(/within 200 ms/),
    });
    await total.close();
    // A shorter body timeout still applies to a buffered call: it ends the call long before the total would.
    plan = [{ status: 200, stall: true }];
    const body = make({ totalTimeoutMs: 20_000, bodyTimeoutMs: 150, retry: { maxAttempts: 1 } });
    const error = await body.send({ tally: undefined, method: 'GET', url: `${base}/stalled` }).catch((e: unknown) => e);
    expect(error).toMatchObject({ extensions: { upstream: 'test' } });
    expect((error as Error).message).not.toMatch(/within 20000 ms/);
    await body.close();
  });

  it('still times out a call in flight while its client closes, so the close does not wait on a hung upstream', async () => {
    const http = make({ totalTimeoutMs: 200 });
    plan = [{ status: 0, hang: true }];
    const pending = http.send({ tally: undefined, method: 'GET', url: `${base}/hung` });
    await new Promise((r) => setTimeout(r, 30));
    const closed = http.close();
    await expect(pending).rejects.toMatchObject({ extensions: { code: 'UPSTREAM_TIMEOUT' } });
    await closed;
  });

  it('answers at once when the caller says a retryable error body is final', async () => {
    plan = [{ status: 429, headers: { 'retry-after': '0' }, body: '{"error":{"code":"1113"}}' }, { status: 200 }];
    const http = make();
    const res = await http.send({
      tally: undefined,
      method: 'POST',
      url: `${base}/x`,
      body: '{}',
      isFinal: (status, body) => status === 429 && body.includes('1113'),
    });
    expect(res).toMatchObject({ status: 429, text: '{"error":{"code":"1113"}}', attempts: 1 });
    plan = [
      { status: 429, headers: { 'retry-after': '0' }, body: '{"error":{"code":"1302"}}' },
      { status: 200, body: 'ok' },
    ];
    const again = await http.send({
      tally: undefined,
      method: 'POST',
      url: `${base}/x`,
      body: '{}',
      isFinal: (status, body) => status === 429 && body.includes('1113'),
    });
    expect(again).toMatchObject({ status: 200, attempts: 2 });
    await http.close();
  });

  it('reads Retry-After as seconds or an HTTP date, and backs off exponentially with jitter otherwise', () => {
    expect(parseRetryAfter('5')).toBe(5);
    expect(parseRetryAfter(new Date(Date.now() + 3000).toUTCString())).toBeGreaterThan(1);
    expect(parseRetryAfter('soon')).toBeUndefined();
    const p = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100 };
    expect(backoffDelay(p, 1, undefined, () => 0)).toBe(50);
    expect(backoffDelay(p, 3, undefined, () => 1)).toBe(400);
    expect(backoffDelay(p, 1, 2)).toBe(2000);
    expect(backoffDelay({ ...p, maxDelayMs: 1000 }, 1, 500)).toBe(1000);
  });
});

describe('splitUrl: origin and path without parsing a WHATWG URL per request', () => {
  it.each([
    ['http://127.0.0.1:4010/omdb/?apikey=k&i=tt0133093', 'http://127.0.0.1:4010', '/omdb/?apikey=k&i=tt0133093'],
    [
      'https://graph.microsoft.com/v1.0/admin/serviceAnnouncement/healthOverviews/Exchange?$select=id',
      'https://graph.microsoft.com',
      '/v1.0/admin/serviceAnnouncement/healthOverviews/Exchange?$select=id',
    ],
    ['https://example.com/a#fragment', 'https://example.com', '/a'],
    ['https://example.com', 'https://example.com', '/'],
    ['https://user:pw@example.com/a', 'https://example.com', '/a'],
  ])('%s', (url, origin, path) => {
    expect(splitUrl(url)).toEqual({ origin, path });
    // As WHATWG URL parsing gives it, for the URLs the clients build.
    const parsed = new URL(url);
    expect(splitUrl(url)).toEqual({ origin: parsed.origin, path: parsed.pathname + parsed.search });
  });
});
