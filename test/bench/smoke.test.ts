import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { Figure } from '../../src/bench/lib/results.js';

// The benchmark harness at its tiniest: proves every scenario runs end to end (separate processes, loopback only)
// and writes results in the documented shape. Figures are not judged here except the request counts, which are exact.
const out = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npm run bench -- --tiny', () => {
  it('runs every scenario and writes results.json and RESULTS.md', async () => {
    await promisify(execFile)(process.execPath, ['src/build/if-needed.mjs'], { timeout: 120_000 });
    // Node 24, the runtime the benchmark measures on, installed before the timed run when .ci/run has not (≈ 10 s).
    await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', "await (await import('./dist/bench/lib/runtimes.js')).shippedNode()"],
      { timeout: 300_000 },
    );
    // --tiny measures Node 24 only (the machine's Node too would not fit the time); CI runs this file on both.
    const run = await promisify(execFile)(process.execPath, ['dist/bench/main.js', '--tiny', '--out', out], {
      timeout: 200_000,
      // Node 24's compile cache for the run's processes (the gateway, the sandbox, the baselines, Hive Gateway), kept
      // beside the composed peer under dist/: a warm run 25.9 → 23.0 s of CPU, the first one +2.3 s to write it
      // (bench/PROFILE.md, "sixth pass"). Node 20, which runs this coordinator, ignores it.
      env: {
        ...process.env,
        NODE_COMPILE_CACHE: fileURLToPath(new URL('../../dist/bench/compile-cache', import.meta.url)),
      },
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`bench failed:\n${error.stdout}\n${error.stderr}`);
    });
    expect(run.stdout).toContain('wrote');

    const json = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as {
      date: string;
      machine: { cpus: number; node: string };
      runtimes: { label: string; version: string }[];
      scenarios: Figure[];
      notes: Record<string, string[]>;
    };
    expect(Number.isNaN(Date.parse(json.date))).toBe(false);
    expect(json.machine.cpus).toBeGreaterThan(0);
    expect(json.machine.node).toMatch(/^v\d+/);
    // Every figure says which runtime measured it: here the shipped one alone.
    expect(json.runtimes.map((r) => r.label)).toEqual(['Node 24']);
    for (const f of json.scenarios) {
      expect(f.runtime).toBe(json.runtimes[0].version);
      expect(Object.keys(f).sort()).toEqual([
        'baseline',
        'baselineName',
        'gateway',
        'goal',
        'met',
        'metric',
        'name',
        'ratio',
        'runtime',
        'unit',
      ]);
      expect(typeof f.name).toBe('string');
      expect(typeof f.gateway === 'number' || f.gateway === null).toBe(true);
      expect(typeof f.met === 'boolean' || f.met === null).toBe(true);
    }
    for (const n of ['1.', '2.', '3.', '4.', '5.', '6.', '7.'])
      expect(json.scenarios.some((f) => f.name.startsWith(n))).toBe(true);
    expect(
      Object.values(json.notes)
        .flat()
        .filter((n) => n.startsWith('FAILED')),
    ).toEqual([]);

    const counts = json.scenarios.filter(
      (f) => f.name.startsWith('1.') && f.metric.startsWith('upstream') && f.unit === 'requests',
    );
    expect(counts.length).toBeGreaterThanOrEqual(4);
    expect(counts.filter((f) => f.met !== true)).toEqual([]);
    // In-flight sharing: identical concurrent lookups share upstream requests; ids in turn never do.
    const perOp = json.scenarios.filter(
      (f) => f.name.startsWith('2.') && f.metric.startsWith('upstream requests per operation'),
    );
    expect(perOp.map((f) => f.name.replace(/^.*: /, ''))).toEqual([
      'single healthOverview',
      'single title (cache off)',
      'healthOverview, 16 ids in turn (nothing to share in flight)',
      'title, 16 ids in turn (cache off, nothing to share in flight)',
    ]);
    for (const f of perOp.slice(0, 2)) expect(f.gateway).toBeLessThan(0.9);
    for (const f of perOp.slice(2)) expect(f.gateway).toBeGreaterThan(0.9);
    // Scenario 3 measures Hive Gateway over a replay of this gateway's answers beside it: the ceiling of its rows.
    const ceilings = json.scenarios.filter((f) => f.name.startsWith('3.') && f.metric.includes('the ceiling'));
    expect(ceilings.map((f) => f.name.replace(/^.*: /, ''))).toEqual([
      'single healthOverview',
      'single title (cache off)',
      'nested Admin→ServiceHealth→Issue (cache off)',
    ]);
    for (const f of ceilings) expect(f.gateway).toBeGreaterThan(0);
    // Live-health fan-out: every subscriber got the incident, with the payload of every other subscriber of its selection.
    const fanOut = json.scenarios.filter((f) => f.name.startsWith('7.'));
    expect(fanOut.find((f) => f.metric.startsWith('subscribers that received'))).toMatchObject({
      gateway: 500,
      baseline: 500,
      met: true,
    });
    const md = readFileSync(join(out, 'RESULTS.md'), 'utf8');
    expect(md).toContain('## Figures on Node 24 (v24.');
    expect(md).toContain('| scenario | metric | gateway | baseline | ratio | goal |');
    expect(md).toContain('## Goals by runtime');
  }, 330_000);
});
