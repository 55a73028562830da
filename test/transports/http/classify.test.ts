/**
 * The classifier of `/graphql` requests hands its decision to a sink, once: at once when the head decides, else from
 * the request body's own `end` event (no promise between the body's last byte and the handler). Its hostile cases: a
 * body cut short, one too large, JSON that does not parse, a request that a client leaves.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRequestClassifier,
  type GraphqlHttpRoute,
  type RouteSink,
} from '../../../src/transports/http/classify.js';
import { MAX_BODY_BYTES } from '../../../src/transports/http/requestBody.js';
import { pipelineHarness, type PipelineHarness } from '../../support/pipeline.js';

let h: PipelineHarness;
let classify: ReturnType<typeof createRequestClassifier>;
beforeAll(async () => {
  h = await pipelineHarness();
  classify = createRequestClassifier(h.pipeline, { direct: true, maxUploadBytes: 1024 });
});
afterAll(() => h?.close());

/** A request as the HTTP server hands it over: a readable body with its head. */
function request(method: string, headers: Record<string, string>, url = '/graphql'): IncomingMessage & PassThrough {
  return Object.assign(new PassThrough(), { method, url, headers }) as never;
}

/** A sink that records every call, in order. */
function recorder() {
  const calls: Array<{ route: GraphqlHttpRoute } | { failed: unknown }> = [];
  const sink: RouteSink = {
    route: (route) => void calls.push({ route }),
    failed: (error) => void calls.push({ failed: error }),
  };
  return { calls, sink };
}

const JSON_POST = { 'content-type': 'application/json' };
const res = {} as ServerResponse;

describe('the /graphql classifier', () => {
  it('routes a JSON POST of a valid document to the direct route once its body has ended, not before', async () => {
    const req = request('POST', JSON_POST);
    const { calls, sink } = recorder();
    classify(req, res, false, sink);
    req.write('{"query":"{ upstreams { id } }",');
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([]);
    // Decided in the `end` event itself: a listener after the classifier's sees the route already given, with no
    // promise or tick between them.
    const seenAtEnd = new Promise<number>((r) => req.once('end', () => r(calls.length)));
    req.end('"variables":{}}');
    expect(await seenAtEnd).toBe(1);
    expect(calls).toHaveLength(1);
    const route = (calls[0] as { route: GraphqlHttpRoute }).route;
    expect(route.kind).toBe('direct');
    expect(route.kind === 'direct' && route.operation.operation).toBe('query');
  });

  it('decides a request its head settles at once (CSRF, a stream, a GET), reading no body', () => {
    const cases: Array<[IncomingMessage, string]> = [
      [request('POST', { 'content-type': 'text/plain' }), 'refused'],
      [request('POST', { ...JSON_POST, accept: 'text/event-stream' }), 'sse'],
      [request('GET', { 'apollo-require-preflight': 'true' }, '/graphql?query=%7B__typename%7D'), 'apollo'],
    ];
    for (const [req, kind] of cases) {
      const { calls, sink } = recorder();
      classify(req, res, false, sink);
      expect(calls.map((c) => ('route' in c ? c.route.kind : 'failed'))).toEqual([kind]);
    }
  });

  it('refuses a body that is not JSON, or too large (413), and reads a large one to its end first', async () => {
    const bad = request('POST', JSON_POST);
    const first = recorder();
    classify(bad, res, false, first.sink);
    bad.end('{"query": ');
    await new Promise((r) => bad.once('end', r));
    const refused = (first.calls[0] as { route: GraphqlHttpRoute }).route;
    expect(refused.kind === 'refused' && refused.error.message).toMatch(/not valid JSON/);

    const big = request('POST', JSON_POST);
    const second = recorder();
    classify(big, res, false, second.sink);
    big.write(Buffer.alloc(MAX_BODY_BYTES, 'x'));
    big.write('more');
    await new Promise((r) => setImmediate(r));
    // Past the limit the rest is still read (and dropped): the client gets its 413, not a reset.
    expect(second.calls).toEqual([]);
    big.end('end');
    await new Promise((r) => big.once('end', r));
    const tooLarge = (second.calls[0] as { route: GraphqlHttpRoute }).route;
    expect(tooLarge.kind === 'refused' && tooLarge.error.extensions.http).toEqual({ status: 413 });
  });

  it('tells the sink once that the client left before its body ended, and routes nothing', async () => {
    const req = request('POST', JSON_POST);
    const { calls, sink } = recorder();
    classify(req, res, false, sink);
    req.write('{"query":"{ upst');
    req.destroy();
    await new Promise((r) => setImmediate(r));
    expect(calls).toHaveLength(1);
    expect(String((calls[0] as { failed: Error }).failed)).toMatch(/closed before its end/);
  });

  it('hands a failure deciding the route to the sink instead of throwing in the body event', async () => {
    const req = request('POST', JSON_POST);
    const { calls, sink } = recorder();
    const failing = createRequestClassifier(
      Object.assign(Object.create(h.pipeline) as typeof h.pipeline, {
        prepare: () => {
          throw new Error('a prepare rule broke');
        },
      }),
      { direct: true, maxUploadBytes: 1024 },
    );
    failing(req, res, false, sink);
    req.end('{"query":"{ upstreams { id } }"}');
    await new Promise((r) => req.once('end', r));
    expect(calls).toHaveLength(1);
    expect(String((calls[0] as { failed: Error }).failed)).toMatch(/a prepare rule broke/);
  });
});
