import type { ExecutionResult } from 'graphql';
import { sharedResultJson } from '../../execution/sharedEvents.js';

/**
 * A subscription's results, with those many subscribers share (execution/sharedEvents.ts) sent here as the `next`
 * message graphql-ws would write, `{"id":…,"type":"next","payload":…}`, built from the result's JSON text made once
 * for all of them: graphql-ws stringifies (and validates) the whole message again for each subscriber. Any other
 * result (one with errors, which each operation formats on its own, or a subscriber's own) is handed to graphql-ws.
 * `send` is the connection's (adapter.ts), which sends nothing once the connection closed.
 */
export function sendingSharedResults(
  source: AsyncIterator<ExecutionResult>,
  id: string,
  send: (text: string) => void,
  extensionsOf: (result: ExecutionResult) => Record<string, unknown> | undefined,
): AsyncIterableIterator<ExecutionResult> {
  return new SharedResultSender(source, `{"id":${JSON.stringify(id)},"type":"next","payload":`, send, extensionsOf);
}

/**
 * The `next` message for a shared result: its JSON made once, with this subscriber's own `extensions` (its operation's
 * cost) spliced in before the closing brace, so the shared text stays whole and only a few bytes are made per
 * subscriber. A result with extensions of its own is not shared here (undefined): graphql-ws formats it.
 */
export function sharedNextText(prefix: string, json: string, extensions: Record<string, unknown> | undefined): string {
  if (!extensions) return `${prefix}${json}}`;
  return `${prefix}${json.slice(0, -1)}${json.length > 2 ? ',' : ''}"extensions":${JSON.stringify(extensions)}}}`;
}

/** A class with promise chains, not async closures: every graphql-ws subscription holds one for its whole life. */
class SharedResultSender implements AsyncIterableIterator<ExecutionResult> {
  constructor(
    private readonly source: AsyncIterator<ExecutionResult>,
    /** `{"id":…,"type":"next","payload":`, made once per subscription. */
    private readonly prefix: string,
    private readonly send: (text: string) => void,
    /** The extensions this subscriber's answer carries (its cost), asked once per result as every answer does. */
    private readonly extensionsOf: (result: ExecutionResult) => Record<string, unknown> | undefined,
  ) {}

  next(): Promise<IteratorResult<ExecutionResult>> {
    return new Promise((resolve, reject) => this.pull(resolve, reject));
  }

  return(value?: unknown): Promise<IteratorResult<ExecutionResult>> {
    return this.source.return ? this.source.return(value as never) : Promise.resolve({ value: undefined, done: true });
  }

  throw(error?: unknown): Promise<IteratorResult<ExecutionResult>> {
    return this.source.throw ? this.source.throw(error) : Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * Sends shared results as they come and settles `resolve` with the first other step, for graphql-ws. A loop of
   * pulls, not `next()` returning `next()`: a subscription whose results are all shared never hands graphql-ws a
   * value, and promises resolved with promises would chain one link per event for its whole life.
   */
  private pull(resolve: (step: IteratorResult<ExecutionResult>) => void, reject: (error: unknown) => void): void {
    this.source.next().then((step) => {
      const json = step.done || step.value.extensions ? undefined : sharedResultJson(step.value);
      if (json === undefined) return resolve(step);
      try {
        this.send(sharedNextText(this.prefix, json, this.extensionsOf(step.value)));
      } catch (error) {
        return reject(error);
      }
      this.pull(resolve, reject);
    }, reject);
  }
}
