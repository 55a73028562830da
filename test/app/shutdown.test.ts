import { describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { spawnGateway } from '../support/process.js';

describe('graceful shutdown', () => {
  it('on SIGTERM ends a subscription that outlives SHUTDOWN_GRACE_MS with `complete`, then closes with 1001 and exits 0', async () => {
    const p = spawnGateway({ SHUTDOWN_GRACE_MS: '500' });
    const origin = await p.origin;
    const ws = new WebSocket(`${origin.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    const ticks: unknown[] = [];
    const types: string[] = [];
    await new Promise<void>((resolve) => {
      ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init' })));
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as { type: string };
        types.push(msg.type);
        if (msg.type === 'connection_ack') {
          ws.send(
            JSON.stringify({
              id: '1',
              type: 'subscribe',
              payload: { query: 'subscription { serverTime(intervalMs: 20, count: 10000) }' },
            }),
          );
        }
        if (msg.type === 'next') {
          ticks.push(msg);
          if (ticks.length === 2) resolve();
        }
      });
    });
    p.child.kill('SIGTERM');
    expect(await closed).toBe(1001);
    expect(types.at(-1)).toBe('complete');
    expect(await p.exited).toBe(0);
    await expect(fetch(`${origin}/healthz`)).rejects.toThrow();
    expect(p.stdout.some((l) => l.includes('received SIGTERM, draining'))).toBe(true);
    expect(p.stdout.some((l) => l.includes('gateway stopped'))).toBe(true);
  });

  it('lets an in-flight HTTP operation finish before exiting, and refuses new connections meanwhile', async () => {
    const p = spawnGateway({});
    const origin = await p.origin;
    const post = (query: string) =>
      fetch(`${origin}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
    const upstreams = (await (await post('{ upstreams { id baseUrl } }')).json()) as {
      data: { upstreams: Array<{ id: string; baseUrl: string }> };
    };
    const sandbox = new URL(upstreams.data.upstreams.find((u) => u.id === 'omdb')!.baseUrl).origin;
    // The next OMDb request takes two seconds: SIGTERM goes once the sandbox has it, so the operation is in flight.
    await fetch(`${sandbox}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ upstream: 'omdb', delayMs: 2000 }),
    });
    const inFlight = post('{ title(imdbId: "tt0078346") { title year } }');
    const omdbRequests = async () =>
      ((await (await fetch(`${sandbox}/_sandbox/requests`)).json()) as Array<{ upstream: string }>).filter(
        (r) => r.upstream === 'omdb',
      ).length;
    await vi.waitFor(async () => expect(await omdbRequests()).toBe(1), { timeout: 10_000, interval: 20 });
    p.child.kill('SIGTERM');
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data.title).toEqual({ title: 'Superman', year: '1978' });
    expect(await p.exited).toBe(0);
    await expect(post('{ upstreams { id } }')).rejects.toThrow();
  });
});
