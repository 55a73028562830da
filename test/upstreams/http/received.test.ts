import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { collect } from '../../../src/streams/collect.js';
import { receive } from '../../../src/upstreams/http/received.js';
import { useLoopback } from './interceptorServer.js';

const server = useLoopback();
let up: ReturnType<typeof server>;
beforeEach(() => (up = server()));

/** An interceptor that keeps the headers object each answer reached it with. */
function seeing(seen: object[]): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (opts, handler) =>
    dispatch(opts, {
      ...handler,
      onRequestStart: (c, ctx) => handler.onRequestStart?.(c, ctx),
      onResponseStart: (c, status, headers, message) => {
        seen.push(headers);
        handler.onResponseStart?.(c, status, headers, message);
      },
      onResponseData: (c, chunk) => handler.onResponseData?.(c, chunk),
      onResponseEnd: (c, trailers) => handler.onResponseEnd?.(c, trailers),
      onResponseError: (c, error) => handler.onResponseError?.(c, error),
    });
}

describe('receive', () => {
  it('answers with the status, the headers object the interceptors saw (not parsed again) and the body', async () => {
    const seen: object[] = [];
    const agent = new Agent().compose(seeing(seen));
    up.plan.push({ status: 201, headers: { 'x-one': 'a', 'content-type': 'application/json' }, body: '{"ok":1}' });
    const answer = await receive(agent, { origin: up.origin, path: '/a', method: 'GET' });
    expect(answer.statusCode).toBe(201);
    expect(answer.headers).toBe(seen[0]);
    expect(answer.headers).toMatchObject({ 'x-one': 'a', 'content-type': 'application/json' });
    const { chunks } = await collect(answer.body, 1024);
    expect(Buffer.concat(chunks).toString()).toBe('{"ok":1}');
    await agent.close();
  });

  it('rejects with the signal reason when aborted before the answer, and at once when aborted already', async () => {
    const agent = new Agent();
    const controller = new AbortController();
    const waiting = receive(agent, { origin: up.origin, path: '/hang', method: 'GET', signal: controller.signal });
    await expect.poll(() => up.seen.length).toBe(1);
    const reason = new Error('caller left');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(
      receive(agent, { origin: up.origin, path: '/a', method: 'GET', signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    await agent.close();
  });

  it('rejects when an interceptor refuses at once (an open circuit throws) or the connection is reset', async () => {
    const refusal = new Error('circuit open');
    const refusing = new Agent().compose(() => () => {
      throw refusal;
    });
    await expect(receive(refusing, { origin: up.origin, path: '/a', method: 'GET' })).rejects.toBe(refusal);
    const agent = new Agent();
    await expect(receive(agent, { origin: up.origin, path: '/reset', method: 'GET' })).rejects.toThrow();
    await Promise.all([refusing.close(), agent.close()]);
  });

  it('stops the upstream request when its body is destroyed before the end, or the signal aborts mid-body', async () => {
    let closed = 0;
    const endless = createServer((req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'.repeat(1024)), 5);
      res.on('close', () => {
        clearInterval(timer);
        closed++;
      });
    });
    await new Promise<void>((r) => endless.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(endless.address() as AddressInfo).port}`;
    const agent = new Agent();
    try {
      const first = await receive(agent, { origin, path: '/', method: 'GET' });
      await new Promise((r) => first.body.once('data', r));
      first.body.destroy();
      await expect.poll(() => closed).toBe(1);

      const controller = new AbortController();
      const second = await receive(agent, { origin, path: '/', method: 'GET', signal: controller.signal });
      const reading = collect(second.body, 1 << 30);
      const reason = new Error('timed out');
      controller.abort(reason);
      await expect(reading).rejects.toBe(reason);
      await expect.poll(() => closed).toBe(2);
    } finally {
      await agent.close();
      endless.closeAllConnections();
      await new Promise((r) => endless.close(r));
    }
  });
});
