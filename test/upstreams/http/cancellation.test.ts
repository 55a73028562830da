import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Cancellation } from '../../../src/upstreams/http/cancellation.js';

describe('Cancellation: one upstream request stopped without an AbortController', () => {
  it('follows a signal until released, tells its listener once, and keeps the first reason', () => {
    const controller = new AbortController();
    const cancel = Cancellation.following(controller.signal);
    const told: unknown[] = [];
    cancel.listen({ cancelled: (reason) => told.push(reason) });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const reason = new Error('caller left');
    controller.abort(reason);
    cancel.abort(new Error('later'));
    expect([cancel.aborted, cancel.reason, told]).toEqual([true, reason, [reason]]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('leaves no listener on the followed signal once released, and is aborted at once by an aborted one', () => {
    const controller = new AbortController();
    const cancel = Cancellation.following(controller.signal);
    cancel.release();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    controller.abort();
    expect(cancel.aborted).toBe(false);
    const reason = new Error('gone already');
    const late = Cancellation.following(AbortSignal.abort(reason));
    expect([late.aborted, late.reason]).toEqual([true, reason]);
    expect(Cancellation.following(undefined).aborted).toBe(false);
  });
});
