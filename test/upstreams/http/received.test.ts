import { createServer, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';
import { collect } from '../../../src/streams/collect.js';
import { Cancellation } from '../../../src/upstreams/http/cancellation.js';
import { BodyBrokenOff, receive, receiveText } from '../../../src/upstreams/http/received.js';
import { ResponseBufferBudget } from '../../../src/upstreams/http/bufferBudget.js';
import { GatewayError } from '../../../src/errors/codes.js';
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

  it('rejects with the reason of the signal it follows when aborted before the answer, and at once when aborted already', async () => {
    const agent = new Agent();
    const controller = new AbortController();
    const cancel = Cancellation.following(controller.signal);
    const waiting = receive(agent, { origin: up.origin, path: '/hang', method: 'GET', cancel });
    await expect.poll(() => up.seen.length).toBe(1);
    const reason = new Error('caller left');
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(
      receive(agent, {
        origin: up.origin,
        path: '/a',
        method: 'GET',
        cancel: Cancellation.following(AbortSignal.abort(reason)),
      }),
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

  it('stops the upstream request when its body is destroyed before the end, or its cancellation aborts mid-body', async () => {
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
      const cancel = Cancellation.following(controller.signal);
      const second = await receive(agent, { origin, path: '/', method: 'GET', cancel });
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

/** A loopback server whose answer `write` makes; counts the responses that closed (ended or cut). */
async function writing(write: (res: ServerResponse) => void) {
  let closed = 0;
  const server = createServer((_req, res) => {
    res.on('close', () => closed++);
    write(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    closed: () => closed,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
  };
}

/** Writes 1 KiB every 5 ms until the response closes. */
const endlessly = (res: ServerResponse) => {
  res.writeHead(200);
  const timer = setInterval(() => res.write('x'.repeat(1024)), 5);
  res.on('close', () => clearInterval(timer));
};

const LIMITS = { upstream: 'graph', limit: 4096 };

describe('receiveText: a whole body read in the dispatch handler', () => {
  it('answers with the status, the headers and the text, and decodes a gzip body through its stream', async () => {
    const agent = new Agent();
    up.plan.push({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"id":"Exchange"}' });
    expect(await receiveText(agent, { origin: up.origin, path: '/a', method: 'GET' }, LIMITS)).toMatchObject({
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      text: '{"id":"Exchange"}',
    });
    const gz = await writing((res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(gzipSync('{"zipped":true}'));
    });
    try {
      const answer = await receiveText(agent, { origin: gz.origin, path: '/', method: 'GET' }, LIMITS);
      expect(answer.text).toBe('{"zipped":true}');
    } finally {
      await Promise.all([agent.close(), gz.close()]);
    }
  });

  it('stops the request at the limit, when the budget is spent, or when its cancellation aborts mid-body', async () => {
    const endless = await writing(endlessly);
    const agent = new Agent();
    const get = (cancel?: Cancellation, budget?: ResponseBufferBudget) =>
      receiveText(agent, { origin: endless.origin, path: '/', method: 'GET', cancel }, { ...LIMITS, budget });
    try {
      const tooLarge = await get().catch((e: unknown) => e);
      expect(tooLarge).toBeInstanceOf(GatewayError);
      expect((tooLarge as GatewayError).message).toMatch(
        /graph service sent a response larger than 4 KiB \(4096 bytes\)/,
      );
      await expect.poll(() => endless.closed()).toBe(1);

      const budget = new ResponseBufferBudget(2048);
      const spent = await get(undefined, budget).catch((e: unknown) => e);
      expect((spent as GatewayError).message).toMatch(/UPSTREAM_MAX_BUFFERED_BYTES/);
      // The bytes it held are given back.
      expect(budget.inUse).toBe(0);
      await expect.poll(() => endless.closed()).toBe(2);

      const controller = new AbortController();
      const cancel = Cancellation.following(controller.signal);
      const reading = get(cancel);
      await new Promise((r) => setTimeout(r, 20));
      const reason = new Error('caller left');
      controller.abort(reason);
      await expect(reading).rejects.toBe(reason);
      await expect.poll(() => endless.closed()).toBe(3);
    } finally {
      await Promise.all([agent.close(), endless.close()]);
    }
  });

  it('refuses a Content-Length over the limit, and tells a body that broke off from a request never answered', async () => {
    const declared = await writing((res) => {
      res.writeHead(200, { 'content-length': '5000' });
      res.write('x');
    });
    const cut = await writing((res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"half":', () => res.socket?.destroy());
    });
    const agent = new Agent();
    try {
      const refused = await receiveText(agent, { origin: declared.origin, path: '/', method: 'GET' }, LIMITS).catch(
        (e: unknown) => e,
      );
      expect((refused as GatewayError).message).toMatch(/larger than 4 KiB \(4096 bytes\) \(Content-Length: 5000\)/);
      const broken = await receiveText(agent, { origin: cut.origin, path: '/', method: 'GET' }, LIMITS).catch(
        (e: unknown) => e,
      );
      expect(broken).toBeInstanceOf(BodyBrokenOff);
      const never = await receiveText(agent, { origin: up.origin, path: '/reset', method: 'GET' }, LIMITS).catch(
        (e: unknown) => e,
      );
      expect(never).toBeInstanceOf(Error);
      expect(never).not.toBeInstanceOf(BodyBrokenOff);
    } finally {
      await Promise.all([agent.close(), declared.close(), cut.close()]);
    }
  });
});
