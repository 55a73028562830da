import { OperationKey, operationValue, setOperationValue } from '../../context/request.js';
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
  private readonly running = new RunningOperations();
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
    for (const op of this.running.list()) op.controller.abort();
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

/** An operation's place in {@link RunningOperations}. */
interface Entry {
  readonly op: Operation;
  prev: Entry | undefined;
  next: Entry | undefined;
}

const ENTRY = new OperationKey<Entry>('its place among the running operations');

/**
 * The running operations as a list linked through an entry each operation holds (in its context), not a Set: a
 * long-lived Set that gains and loses an operation per request rebuilds its hash table every few operations as it
 * grows and shrinks, and those tables, made for an old object, were the largest part of what each operation promoted
 * to the old generation (bench/PROFILE.md, eighth pass).
 */
class RunningOperations {
  private head: Entry | undefined;
  size = 0;

  add(op: Operation): void {
    if (this.holds(operationValue(op.context, ENTRY))) return;
    const entry: Entry = { op, prev: undefined, next: this.head };
    if (this.head) this.head.prev = entry;
    this.head = entry;
    this.size++;
    setOperationValue(op.context, ENTRY, entry);
  }

  delete(op: Operation): void {
    const entry = operationValue(op.context, ENTRY);
    // Finished already (or never begun here): nothing to unlink.
    if (!this.holds(entry)) return;
    if (entry.prev) entry.prev.next = entry.next;
    else this.head = entry.next;
    if (entry.next) entry.next.prev = entry.prev;
    entry.prev = entry.next = undefined;
    this.size--;
  }

  private holds(entry: Entry | undefined): entry is Entry {
    return entry !== undefined && (entry.prev !== undefined || this.head === entry);
  }

  /** A copy: aborting an operation may finish it, which unlinks it. */
  list(): Operation[] {
    const ops: Operation[] = [];
    for (let e = this.head; e; e = e.next) ops.push(e.op);
    return ops;
  }
}
