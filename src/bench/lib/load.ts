import { readdirSync, readFileSync } from 'node:fs';
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

/**
 * CPU time a process has used, in seconds: the sum of its threads' run time in nanoseconds from
 * /proc/PID/task/TID/schedstat (the scheduler's own account), where utime + stime in /proc/PID/stat count whole 10 ms
 * clock ticks. A 1 s window of a process using half a core is ~50 ticks, so ±1 tick at each end moved a CPU figure by
 * up to 4 %; the scheduler's account does not round, which lets quick runs use shorter windows without noisier
 * figures. A thread that exits inside a window takes its time with it (the node processes measured keep theirs);
 * without schedstat (a kernel built without it) the ticks are read.
 */
export function cpuSeconds(pid: number): number {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
    if (ns > 0) return ns / 1e9;
  } catch {
    // No task list: fall back to the ticks.
  }
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
  /** The same, per process: one figure for each of `target.pids`, in their order (`cpuUs` is their sum). */
  cpuUsByPid: number[];
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
  const pids = target.pids ?? [];
  const cpu0 = pids.map(cpuSeconds);
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
  const cpuByPid = pids.map((pid, i) => cpuSeconds(pid) - cpu0[i]);
  const cpu = cpuByPid.reduce((sum, c) => sum + c, 0);
  await pool.close();
  const perRequest = (seconds: number) => (latencies.length ? (seconds * 1e6) / latencies.length : NaN);
  return {
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures,
    cpuUs: perRequest(cpu),
    cpuUsByPid: cpuByPid.map(perRequest),
    ok: latencies.length,
  };
}

/** How a target is warmed up before its measured rounds ({@link warmUp}). */
export interface WarmUp {
  /** One slice of load; a warm-up ends between slices. */
  sliceSeconds: number;
  /** The longest a warm-up lasts. One no longer than {@link STEADY_SLICES} × 2 slices is one plain run. */
  maxSeconds: number;
}

/** Slices per window: a warm-up compares the median CPU per request of its last window with the window before's. */
export const STEADY_SLICES = 3;
/** A window less than this fraction cheaper than the one before it: the target's CPU per request has stopped falling. */
export const STEADY_FALL = 0.03;

/**
 * Loads `target` until its CPU per request has stopped falling, at most `plan.maxSeconds`. A fresh process runs a path
 * in V8's interpreter and tiers it up (Sparkplug, Maglev, then TurboFan, by how often each function runs), and a new
 * document's generated code starts cold again: measured on this machine (Node 24, health ids in turn, 10 connections)
 * the gateway's CPU per request fell 330 → 255 → 223 → 199 → 197 µs over five 4 s windows, while the floor, with little
 * code of its own, is steady within a second. A warm-up that stopped at two slices within 10 % (0.5 s) measured the
 * gateway while V8 was still compiling it (its V8 worker threads: 52 µs per request in the first window, 3.5 from the
 * fourth on), and charged it for the tiering a long-running server does once. So the warm-up runs windows of
 * {@link STEADY_SLICES} slices and ends once a window is less than {@link STEADY_FALL} cheaper than the one before: an
 * already-warm target stops after two windows. Without CPU figures (no pids) it runs the whole time.
 */
export async function warmUp(
  target: Target,
  plan: WarmUp,
  connections: number,
  beforeEach: () => Promise<unknown> = async () => undefined,
): Promise<number> {
  warmUps.allowed += plan.maxSeconds;
  const window = STEADY_SLICES * plan.sliceSeconds;
  if (!target.pids?.length || plan.maxSeconds < 2 * window - 1e-9) {
    await beforeEach();
    await load(target, plan.maxSeconds, connections);
    warmUps.spent += plan.maxSeconds;
    return plan.maxSeconds;
  }
  const slices: number[] = [];
  let spent = 0;
  while (spent + plan.sliceSeconds <= plan.maxSeconds + 1e-9) {
    // Before each slice as before each round: the sandbox's request record, grown over a long warm-up, slowed it.
    await beforeEach();
    const { cpuUs, ok } = await load(target, plan.sliceSeconds, connections);
    spent += plan.sliceSeconds;
    if (ok) slices.push(cpuUs);
    if (isSteady(slices)) break;
  }
  warmUps.spent += spent;
  return spent;
}

/**
 * Whether a warm-up's slices (CPU per request, oldest first) show it steady: the median of the last
 * {@link STEADY_SLICES} is less than {@link STEADY_FALL} below the median of the {@link STEADY_SLICES} before them. A
 * median, not a mean: on a shared machine one slice in a few reads 20–50 % high (another process ran), and a mean
 * would take that for a target still getting cheaper, or hide one that is.
 */
export function isSteady(slices: readonly number[]): boolean {
  const n = slices.length;
  if (n < 2 * STEADY_SLICES) return false;
  const window = (from: number) => median(slices.slice(from, from + STEADY_SLICES));
  return window(n - STEADY_SLICES) >= (1 - STEADY_FALL) * window(n - 2 * STEADY_SLICES);
}

/** Seconds of load the warm-ups of this run took, of the seconds they were allowed (for the run's log). */
export const warmUps = { spent: 0, allowed: 0 };

/**
 * Runs each target `rounds` times, interleaved and alternating (A B C, C B A, …) so drift on a shared machine hits
 * all alike, after a warm-up of each until its CPU per request is steady ({@link warmUp}); returns the median of each
 * figure per target.
 */
export async function interleaved(
  targets: Record<string, Target>,
  rounds: number,
  seconds: number,
  connections: number,
  beforeEach: () => Promise<unknown> = async () => undefined,
  warm: WarmUp = { sliceSeconds: Math.min(1, seconds), maxSeconds: Math.min(1, seconds) },
): Promise<Record<string, LoadFigures>> {
  const names = Object.keys(targets);
  // A warm-up runs `beforeEach` before each of its slices.
  for (const n of names) await warmUp(targets[n], warm, connections, beforeEach);
  const runs: Record<string, LoadFigures[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < rounds; i++) {
    // Every other round in the reverse order: a fixed order read the second target ≈ 8 % higher on a loaded machine
    // (the same two builds, swapped: 1.078 and 1.091 in bench:compare; bench/PROFILE.md, tenth pass).
    for (const n of i % 2 ? [...names].reverse() : names) {
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
        cpuUsByPid: runs[n][0].cpuUsByPid.map((_, i) => median(runs[n].map((r) => r.cpuUsByPid[i]))),
        ok: runs[n].reduce((sum, r) => sum + r.ok, 0),
      },
    ]),
  );
}
