import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startFakeUpstream, writeEndlessly, type FakeAnswer, type FakeUpstream } from '../../support/fakeUpstream.js';

const LIMIT = 1024 * 1024;
const CALLER = { authorization: 'Bearer fake-caller-token-for-graph' };

const FIELDS = {
  graph: {
    query: '{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { id service } } } }',
    path: ['admin'],
  },
  omdb: { query: '{ title(imdbId: "tt0078346") { title year } }', path: ['title'] },
  glm: {
    query:
      'mutation { createChatCompletion(input: { provider: "glm", model: "glm-4-flash", messages: [{ role: USER, content: "hi" }] }) { content } }',
    path: ['createChatCompletion'],
  },
} as const;
type Upstream = keyof typeof FIELDS;

const SUPERMAN = { Title: 'Superman', Year: '1978', imdbID: 'tt0078346', Type: 'movie', Response: 'True' };
const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): FakeAnswer =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
  };
const html: FakeAnswer = (_req, res) => {
  res.writeHead(502, { 'content-type': 'text/html' });
  res.end(
    '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>',
  );
};
/** Promises a body by Content-Length, sends half of it, then resets the connection. */
const cutOff: FakeAnswer = (_req, res) => {
  const body = JSON.stringify({
    value: Array.from({ length: 50 }, (_, i) => ({ id: `svc-${i}`, service: 'Exchange Online' })),
  });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
  res.write(body.slice(0, body.length / 2), () => res.socket?.destroy());
};
/** A complete chunked body whose JSON stops half-way. */
const halfJson: FakeAnswer = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"id":"Exchange","service":"Exchange Onl');
};
const badUtf8 = json(
  200,
  Buffer.concat([Buffer.from('{"id":"Exchange","service":"Exch'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]),
);

let fake: FakeUpstream;
let gw: TestGateway;

beforeAll(async () => {
  fake = await startFakeUpstream();
  gw = await startTestGateway({
    GRAPH_BASE_URL: `${fake.origin}/graph`,
    OMDB_BASE_URL: `${fake.origin}/omdb`,
    OMDB_API_KEY: 'fake-omdb-key-123456',
    GLM_BASE_URL: `${fake.origin}/glm`,
    GLM_API_KEY: 'fake-glm-key-1234567890',
    UPSTREAM_MAX_RESPONSE_BYTES: String(LIMIT),
    // Every case asks again; the answers must not come from a cache.
    OMDB_CACHE_TTL_MS: '0',
    RESPONSE_CACHE_MAX_BYTES: '0',
  });
});
afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

async function fieldError(upstream: Upstream) {
  const { status, body } = await gw.query(FIELDS[upstream].query, undefined, CALLER);
  expect(status).toBe(200);
  expect(body.errors, JSON.stringify(body)).toHaveLength(1);
  const [error] = body.errors!;
  expect(error.path?.[0]).toBe(FIELDS[upstream].path[0]);
  return error;
}

describe('bounded upstream bodies', () => {
  it('stops reading an endless Graph body at UPSTREAM_MAX_RESPONSE_BYTES and fails only that field, naming the upstream and the limit', async () => {
    let sent: Promise<number> | undefined;
    fake.answer('/graph', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"Exchange","service":"');
      sent = writeEndlessly(res, Buffer.alloc(64 * 1024, 'x'), 512 * 1024 * 1024);
    });
    fake.answer('/omdb', json(200, SUPERMAN));
    const { body } = await gw.query(
      `{ ${FIELDS.graph.query.slice(1, -1)} ${FIELDS.omdb.query.slice(1, -1)} }`,
      undefined,
      CALLER,
    );
    expect(body.data?.title).toEqual({ title: 'Superman', year: '1978' });
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_ERROR',
      upstream: 'graph',
      upstreamCode: 'RESPONSE_TOO_LARGE',
    });
    expect(body.errors![0].message).toContain('larger than 1 MiB (1048576 bytes)');
    expect(body.errors![0].message).toContain('UPSTREAM_MAX_RESPONSE_BYTES');
    // The gateway closed the connection: the upstream stopped long before its 512 MiB (kernel buffers hold a few MiB).
    expect(await sent).toBeLessThan(64 * 1024 * 1024);
  });

  it('refuses a Content-Length above the limit before reading the body', async () => {
    fake.answer('/omdb', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) });
      res.write('{"Title":"');
    });
    const error = await fieldError('omdb');
    expect(error.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'omdb', status: 200 });
    expect(error.message).toMatch(
      /omdb service sent a response larger than 1 MiB \(1048576 bytes\) \(Content-Length: 52428800\)/,
    );
  });

  it('counts the bytes after decompression: a gzip bomb fails with UPSTREAM_ERROR', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, ' '));
    expect(bomb.length).toBeLessThan(LIMIT);
    fake.answer('/graph', json(200, bomb, { 'content-encoding': 'gzip' }));
    const error = await fieldError('graph');
    expect(error.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'graph' });
    expect(error.message).toContain('larger than 1 MiB (1048576 bytes) after decompression (Content-Encoding: gzip)');
  });

  it('reads a gzip-encoded answer within the limit as usual', async () => {
    fake.answer(
      '/graph',
      json(
        200,
        gzipSync(JSON.stringify({ id: 'Exchange', service: 'Exchange Online', status: 'serviceOperational' })),
        { 'content-encoding': 'gzip' },
      ),
    );
    const { body } = await gw.query(FIELDS.graph.query, undefined, CALLER);
    expect(body.errors).toBeUndefined();
    expect(body.data.admin.serviceAnnouncement.healthOverview).toEqual({ id: 'Exchange', service: 'Exchange Online' });
  });

  const cases: Array<{ name: string; upstream: Upstream; answer: FakeAnswer; message: RegExp }> = [
    {
      name: 'an HTML error page from Graph',
      upstream: 'graph',
      answer: html,
      message: /Microsoft Graph answered 502 with a body that is not JSON/,
    },
    {
      name: 'an HTML error page from OMDb',
      upstream: 'omdb',
      answer: html,
      message: /OMDb answered HTTP 502 without an OMDb body/,
    },
    {
      name: 'an HTML error page from a chat provider',
      upstream: 'glm',
      answer: html,
      message: /glm service failed with HTTP 502: <html>/,
    },
    {
      name: 'a Graph body cut off before its Content-Length',
      upstream: 'graph',
      answer: cutOff,
      message: /graph service broke off its answer/,
    },
    {
      name: 'an OMDb body cut off before its Content-Length',
      upstream: 'omdb',
      answer: cutOff,
      message: /omdb service broke off its answer/,
    },
    {
      name: 'a chat answer cut off before its Content-Length',
      upstream: 'glm',
      answer: cutOff,
      message: /glm service failed: the answer broke off|glm service broke off its answer/,
    },
    {
      name: 'truncated JSON from Graph',
      upstream: 'graph',
      answer: halfJson,
      message: /Microsoft Graph answered 200 with a body that is not JSON/,
    },
    {
      name: 'truncated JSON from OMDb',
      upstream: 'omdb',
      answer: halfJson,
      message: /OMDb answered HTTP 200 without an OMDb body/,
    },
    {
      name: 'truncated JSON from a chat provider',
      upstream: 'glm',
      answer: halfJson,
      message: /glm service sent an answer the gateway cannot read/,
    },
    {
      name: 'invalid UTF-8 from Graph',
      upstream: 'graph',
      answer: badUtf8,
      message: /graph service answered 200 with a body that is not valid UTF-8/,
    },
    {
      name: 'invalid UTF-8 from OMDb',
      upstream: 'omdb',
      answer: badUtf8,
      message: /omdb service answered 200 with a body that is not valid UTF-8/,
    },
    {
      name: 'invalid UTF-8 from a chat provider',
      upstream: 'glm',
      answer: badUtf8,
      message: /glm service answered 200 with a body that is not valid UTF-8/,
    },
  ];
  it.each(cases)('turns $name into a field error with UPSTREAM_ERROR', async ({ upstream, answer, message }) => {
    fake.answer(`/${upstream}`, answer);
    const error = await fieldError(upstream);
    expect(error.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream });
    expect(error.message).toMatch(message);
  });

  it('keeps serving after every broken body', async () => {
    fake.answer('/omdb', json(200, SUPERMAN));
    const { body } = await gw.query(FIELDS.omdb.query);
    expect(body).toEqual({
      data: { title: { title: 'Superman', year: '1978' } },
      extensions: { cost: expect.any(Object) },
    });
    const health = await fetch(new URL('/healthz', gw.gateway.url));
    expect(health.status).toBe(200);
  });
});
