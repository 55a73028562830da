import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/upstreams/chat/rateLimit.js';

describe('RateLimiter', () => {
  it('grants perMinute requests in any 60 s, then refuses with the time until the oldest leaves the window', async () => {
    let now = 1_000_000;
    const limiter = new RateLimiter({ perMinute: 2, maxWaitMs: 0, now: () => now });
    expect(await limiter.acquire()).toEqual({ ok: true });
    now += 10_000;
    expect(await limiter.acquire()).toEqual({ ok: true });
    expect(await limiter.acquire()).toEqual({ ok: false, retryAfterMs: 50_000 });
    now += 50_000;
    expect(await limiter.acquire()).toEqual({ ok: true });
    expect(await limiter.acquire()).toEqual({ ok: false, retryAfterMs: 10_000 });
  });

  it('lets a request wait in line when its slot frees within maxWaitMs, and counts the waiting one', async () => {
    let now = 0;
    const limiter = new RateLimiter({ perMinute: 1, maxWaitMs: 60_000, now: () => now });
    await limiter.acquire();
    now = 59_990;
    // Its slot frees in 10 ms: it waits instead of being refused; the one after it would wait 60 s more.
    const waiting = limiter.acquire();
    expect(await limiter.acquire()).toEqual({ ok: false, retryAfterMs: 60_010 });
    expect(await waiting).toEqual({ ok: true });
  });

  it('gives the slot back when a waiting caller goes away', async () => {
    let now = 0;
    const limiter = new RateLimiter({ perMinute: 1, maxWaitMs: 60_000, now: () => now });
    await limiter.acquire();
    now = 30_000;
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error('client left'));
    await expect(waiting).rejects.toThrow('client left');
    now = 60_000;
    expect(await limiter.acquire()).toEqual({ ok: true });
  });
});
