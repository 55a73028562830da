import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { median, percentile } from './stats.js';

/** One HTTP request shape for the load generator. */
export interface Target {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Server-side processes whose CPU time the run is charged with (e.g. gateway and sandbox). */
  pids?: number[];
  /**
   * Requests sent in turn instead of the one `url` path and `body` (e.g. the same query for 16 ids), so that no two
   * concurrent requests are alike: in-flight sharing then has nothing to share.
   */
  variants?: Array<{ path?: string; body?: string }>;
}

/** utime + stime of a process in seconds, from /proc (clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  /** Requests that failed or answered non-2xx (any is a broken measurement). */
  failures: number;
  /** CPU time of `target.pids` per successful request, in µs: unlike req/s, barely moved by other load on the machine. */
  cpuUs: number;
  /** Successful requests. */
  ok: number;
}

/**
 * A closed-loop run of `seconds`: `connections` keep-alive connections, each sending the next request as soon as
 * the previous answer is read (as autocannon does), with per-request latency measured in microseconds. autocannon 9
 * records latency in whole milliseconds, too coarse for loopback answers of a fraction of a millisecond.
 */
export async function load(target: Target, seconds: number, connections: number): Promise<LoadFigures> {
  const url = new URL(target.url);
  const pool = new Pool(url.origin, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const path = url.pathname + url.search;
  const latencies: number[] = [];
  let failures = 0;
  let sent = 0;
  const cpu0 = (target.pids ?? []).reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async () => {
    // Bounded by the deadline; each iteration is one request.
    while (performance.now() < deadline) {
      const t0 = performance.now();
      try {
        const variant = target.variants?.[sent++ % target.variants.length];
        const res = await pool.request({
          path: variant?.path ?? path,
          method: target.method ?? 'GET',
          headers: target.headers,
          body: variant?.body ?? target.body,
        });
        await res.body.dump({ limit: Infinity });
        if (res.statusCode < 200 || res.statusCode >= 300) failures++;
        else latencies.push(performance.now() - t0);
      } catch {
        failures++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = (target.pids ?? []).reduce((sum, pid) => sum + cpuSeconds(pid), 0) - cpu0;
  await pool.close();
  return {
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures,
    cpuUs: latencies.length ? (cpu * 1e6) / latencies.length : NaN,
    ok: latencies.length,
  };
}

/**
 * Runs each target `rounds` times, interleaved (A B C, A B C, …) so drift on a shared machine hits all alike,
 * after one warm-up run each; returns the median of each figure per target.
 */
export async function interleaved(
  targets: Record<string, Target>,
  rounds: number,
  seconds: number,
  connections: number,
  beforeEach: () => Promise<unknown> = async () => undefined,
  warmupSeconds = Math.min(1, seconds),
): Promise<Record<string, LoadFigures>> {
  const names = Object.keys(targets);
  for (const n of names) {
    await beforeEach();
    await load(targets[n], warmupSeconds, connections);
  }
  const runs: Record<string, LoadFigures[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < rounds; i++) {
    for (const n of names) {
      await beforeEach();
      runs[n].push(await load(targets[n], seconds, connections));
    }
  }
  return Object.fromEntries(
    names.map((n) => [
      n,
      {
        rps: median(runs[n].map((r) => r.rps)),
        p50: median(runs[n].map((r) => r.p50)),
        p99: median(runs[n].map((r) => r.p99)),
        failures: runs[n].reduce((s, r) => s + r.failures, 0),
        cpuUs: median(runs[n].map((r) => r.cpuUs)),
        ok: runs[n].reduce((sum, r) => sum + r.ok, 0),
      },
    ]),
  );
}
