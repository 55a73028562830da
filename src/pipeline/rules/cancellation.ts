import { getEventListeners } from 'node:events';
import { OperationController } from '../../context/operationController.js';
import { finishedUnaborted } from '../../context/request.js';
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
      const controller = op.controller;
      // The operation's own controller with no signal made: its abort tells the waits still following it (none, once
      // its upstream requests settled) and dispatches nothing; a signal read afterwards is made aborted.
      if (controller instanceof OperationController && !controller.signalMade) return controller.abort(FINISHED);
      if (controller.signal.aborted) return;
      // A query or mutation whose upstream requests all settled has nobody listening: abort() would still make and
      // dispatch an Event (and enter it in Node's set of trusted events) per operation, ≈ 13 µs for no one. Its context
      // aborts it when anything reads its signal after the end (a sibling field still running after an error).
      if (op.type !== 'subscription' && getEventListeners(controller.signal, 'abort').length === 0)
        return finishedUnaborted(op.context, controller, FINISHED);
      // One reason for all: abort() without one makes a DOMException, stack trace included, per operation.
      controller.abort(FINISHED);
    },
  };
}

const FINISHED = new DOMException('The operation finished.', 'AbortError');
