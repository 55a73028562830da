import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Agent, util } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { UpstreamHttp } from '../../../src/upstreams/http/client.js';
import { lazyHeaders, rawHeaders } from '../../../src/upstreams/http/lazyHeaders.js';

const raw = (...pairs: string[]) => pairs.map((p) => Buffer.from(p, 'latin1'));
const parsed = (list: Buffer[]) => util.parseHeaders(list);

describe('lazyHeaders: a raw header list read as undici would parse it', () => {
  const list = () =>
    raw(
      'Content-Type',
      'application/json',
      'Request-Id',
      'abc',
      'Set-Cookie',
      'a=1',
      'set-cookie',
      'b=2',
      'X-Latin',
      'caf\u00e9',
      'Content-Length',
      '12',
    );

  it('answers a read by name as the parsed record, names lower-cased, a repeated header as a list', () => {
    const headers = lazyHeaders(list());
    const expected = parsed(list());
    for (const name of ['content-type', 'request-id', 'set-cookie', 'x-latin', 'content-length'])
      expect(headers[name]).toEqual(expected[name]);
    expect(headers['Content-Type']).toBeUndefined();
    expect(headers['retry-after']).toBeUndefined();
    expect(headers['x-latin']).toBe('caf\u00e9');
  });

  it('is the parsed record for keys, spreading, `in`, JSON and equality, and takes writes and deletes', () => {
    const expected = parsed(list());
    expect(Object.keys(lazyHeaders(list()))).toEqual(Object.keys(expected));
    expect({ ...lazyHeaders(list()) }).toEqual(expected);
    expect(JSON.stringify(lazyHeaders(list()))).toBe(JSON.stringify(expected));
    expect(lazyHeaders(list())).toEqual(expected);
    expect(Object.entries(lazyHeaders(list()))).toEqual(Object.entries(expected));
    const headers = lazyHeaders(list());
    expect('request-id' in headers).toBe(true);
    expect('retry-after' in headers).toBe(false);
    headers['retry-after'] = '5';
    delete headers['request-id'];
    expect(headers['retry-after']).toBe('5');
    expect(headers['request-id']).toBeUndefined();
    expect(Object.keys(headers)).toEqual(['content-type', 'set-cookie', 'x-latin', 'content-length', 'retry-after']);
  });

  it('reads what is not a plain header name from the record: prototype members, symbols, an own `__proto__`', () => {
    const headers = lazyHeaders(raw('__proto__', 'x', 'Constructor', 'y'));
    const expected = parsed(raw('__proto__', 'x', 'Constructor', 'y'));
    expect(headers.__proto__).toBe('x');
    expect(headers.constructor).toBe('y');
    expect(expected.constructor).toBe('y');
    expect(typeof lazyHeaders(raw('A', 'b')).hasOwnProperty).toBe('function');
    expect(lazyHeaders(raw('A', 'b'))[Symbol.iterator as never]).toBeUndefined();
    expect(Object.getPrototypeOf(lazyHeaders(raw('A', 'b')))).toBe(Object.prototype);
  });

  it('parses a name that is not ASCII as undici does (its latin1 text lower-cased)', () => {
    const list = () => [Buffer.from([0x58, 0xc9]), Buffer.from('v'), Buffer.from('B'), Buffer.from('w')];
    expect(lazyHeaders(list())['x\u00e9']).toBe(parsed(list())['x\u00e9']);
    expect(lazyHeaders(list())['x\u00e9']).toBe('v');
    expect(lazyHeaders(list()).b).toBe('w');
  });
});

describe("rawHeaders: the interceptor chain on undici's raw-header interface", () => {
  let server: Server;
  let origin: string;
  const big = 'x'.repeat(512 * 1024);
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(big.length) });
        return void res.end(big);
      }
      if (req.url === '/slow') return void res.writeHead(429, { 'retry-after': '0' }).end('wait');
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.writeHead(200, { 'Request-Id': 'r-1', 'content-type': 'application/json', 'x-odd': 'caf\u00e9' });
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));

  const make = () =>
    new UpstreamHttp({
      upstream: 'test',
      metrics: new GatewayMetrics(),
      log: pino({ level: 'silent' }),
      redact: (s) => s,
      retry: { baseDelayMs: 5, maxAttempts: 2 },
    });

  it("hands a buffered answer's headers on as undici's own request() parses them", async () => {
    const http = make();
    const plain = new Agent();
    try {
      const res = await http.send({ method: 'GET', url: `${origin}/`, tally: undefined });
      const theirs = await plain.request({ origin, path: '/', method: 'GET' });
      await theirs.body.text();
      expect(res.text).toBe('{"ok":true}');
      expect(res.headers['request-id']).toBe('r-1');
      expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      const { date: _a, ...ours } = res.headers;
      const { date: _b, ...expected } = theirs.headers;
      expect(ours).toEqual(expected);
    } finally {
      await http.close();
      await plain.close();
    }
  });

  it('retries on Retry-After read from the raw list, and a stream paused by its reader resumes to its end', async () => {
    const http = make();
    try {
      const refused = await http.send({ method: 'GET', url: `${origin}/slow`, tally: undefined });
      expect([refused.status, refused.attempts, refused.headers['retry-after']]).toEqual([429, 2, '0']);
      const res = await http.open({ method: 'GET', url: `${origin}/big`, tally: undefined });
      expect(res.headers['content-length']).toBe(String(big.length));
      let size = 0;
      // A slow reader: the body's buffer fills, the request pauses and resumes as it is read.
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        await new Promise((r) => setImmediate(r));
      }
      expect(size).toBe(big.length);
    } finally {
      await http.close();
    }
  });

  it("gives undici's own request() through the chain the same headers, and its errors", async () => {
    const chained = new Agent().compose(rawHeaders());
    try {
      const res = await chained.request({ origin, path: '/', method: 'GET' });
      expect(await res.body.text()).toBe('{"ok":true}');
      expect(res.headers['x-odd']).toBe('caf\u00e9');
      expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      const closed = await new Promise<number>((r) => {
        const s = createServer().listen(0, '127.0.0.1', () => {
          const port = (s.address() as AddressInfo).port;
          s.close(() => r(port));
        });
      });
      await expect(chained.request({ origin: `http://127.0.0.1:${closed}`, path: '/', method: 'GET' })).rejects.toThrow(
        /ECONNREFUSED/,
      );
    } finally {
      await chained.close();
    }
  });
});
