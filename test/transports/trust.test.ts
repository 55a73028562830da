import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { rawHttp } from '../support/rawHttp.js';
import { rawSubscriber, wsClient } from '../support/ws.js';
import { eventually } from '../support/chat.js';

/**
 * The trust boundaries (docs/security.md): who may reach the gateway (Host and Origin), who the client really is behind
 * a proxy or a federation router, which answers a shared cache may keep, and hostile inputs refused without a crash.
 * The conformance table (test/conformance/cases.ts) runs the input rows over every transport; this suite covers what
 * needs a raw socket, a chosen `Host`, several clients or a forced failure.
 */

const KEY = 'client-key-0123456789';
const ROUTER_KEY = 'router-key-0123456789';
const LISTED = '{ upstreams { id } }';
const TICKING = 'subscription { serverTime(intervalMs: 40, count: 1000) }';

/** One request with any `Host` (fetch always sends the URL's): status, headers and body text. */
function send(
  t: TestGateway,
  options: { method?: string; path?: string; host?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  const target = new URL(t.gateway.origin);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? 'GET',
        path: options.path ?? '/graphql',
        setHost: false,
        headers: {
          host: options.host ?? target.host,
          ...(options.body ? { 'content-type': 'application/json' } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const mcpCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'TitleLookup', arguments: { imdbId: 'tt0078346' } },
});
const mcpHeaders = { accept: 'application/json, text/event-stream' };

/** A WebSocket upgrade with these headers: the HTTP status it was refused with, or `open`. */
function upgrade(t: TestGateway, headers: Record<string, string>): Promise<number | 'open'> {
  return new Promise((resolve) => {
    const ws = new WebSocket(t.gateway.wsUrl, 'graphql-transport-ws', { headers });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    ws.on('error', () => undefined);
  });
}

describe('Host and Origin checks, on by default', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(() => t.close());

  it('answers a rebound host name with 403 FORBIDDEN on every endpoint, before anything runs: /graphql, /mcp, GraphiQL, health, metrics', async () => {
    t.clearUpstreamRequests();
    const evil = { host: `evil.example:${new URL(t.gateway.origin).port}`, headers: { origin: 'http://evil.example' } };
    const graphql = await send(t, {
      ...evil,
      method: 'POST',
      body: JSON.stringify({ query: '{ title(imdbId: "tt0078346") { title } }' }),
    });
    expect(graphql.status).toBe(403);
    expect(JSON.parse(graphql.text).errors[0]).toMatchObject({
      extensions: { code: 'FORBIDDEN', reason: 'HOST_NOT_ALLOWED' },
    });
    expect(JSON.parse(graphql.text).errors[0].message).toContain('ALLOWED_HOSTS');
    // The README's agent set-up: an MCP tool a page would run through the visitor's laptop.
    const mcp = await send(t, {
      ...evil,
      method: 'POST',
      path: '/mcp',
      headers: { ...evil.headers, ...mcpHeaders },
      body: mcpCall,
    });
    expect(mcp.status).toBe(403);
    expect(JSON.parse(mcp.text)).toMatchObject({
      jsonrpc: '2.0',
      error: { message: expect.stringContaining('ALLOWED_HOSTS') },
      id: null,
    });
    for (const path of ['/', '/healthz', '/readyz', '/metrics', '/graphql?query=%7Bupstreams%7Bid%7D%7D']) {
      expect(
        (await send(t, { host: 'evil.example', path, headers: { 'apollo-require-preflight': 'true' } })).status,
        path,
      ).toBe(403);
    }
    expect(await upgrade(t, { host: 'evil.example' })).toBe(403);
    expect(t.upstreamRequests()).toEqual([]);
  });

  it('answers the loopback names, any IP address (a load balancer probes by address) and a request without Host', async () => {
    const port = new URL(t.gateway.origin).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST.:${port}`,
      `app.localhost:${port}`,
      `[::1]:${port}`,
      '10.1.2.3',
      '[fd00::1]:80',
    ]) {
      expect((await send(t, { host, path: '/healthz' })).status, host).toBe(200);
    }
    // HTTP/1.0 has no Host; browsers always send one.
    const bare = rawHttp(t.gateway.url);
    bare.socket.write('GET /healthz HTTP/1.0\r\n\r\n');
    expect(await bare.status).toBe(200);
  });

  it('refuses a cross-site page (its Origin) on /graphql, /mcp and the WebSocket upgrade, and lets the same origin and callers without Origin in', async () => {
    t.clearUpstreamRequests();
    const cross = await send(t, {
      method: 'POST',
      path: '/mcp',
      headers: { origin: 'http://evil.example', ...mcpHeaders },
      body: mcpCall,
    });
    expect(cross.status).toBe(403);
    expect(t.upstreamRequests()).toEqual([]);
    expect(await upgrade(t, { origin: 'http://evil.example' })).toBe(403);
    expect(await upgrade(t, { origin: 'null' })).toBe(403);

    expect(await upgrade(t, { origin: t.gateway.origin })).toBe('open');
    const same = await send(t, {
      method: 'POST',
      path: '/mcp',
      headers: { origin: t.gateway.origin, ...mcpHeaders },
      body: mcpCall,
    });
    expect(same.status).toBe(200);
    expect(same.text).toContain('Superman');
    expect((await send(t, { method: 'POST', body: JSON.stringify({ query: LISTED }) })).status).toBe(200);
  });

  it('says at start-up, in one line, what it answers', () => {
    const line = t.logs.json().find((l) => String(l.msg).startsWith('requests are answered for'));
    expect(line?.msg).toBe(
      'requests are answered for Host localhost, *.localhost or an IP address (ALLOWED_HOSTS) and browser Origin the same origin (ALLOWED_ORIGINS)',
    );
  });
});

describe('ALLOWED_HOSTS and ALLOWED_ORIGINS', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({
      ALLOWED_HOSTS: 'api.example.com,.corp.example',
      ALLOWED_ORIGINS: 'https://app.example.com',
      CORS_ORIGINS: 'https://cors.example.com',
    });
  });
  afterAll(() => t.close());

  it("answers the listed names and a listed domain's subdomains, an address still; the loopback names only when listed", async () => {
    const status = async (host: string) => (await send(t, { host, path: '/healthz' })).status;
    expect(await status('api.example.com')).toBe(200);
    expect(await status('API.example.com:443')).toBe(200);
    expect(await status('corp.example')).toBe(200);
    expect(await status('gateway.eu.corp.example')).toBe(200);
    expect(await status('127.0.0.1')).toBe(200);
    expect(await status('evilcorp.example')).toBe(403);
    expect(await status('api.example.com.evil.example')).toBe(403);
    expect(await status('localhost')).toBe(403);
  });

  it('lets in browser pages of ALLOWED_ORIGINS and CORS_ORIGINS, no other', async () => {
    const origin = async (value: string) =>
      (
        await send(t, {
          host: 'api.example.com',
          method: 'POST',
          headers: { origin: value },
          body: JSON.stringify({ query: LISTED }),
        })
      ).status;
    expect(await origin('https://app.example.com')).toBe(200);
    expect(await origin('https://cors.example.com')).toBe(200);
    expect(await origin('http://api.example.com')).toBe(200);
    expect(await origin('https://other.example.com')).toBe(403);
  });

  it('turns each check off with *', async () => {
    const open = await startTestGateway({ ALLOWED_HOSTS: '*', ALLOWED_ORIGINS: '*' });
    try {
      expect(
        (
          await send(open, {
            host: 'anything.example',
            method: 'POST',
            headers: { origin: 'https://any.example' },
            body: JSON.stringify({ query: LISTED }),
          })
        ).status,
      ).toBe(200);
      expect(open.logs.json().find((l) => String(l.msg).startsWith('requests are answered for'))?.msg).toBe(
        'requests are answered for any Host (ALLOWED_HOSTS) and any browser Origin (ALLOWED_ORIGINS)',
      );
    } finally {
      await open.close();
    }
  });
});

describe('Cache-Control matches who may see the answer', () => {
  const TITLE = 'query Alien { title(imdbId: "tt0078748") { imdbId title year } }';
  const get = (t: TestGateway, headers: Record<string, string> = {}) =>
    fetch(`${t.gateway.url}?query=${encodeURIComponent(TITLE)}`, {
      headers: { 'apollo-require-preflight': 'true', ...headers },
    });

  it('is public only for an answer any caller gets; an answer that needed a key or a credential is private', async () => {
    const open = await startTestGateway();
    const keyed = await startTestGateway({ GATEWAY_API_KEYS: KEY });
    try {
      expect((await get(open)).headers.get('cache-control')).toBe('public, max-age=86400');
      expect((await get(open, { authorization: 'Bearer caller-token-0123456789' })).headers.get('cache-control')).toBe(
        'private, max-age=86400',
      );
      const withKey = await get(keyed, { 'x-api-key': KEY });
      expect(withKey.status).toBe(200);
      expect(withKey.headers.get('cache-control')).toBe('private, max-age=86400');
      expect((await get(keyed)).status).toBe(401);
    } finally {
      await Promise.all([open.close(), keyed.close()]);
    }
  });
});

describe('the real client behind a reverse proxy (TRUSTED_PROXIES)', () => {
  let t: TestGateway | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    await t?.close();
    t = undefined;
  });

  const stream = (headers: Record<string, string>) =>
    rawHttp(t!.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ query: TICKING }),
    });

  it('counts a half-open socket against no client: sockets that never send headers do not refuse their address its requests', async () => {
    t = await startTestGateway({ CLIENT_MAX_CONNECTIONS: '2' });
    const target = new URL(t.gateway.origin);
    for (let i = 0; i < 5; i++)
      sockets.push(connect({ host: target.hostname, port: Number(target.port) }).on('error', () => undefined));
    await Promise.all(sockets.map((s) => new Promise((resolve) => s.once('connect', resolve))));
    expect((await send(t, { path: '/healthz' })).status).toBe(200);
    expect((await send(t, { method: 'POST', body: JSON.stringify({ query: LISTED }) })).status).toBe(200);
  });

  it('believes X-Forwarded-For from a trusted proxy only: behind it each forwarded client has its own caps', async () => {
    t = await startTestGateway({ TRUSTED_PROXIES: 'loopback', CLIENT_MAX_SUBSCRIPTIONS: '1' });
    const a = stream({ 'x-forwarded-for': '203.0.113.1' });
    expect(await a.status).toBe(200);
    expect(await stream({ 'x-forwarded-for': '203.0.113.1' }).status).toBe(429);
    // A client cannot become another by sending the header itself: the proxy appends the address it saw.
    expect(await stream({ 'x-forwarded-for': '203.0.113.2, 203.0.113.1' }).status).toBe(429);
    const b = stream({ 'x-forwarded-for': '203.0.113.2' });
    expect(await b.status).toBe(200);
    a.socket.destroy();
    b.socket.destroy();
  });

  it("ignores X-Forwarded-For from anyone else: the socket's peer is the client", async () => {
    t = await startTestGateway({ CLIENT_MAX_SUBSCRIPTIONS: '1' });
    const a = stream({ 'x-forwarded-for': '203.0.113.1' });
    expect(await a.status).toBe(200);
    expect(await stream({ 'x-forwarded-for': '203.0.113.2' }).status).toBe(429);
    a.socket.destroy();
  });

  it("counts a proxy's sockets per request, against each forwarded client, so one client's streams never refuse another's", async () => {
    t = await startTestGateway({ TRUSTED_PROXIES: '127.0.0.1/8', CLIENT_MAX_CONNECTIONS: '2' });
    const held = [stream({ 'x-forwarded-for': '198.51.100.7' }), stream({ 'x-forwarded-for': '198.51.100.7' })];
    expect(await Promise.all(held.map((c) => c.status))).toEqual([200, 200]);
    const third = stream({ 'x-forwarded-for': '198.51.100.7' });
    expect(await third.status).toBe(429);
    expect(third.received()).toContain('"limit":"CLIENT_MAX_CONNECTIONS","max":2');
    // Every other user of the proxy is served, over sockets of the same proxy address.
    for (let i = 1; i <= 5; i++)
      expect(
        (
          await send(t, {
            method: 'POST',
            headers: { 'x-forwarded-for': `198.51.100.${20 + i}` },
            body: JSON.stringify({ query: LISTED }),
          })
        ).status,
      ).toBe(200);
    // A finished stream gives its client's share back.
    held[0].socket.destroy();
    expect(
      await eventually(async () => {
        const again = stream({ 'x-forwarded-for': '198.51.100.7' });
        const ok = (await again.status) === 200;
        again.socket.destroy();
        return ok;
      }, 5_000),
    ).toBe(true);
    held[1].socket.destroy();
  });
});

describe('the end client behind a federation router (TRUSTED_ROUTER_KEYS, ROUTER_CLIENT_HEADER)', () => {
  let t: TestGateway | undefined;
  const disposers: Array<() => unknown> = [];
  afterEach(async () => {
    await Promise.all(disposers.splice(0).map((d) => d()));
    await t?.close();
    t = undefined;
  });
  const env = { GATEWAY_API_KEYS: KEY, TRUSTED_ROUTER_KEYS: ROUTER_KEY, ROUTER_CLIENT_HEADER: 'x-client-id' };

  /** Subscribes on `client` as Hive Gateway's `propagateHeaders` forwards a client's header: in the operation's extensions. */
  const subscribe = (client: ReturnType<typeof wsClient>, query: string, endClient?: string) =>
    new Promise<{ events: number; code?: string }>((resolve) => {
      let events = 0;
      let code: string | undefined;
      client.subscribe(
        { query, extensions: endClient ? { headers: { 'x-client-id': endClient } } : undefined },
        {
          // A cap's refusal is the operation's one result (`next`, then `complete`); other refusals `error` messages.
          next: (result) => {
            if (result.errors) code ??= result.errors[0]?.extensions?.code as string | undefined;
            else events++;
          },
          error: (errors) =>
            resolve({ events, code: (errors as Array<{ extensions?: { code?: string } }>)[0]?.extensions?.code }),
          complete: () => resolve(code ? { events, code } : { events }),
        },
      );
    });

  it('carries 200 subscriptions of 200 end clients over one router connection, past GATEWAY_WS_MAX_OPERATIONS: each receives its updates', async () => {
    t = await startTestGateway(env);
    const router = wsClient(t.gateway.wsUrl, { 'x-api-key': ROUTER_KEY });
    disposers.push(() => router.dispose());
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        subscribe(router, 'subscription { serverTime(intervalMs: 200, count: 2) }', `user-${i}`),
      ),
    );
    expect(outcomes.filter((o) => o.events === 2 && !o.code)).toHaveLength(200);
    const ops = t.logs.json().filter((l) => l.msg === 'operation' && l.type === 'subscription');
    expect(ops.filter((l) => l.outcome === 'ok')).toHaveLength(200);
  }, 30_000);

  it("caps each end client as a client of its own, on the router's one connection; a router naming no client is one client", async () => {
    t = await startTestGateway({ ...env, CLIENT_MAX_SUBSCRIPTIONS: '3' });
    const router = wsClient(t.gateway.wsUrl, { 'x-api-key': ROUTER_KEY });
    disposers.push(() => router.dispose());
    const a = Array.from({ length: 4 }, () => subscribe(router, TICKING, 'alice'));
    const refused = await Promise.race(a);
    expect(refused.code).toBe('RATE_LIMITED');
    const b = await Promise.race([
      ...Array.from({ length: 3 }, () => subscribe(router, TICKING, 'bob')),
      new Promise((r) => setTimeout(() => r('running'), 500)),
    ]);
    expect(b).toBe('running');
    const unnamed = Array.from({ length: 4 }, () => subscribe(router, TICKING));
    expect((await Promise.race(unnamed)).code).toBe('RATE_LIMITED');
  });

  it('keeps the per-connection cap for a connection without a router key, and believes no client header from it', async () => {
    t = await startTestGateway({ ...env, GATEWAY_WS_MAX_OPERATIONS: '3', CLIENT_MAX_SUBSCRIPTIONS: '100' });
    const browser = wsClient(t.gateway.wsUrl, { 'x-api-key': KEY });
    disposers.push(() => browser.dispose());
    const four = Array.from({ length: 4 }, (_, i) => subscribe(browser, TICKING, `user-${i}`));
    expect(await Promise.race(four)).toMatchObject({ code: 'RATE_LIMITED' });

    const one = await startTestGateway({ ...env, CLIENT_MAX_SUBSCRIPTIONS: '1' });
    try {
      const sse = (key: string, endClient: string) =>
        rawHttp(one.gateway.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'text/event-stream',
            'x-api-key': key,
            'x-client-id': endClient,
          },
          body: JSON.stringify({ query: TICKING }),
        });
      const first = sse(KEY, 'alice');
      expect(await first.status).toBe(200);
      expect(await sse(KEY, 'bob').status).toBe(429);
      // The same over HTTP from the router: each named client has its own cap.
      const alice = sse(ROUTER_KEY, 'alice');
      const bob = sse(ROUTER_KEY, 'bob');
      expect([await alice.status, await bob.status]).toEqual([200, 200]);
      expect(await sse(ROUTER_KEY, 'alice').status).toBe(429);
      for (const c of [first, alice, bob]) c.socket.destroy();
    } finally {
      await one.close();
    }
  });
});

describe("one graphql-ws operation's failure ends that operation only", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ NODE_ENV: 'production' });
  });
  afterAll(() => t.close());

  it("answers an operation whose admission throws with a masked INTERNAL_SERVER_ERROR; the connection's other subscription goes on", async () => {
    const sub = await rawSubscriber(t.gateway.wsUrl);
    sub.subscribe('ticking', TICKING);
    await sub.results('ticking', 1);
    const spy = vi.spyOn(t.gateway.pipeline, 'execute').mockImplementationOnce(() => {
      throw new Error('secret internal detail: db-7.corp.example');
    });
    try {
      sub.subscribe('boom', LISTED);
      const [error] = (await sub.errors('boom')) as Array<{ message: string; extensions: { code: string } }>;
      expect(error.extensions.code).toBe('INTERNAL_SERVER_ERROR');
      expect(error.message).not.toContain('db-7');
      const before = sub.received.get('ticking')!.length;
      await sub.results('ticking', before + 2);
      sub.subscribe('after', LISTED);
      expect(await sub.results('after', 1)).toMatchObject([{ data: { upstreams: expect.any(Array) } }]);
    } finally {
      spy.mockRestore();
      sub.ws.close();
    }
    expect(t.logs.lines.some((l) => l.includes('graphql-ws operation failed') && l.includes('db-7.corp.example'))).toBe(
      true,
    );
  });

  it("refuses a variable nested 100,000 levels deep on one operation and keeps the connection's other operations", async () => {
    const sub = await rawSubscriber(t.gateway.wsUrl);
    sub.subscribe('ticking', TICKING);
    await sub.results('ticking', 1);
    sub.ws.send(
      `{"id":"deep","type":"subscribe","payload":{"query":"{ upstreams { id } }","variables":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}`,
    );
    expect(await sub.errors('deep')).toMatchObject([{ extensions: { code: 'BAD_USER_INPUT', argument: 'variables' } }]);
    const before = sub.received.get('ticking')!.length;
    await sub.results('ticking', before + 2);
    sub.ws.close();
    expect(t.logs.lines.some((l) => l.includes('Maximum call stack'))).toBe(false);
  });
});

describe("logs keep no secret that is not the gateway's own", () => {
  it("redacts credentials in URL userinfo, bearer tokens and key=/secret= pairs inside an upstream's error page, and cuts a long one", async () => {
    const t = await startTestGateway({ NODE_ENV: 'production' });
    try {
      const page = `<html>db error: postgres://admin:hunter2@db-7.internal:5432/app api_key=sk-live-abcdef123456 "client_secret": "s3cr3t-value-xyz" Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload ${'padding '.repeat(2000)}</html>`;
      t.sandbox.faults.push({
        upstream: 'deepseek',
        times: 1,
        status: 500,
        body: { error: { message: page, type: 'server_error' } },
      });
      const r = await t.query(
        'mutation($input: ChatCompletionInput!) { createChatCompletion(input: $input) { content } }',
        {
          input: { provider: 'deepseek', model: 'deepseek-flash', messages: [{ role: 'USER', content: 'hi' }] },
        },
      );
      expect(r.body.errors![0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'deepseek' });
      const line = t.logs.lines.find((l) => l.includes('upstream error masked'));
      expect(line).toBeDefined();
      for (const secret of ['hunter2', 'sk-live-abcdef123456', 's3cr3t-value-xyz', 'eyJhbGciOiJIUzI1NiJ9'])
        expect(line).not.toContain(secret);
      expect(line).toContain('postgres://admin:[REDACTED]@db-7.internal');
      expect(line!.length).toBeLessThan(2_500);
    } finally {
      await t.close();
    }
  });
});
