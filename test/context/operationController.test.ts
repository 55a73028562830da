import { getEventListeners, getMaxListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { controllerAborted, OperationController } from '../../src/context/operationController.js';
import { createContext } from '../../src/context/request.js';
import type { GatewayServices } from '../../src/context/services.js';
import { Cancellation } from '../../src/upstreams/http/cancellation.js';
import { InFlight } from '../../src/upstreams/http/inFlight.js';

describe('OperationController: an operation cancelled without an AbortSignal unless one is read', () => {
  it('tells its followers once, with the reason, and makes no signal for them', () => {
    const controller = new OperationController();
    const told: string[] = [];
    const a = () => told.push('a');
    const b = () => told.push('b');
    const gone = () => told.push('gone');
    controller.follow(a);
    controller.follow(gone);
    controller.follow(b);
    controller.unfollow(gone);
    controller.unfollow(gone); // twice is harmless
    const reason = new Error('client left');
    controller.abort(reason);
    controller.abort(new Error('later'));
    controller.follow(() => told.push('after'));
    expect(told.sort()).toEqual(['a', 'b']);
    expect([controller.aborted, controller.reason, controller.signalMade]).toEqual([true, reason, false]);
    expect(controllerAborted(controller)).toBe(true);
    expect(controller.signalMade).toBe(false);
  });

  it('makes a signal read after the abort aborted already, with the same reason', () => {
    const controller = new OperationController();
    controller.abort('finished');
    const signal = controller.signal;
    expect([signal.aborted, signal.reason, controller.signalMade]).toEqual([true, 'finished', true]);
    expect(controller.signal).toBe(signal);
  });

  it('aborts a signal read before the abort as AbortController does, its listeners and followers both told', () => {
    const controller = new OperationController();
    const events: string[] = [];
    controller.signal.addEventListener('abort', () => events.push(`event:${String(controller.signal.reason)}`));
    controller.follow(() => events.push('follower'));
    expect(controller.signal.aborted).toBe(false);
    controller.abort('bye');
    expect(events).toEqual(['follower', 'event:bye']);
    expect(controller.signal.aborted).toBe(true);
  });

  it("raises its signal's listener limit when the signal is made, not before (no signal made to set a limit)", () => {
    const controller = new OperationController();
    controller.maxListeners = 64;
    expect(controller.signalMade).toBe(false);
    const signal = controller.signal;
    // Node 20's signals warn past 10 listeners; Node 24's have no limit (0) and never warn.
    const limit = getMaxListeners(new AbortController().signal);
    expect(getMaxListeners(signal)).toBe(limit > 0 ? 64 : limit);
  });

  it("gives AbortController's default reason, an AbortError", () => {
    const controller = new OperationController();
    controller.abort();
    expect((controller.reason as DOMException).name).toBe('AbortError');
    expect(controller.signal.reason).toBe(controller.reason);
    expect(controller).toBeInstanceOf(AbortController);
  });

  it('is followed by an upstream request and by an in-flight wait, which leave nothing behind once settled', async () => {
    const controller = new OperationController();
    const cancel = Cancellation.following(controller);
    const told: unknown[] = [];
    cancel.listen({ cancelled: (reason) => told.push(reason) });
    cancel.release();
    const flights = new InFlight<string>();
    await expect(flights.run('k', () => Promise.resolve('answer'), controller)).resolves.toBe('answer');
    // Released and settled: the abort reaches neither.
    controller.abort('late');
    expect([told, cancel.aborted, controller.signalMade]).toEqual([[], false, false]);
  });

  it("cancels an in-flight wait and its request when the operation's controller aborts", async () => {
    const controller = new OperationController();
    let flight: Cancellation | undefined;
    const flights = new InFlight<string>();
    const waiting = flights.run(
      'k',
      (cancel) => {
        flight = cancel;
        return new Promise<string>(() => {});
      },
      controller,
    );
    const following = Cancellation.following(controller);
    controller.abort('client left');
    await expect(waiting).rejects.toBe('client left');
    expect([flight?.aborted, flight?.reason, following.aborted, following.reason]).toEqual([
      true,
      'client left',
      true,
      'client left',
    ]);
    expect(controller.signalMade).toBe(false);
    // A wait that starts after the abort leaves at once.
    await expect(flights.run('k2', () => Promise.resolve('x'), controller)).rejects.toBe('client left');
  });

  it("is what a context's upstream waits follow, its signal made only when read", () => {
    const controller = new OperationController();
    const ctx = createContext({} as GatewayServices, { requestId: 'r', signal: controller });
    expect(ctx.aborts).toBe(controller);
    expect(controller.signalMade).toBe(false);
    const signal = ctx.signal;
    expect([signal, controller.signalMade]).toEqual([controller.signal, true]);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
    // A plain signal is its own.
    const plain = new AbortController().signal;
    expect(createContext({} as GatewayServices, { requestId: 'r', signal: plain }).aborts).toBe(plain);
  });
});
