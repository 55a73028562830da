import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../src/observability/metrics.js';
import { OutboundBuffer } from '../../src/transports/outboundBuffer.js';

describe('OutboundBuffer', () => {
  it('leaves no listener on a keep-alive socket once its response closed: a thousand SSE responses on one connection hold nothing', () => {
    const socket = new PassThrough();
    const metrics = new GatewayMetrics();
    for (let i = 0; i < 1000; i++) {
      const response = new EventEmitter();
      const buffer = new OutboundBuffer(
        { socket, unsent: () => 0, close: () => undefined, onClose: (listener) => response.once('close', listener) },
        { maxBufferedBytes: 1 << 20, stallTimeoutMs: 0 },
        { transport: 'sse', metrics },
      );
      expect(socket.listenerCount('drain')).toBe(1);
      response.emit('close');
      expect(buffer.done).toBe(true);
    }
    expect(socket.listenerCount('drain')).toBe(0);
  });

  it('aborts every operation it tracks, and none it forgot, once its owner says the connection closed (a sink without onClose)', () => {
    const socket = new PassThrough();
    const buffer = new OutboundBuffer(
      { socket, unsent: () => 0, close: () => undefined },
      { maxBufferedBytes: 1 << 20, stallTimeoutMs: 0 },
      { transport: 'ws', metrics: new GatewayMetrics() },
    );
    const [a, b, c, d] = [0, 1, 2, 3].map(() => new AbortController());
    for (const controller of [a, b, c]) buffer.track(controller);
    buffer.forget(a);
    buffer.forget(c);
    buffer.track(d);
    expect(buffer.done).toBe(false);
    buffer.closed();
    expect([a, b, c, d].map((x) => x.signal.aborted)).toEqual([false, true, false, true]);
    expect(buffer.done).toBe(true);
    expect(socket.listenerCount('drain')).toBe(0);
    // Tracked after the close: aborted at once.
    const late = new AbortController();
    buffer.track(late);
    expect(late.signal.aborted).toBe(true);
  });
});
