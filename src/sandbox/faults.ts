import { UPSTREAM_NAMES, type Fault, type UpstreamName } from './types.js';

/** Queue of injected faults per upstream; each request of that upstream takes the head one until `times` runs out. */
export class FaultQueue {
  private queues = new Map<UpstreamName, Fault[]>();

  /** Validates a control-API body; returns an error sentence naming the bad value, or the fault. */
  static parse(input: unknown): Fault | string {
    if (typeof input !== 'object' || input === null) return 'fault must be a JSON object';
    const f = input as Record<string, unknown>;
    if (!UPSTREAM_NAMES.includes(f.upstream as UpstreamName)) {
      return `unknown upstream ${JSON.stringify(f.upstream)}; use one of ${UPSTREAM_NAMES.join(', ')}`;
    }
    const times = f.times ?? 1;
    if (!Number.isInteger(times) || (times as number) < 1)
      return `times must be a positive integer, got ${JSON.stringify(times)}`;
    for (const key of ['status', 'retryAfter', 'delayMs', 'cutAfterChunks'] as const) {
      const v = f[key];
      if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0)) {
        return `${key} must be a non-negative number, got ${JSON.stringify(v)}`;
      }
    }
    for (const key of ['match', 'matchBody'] as const) {
      const v = f[key];
      if (v !== undefined && (typeof v !== 'string' || v === '')) {
        return `${key} must be a non-empty string, got ${JSON.stringify(v)}`;
      }
    }
    if (f.status !== undefined && ((f.status as number) < 100 || (f.status as number) > 599)) {
      return `status must be an HTTP status 100..599, got ${f.status}`;
    }
    return {
      upstream: f.upstream as UpstreamName,
      times: times as number,
      status: f.status as number | undefined,
      retryAfter: f.retryAfter as number | undefined,
      delayMs: f.delayMs as number | undefined,
      reset: f.reset === true,
      cutAfterChunks: f.cutAfterChunks as number | undefined,
      match: f.match as string | undefined,
      matchBody: f.matchBody as string | undefined,
      body: f.body,
    };
  }

  push(fault: Fault): void {
    const q = this.queues.get(fault.upstream) ?? [];
    q.push({ ...fault });
    this.queues.set(fault.upstream, q);
  }

  /**
   * Takes one use of the first queued fault for `upstream` whose `match` (if any) occurs in `url` and whose
   * `matchBody` (if any) occurs in `body` (a request the emulator streams, or a `$batch` item, has none to match).
   */
  take(upstream: UpstreamName, url: string, body?: string): Fault | undefined {
    const q = this.queues.get(upstream);
    if (!q) return undefined;
    const i = q.findIndex(
      (f) =>
        (f.match === undefined || url.includes(f.match)) &&
        (f.matchBody === undefined || (body !== undefined && body.includes(f.matchBody))),
    );
    if (i === -1) return undefined;
    const fault = q[i];
    fault.times -= 1;
    if (fault.times <= 0) q.splice(i, 1);
    return { ...fault };
  }

  pending(): Fault[] {
    return [...this.queues.values()].flat();
  }

  clear(): void {
    this.queues.clear();
  }
}
