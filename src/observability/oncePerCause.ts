/** Options of {@link OncePerCause}. */
export interface OncePerCauseOptions {
  /** How long a cause stays quiet once logged. @default 60000 */
  windowMs?: number;
  /** Lines it lets through per window, whatever the causes: the keys may come from clients. @default 64 */
  maxPerWindow?: number;
  /** Causes remembered at once, the oldest forgotten first. @default 1024 */
  maxCauses?: number;
}

/**
 * Decides which occurrences of a recurring event reach the log: each cause once per window, with the count of its
 * repeats left out since its last line, and at most `maxPerWindow` lines a window in all. A fault every request hits
 * (a rule that throws) is then one line a minute, not a stack trace per request; what each request got is still in
 * its own operation log line and metrics.
 */
export class OncePerCause {
  private readonly windowMs: number;
  private readonly maxPerWindow: number;
  private readonly maxCauses: number;
  /** When each cause was last logged (-Infinity: never, it came while the window was full), and its repeats since. */
  private readonly causes = new Map<string, { loggedAt: number; suppressed: number }>();
  private windowStart = -Infinity;
  private linesInWindow = 0;

  constructor(options: OncePerCauseOptions = {}) {
    this.windowMs = options.windowMs ?? 60_000;
    this.maxPerWindow = options.maxPerWindow ?? 64;
    this.maxCauses = options.maxCauses ?? 1024;
  }

  /** The repeats of `cause` left out since its last line (0 the first time) when it is to be logged now, else undefined. */
  take(cause: string, now = Date.now()): number | undefined {
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.linesInWindow = 0;
    }
    const seen = this.causes.get(cause);
    if (seen && now - seen.loggedAt < this.windowMs) {
      seen.suppressed++;
      return undefined;
    }
    if (this.linesInWindow >= this.maxPerWindow) {
      this.remember(cause, { loggedAt: seen?.loggedAt ?? -Infinity, suppressed: (seen?.suppressed ?? 0) + 1 });
      return undefined;
    }
    this.linesInWindow++;
    this.remember(cause, { loggedAt: now, suppressed: 0 });
    return seen?.suppressed ?? 0;
  }

  private remember(cause: string, state: { loggedAt: number; suppressed: number }): void {
    this.causes.delete(cause);
    if (this.causes.size >= this.maxCauses) this.causes.delete(this.causes.keys().next().value!);
    this.causes.set(cause, state);
  }
}
