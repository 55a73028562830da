import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { cpuSeconds } from './load.js';
import { runningPids } from './proc.js';

/**
 * CPU seconds the whole benchmark has used so far: this coordinator (the load generator), the children it has
 * stopped (cutime + cstime of /proc/self/stat, which holds every reaped child's total) and the ones still running. On
 * a shared machine a scenario's wall time grows with other people's load; its CPU time barely does, so it says what
 * the scenario would take alone.
 */
export function benchCpuSeconds(): number {
  const own = process.cpuUsage();
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  const reaped = (Number(fields[13]) + Number(fields[14])) / 100;
  let running = 0;
  for (const pid of runningPids()) {
    try {
      running += cpuSeconds(pid);
    } catch {
      // Exited and not yet reaped: counted once it is.
    }
  }
  return (own.user + own.system) / 1e6 + reaped + running;
}

export interface Span {
  label: string;
  wallSeconds: number;
  cpuSeconds: number;
  /** The 1-minute load average at the end. */
  load: number;
}

/** Wall time, CPU time (all benchmark processes) and the load average of each labelled part of a run. */
export class Spans {
  readonly spans: Span[] = [];

  async time<T>(label: string, run: () => Promise<T>): Promise<T> {
    const wall0 = performance.now();
    const cpu0 = benchCpuSeconds();
    try {
      return await run();
    } finally {
      this.spans.push({
        label,
        wallSeconds: (performance.now() - wall0) / 1000,
        cpuSeconds: benchCpuSeconds() - cpu0,
        load: loadavg()[0],
      });
    }
  }

  /** One line per part: `label: wall s (CPU s, load x)`. */
  lines(): string[] {
    return this.spans.map(
      (s) =>
        `${s.label}: ${s.wallSeconds.toFixed(0)} s wall, ${s.cpuSeconds.toFixed(0)} s CPU of all benchmark processes, load ${s.load.toFixed(1)}`,
    );
  }
}
