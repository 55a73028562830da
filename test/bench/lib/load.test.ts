import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSteady, STEADY_FALL, STEADY_SLICES, warmUp, warmUps } from '../../../src/bench/lib/load.js';

// The benchmark's warm-up: a target is measured once V8 has tiered its paths up, not while it still does.
describe('warmUp', () => {
  it('is steady only once a window of slices is less than STEADY_FALL cheaper than the window before', () => {
    expect(STEADY_SLICES).toBe(3);
    expect(STEADY_FALL).toBe(0.03);
    // Too few slices for two windows.
    expect(isSteady([200, 200, 200, 200, 200])).toBe(false);
    // Flat, with noise: steady after two windows.
    expect(isSteady([200, 205, 198, 201, 199, 203])).toBe(true);
    // Tiering up (the gateway's first seconds): 21 % cheaper window over window.
    expect(isSteady([300, 280, 260, 240, 220, 200])).toBe(false);
    // Still falling by 8 % at the end of a longer run: not steady; then flat: steady.
    expect(isSteady([400, 330, 200, 190, 180, 176, 175, 174])).toBe(false);
    expect(isSteady([400, 330, 200, 190, 180, 176, 175, 174, 175, 176, 174])).toBe(true);
    // Dearer than before counts as not falling.
    expect(isSteady([200, 200, 200, 230, 210, 220])).toBe(true);
    // Windows compare their medians: one slice read high (another process ran) neither hides a fall nor fakes one.
    expect(isSteady([300, 290, 280, 250, 900, 240])).toBe(false);
    expect(isSteady([200, 900, 200, 201, 199, 202])).toBe(true);
    // Exactly at the line: 3 % cheaper is still falling.
    expect(isSteady([100, 100, 100, 97, 96.9, 96.9])).toBe(false);
  });

  describe('against a server on loopback', () => {
    let url = '';
    const server = createServer((_req, res) => res.end('ok'));
    beforeAll(async () => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('runs at least two windows of slices and never past its cap', async () => {
      const before = { ...warmUps };
      let calls = 0;
      const spent = await warmUp({ url, pids: [process.pid] }, { sliceSeconds: 0.05, maxSeconds: 0.6 }, 2, async () => {
        calls++;
      });
      // Before each slice (the benchmark forgets the sandbox's record there).
      expect(calls).toBe(Math.round(spent / 0.05));
      expect(spent).toBeGreaterThanOrEqual(2 * STEADY_SLICES * 0.05 - 1e-9);
      expect(spent).toBeLessThanOrEqual(0.6 + 1e-9);
      expect(warmUps.allowed - before.allowed).toBeCloseTo(0.6);
      expect(warmUps.spent - before.spent).toBeCloseTo(spent);
    });

    it('is one plain run without CPU figures, or when its cap is shorter than two windows', async () => {
      let calls = 0;
      const count = async () => {
        calls++;
      };
      expect(await warmUp({ url }, { sliceSeconds: 0.05, maxSeconds: 0.5 }, 2, count)).toBe(0.5);
      expect(calls).toBe(1);
      expect(await warmUp({ url, pids: [process.pid] }, { sliceSeconds: 0.05, maxSeconds: 0.2 }, 2)).toBe(0.2);
    });
  });
});
