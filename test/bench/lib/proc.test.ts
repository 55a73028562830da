import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../src/bench/lib/proc.js';

describe('freePort', () => {
  it('draws ports a child can bind from below the ephemeral range, where no client socket takes its local port', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
    }
    // Drawn at random, not counted up from one place: twenty draws are not all one port.
    expect(new Set(ports).size).toBeGreaterThan(1);
    const srv = createServer();
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(ports[0], '127.0.0.1', resolve);
    });
    await new Promise((r) => srv.close(r));
  });

  it('skips a port something already listens on, and draws again', async () => {
    const taken = createServer();
    const held = await freePort();
    await new Promise<void>((resolve) => taken.listen(held, '127.0.0.1', resolve));
    try {
      const other = await freePort();
      const draws = [held, held, other];
      expect(await freePort(() => draws.shift()!)).toBe(other);
      expect(draws).toEqual([]);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});
