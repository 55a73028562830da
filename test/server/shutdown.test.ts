import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { spawnGateway } from '../support/process.js';

describe('graceful shutdown', () => {
  it('on SIGTERM closes live subscriptions with 1001, stops accepting and exits 0', async () => {
    const p = spawnGateway({});
    const origin = await p.origin;
    const ws = new WebSocket(`${origin.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    const ticks: unknown[] = [];
    await new Promise<void>((resolve) => {
      ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init' })));
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as { type: string };
        if (msg.type === 'connection_ack') {
          ws.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: 'subscription { serverTime(intervalMs: 20, count: 10000) }' } }));
        }
        if (msg.type === 'next') {
          ticks.push(msg);
          if (ticks.length === 2) resolve();
        }
      });
    });
    p.child.kill('SIGTERM');
    expect(await closed).toBe(1001);
    expect(await p.exited).toBe(0);
    await expect(fetch(`${origin}/healthz`)).rejects.toThrow();
    expect(p.stdout.some((l) => l.includes('received SIGTERM, draining'))).toBe(true);
    expect(p.stdout.some((l) => l.includes('gateway stopped'))).toBe(true);
  });
});
