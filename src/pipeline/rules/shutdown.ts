import { ErrorCode, ErrorReason, GatewayError } from '../../errors/codes.js';
import type { Operation, PipelineRule } from '../operation.js';

/** Shutdown as a rule: the pipeline's core also reads it (`draining`, `drain`). */
export function useShutdown(): Shutdown {
  return new Shutdown();
}

/** How long operations aborted at the end of the grace get to send their protocol's end before sockets close. */
const AFTER_ABORT_MS = 1000;

/**
 * Shutdown, the same on every transport: once {@link drain} starts, new operations are refused (HTTP 503, a graphql-ws
 * `error` message, an SSE/multipart refusal); running ones may finish within SHUTDOWN_GRACE_MS and end as their
 * protocol ends normally (graphql-ws `complete`, SSE `event: complete`, multipart's closing boundary); whatever is
 * still running after the grace is aborted, which ends its stream the same normal way.
 */
export class Shutdown implements PipelineRule {
  readonly name = 'shutdown';
  private readonly running = new Set<Operation>();
  private draining = false;
  private idle: (() => void) | undefined;

  get isDraining(): boolean {
    return this.draining;
  }

  /** The refusal of a new operation while draining, or undefined. */
  refusal(): GatewayError | undefined {
    if (!this.draining) return undefined;
    return new GatewayError(
      ErrorCode.InternalServerError,
      'The gateway is shutting down and takes no new operations: retry on another replica or in a moment.',
      {
        reason: ErrorReason.ShuttingDown,
        http: { status: 503 },
      },
    );
  }

  begin(op: Operation): void {
    this.running.add(op);
  }

  finish(op: Operation): void {
    this.running.delete(op);
    if (this.running.size === 0) this.idle?.();
  }

  /** Refuses new operations, waits up to `graceMs` for the running ones, then aborts the rest. */
  async drain(graceMs: number): Promise<{ finished: number; aborted: number }> {
    this.draining = true;
    const before = this.running.size;
    if (before > 0) await this.whenIdle(graceMs);
    const aborted = this.running.size;
    for (const op of this.running) op.controller.abort();
    if (aborted > 0) await this.whenIdle(AFTER_ABORT_MS);
    return { finished: before - aborted, aborted };
  }

  private whenIdle(ms: number): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.idle = done;
    });
  }
}
