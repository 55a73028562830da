import type { ServerResponse } from 'node:http';
import type { Operation, PipelineRule } from '../operation.js';

/**
 * An operation's upstream requests follow its `controller`: the operation's end aborts whatever is still running
 * upstream (a stream the client left, a fallback attempt in flight), and a transport calls {@link abortWhenGone}
 * so a client that goes away aborts them at once.
 */
export const cancellation: PipelineRule = {
  name: 'cancellation',
  finish(op) {
    // One reason for all: abort() without one makes a DOMException, stack trace included, per operation.
    op.controller.abort(FINISHED);
  },
};

const FINISHED = new DOMException('The operation finished.', 'AbortError');

/** Aborts the operation when the HTTP response closes before it was finished (the client went away). */
export function abortWhenGone(op: Operation, res: ServerResponse): void {
  res.once('close', () => {
    if (!res.writableFinished) op.controller.abort();
  });
}
