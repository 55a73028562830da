import type { PipelineRule } from '../operation.js';

/**
 * An operation's upstream requests follow its `controller`: the operation's end aborts whatever is still running
 * upstream (a stream the client left, a fallback attempt in flight); a transport aborts the controller itself when
 * its client goes away (HTTP: transports/http/httpCaller.ts `abortWhenGone`, whose controller the operation adopts).
 */
export function useCancellation(): PipelineRule {
  return {
    name: 'cancellation',
    finish(op) {
      // One reason for all: abort() without one makes a DOMException, stack trace included, per operation.
      op.controller.abort(FINISHED);
    },
  };
}

const FINISHED = new DOMException('The operation finished.', 'AbortError');
