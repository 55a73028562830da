import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

// A browser page on an origin the gateway does not let in only sees "Failed to fetch" (issue 38). Whoever runs the
// gateway must learn from the answer and from the log which origin knocked and what to set: CORS_ORIGINS for a page
// that calls /graphql, never Apollo's CSRF message about a missing header.
const PAGE = 'http://127.0.0.1:5173';
const FIX = `CORS_ORIGINS=${PAGE}`;

function send(
  t: TestGateway,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; json: any }> {
  const target = new URL(t.gateway.origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, json: text ? JSON.parse(text) : undefined }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What a browser sends before a cross-origin `POST` of JSON. */
const preflight = (t: TestGateway, origin = PAGE) =>
  send(t, 'OPTIONS', '/graphql', {
    origin,
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'content-type',
  });

/** A WebSocket upgrade from `origin`: the status and body it was refused with, or `open`. */
function upgrade(t: TestGateway, origin: string): Promise<'open' | { status: number; json: any }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(t.gateway.wsUrl, 'graphql-transport-ws', { headers: { origin } });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
    });
    ws.on('error', () => undefined);
  });
}

const refusalLines = (t: TestGateway) => t.logs.json().filter((l) => String(l.msg).startsWith('refused a request to'));

describe('a browser origin the gateway does not let in', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(() => t?.close());

  it('gets a 403 whose message names its origin and the CORS_ORIGINS to set, for the preflight and the request alike, and nothing runs', async () => {
    for (const answer of [
      await preflight(t),
      await send(
        t,
        'POST',
        '/graphql',
        { origin: PAGE, 'content-type': 'application/json' },
        JSON.stringify({ query: '{ upstreams { id } }' }),
      ),
    ]) {
      expect(answer.status).toBe(403);
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      expect(answer.json.errors).toEqual([
        {
          message: `Origin "${PAGE}" may not call /graphql from a browser page: list it in CORS_ORIGINS (${FIX}), which lets its pages send requests and read the answers (ALLOWED_ORIGINS alone admits only their WebSockets).`,
          extensions: { code: 'FORBIDDEN', reason: 'ORIGIN_NOT_ALLOWED' },
        },
      ]);
    }
    expect(t.upstreamRequests()).toEqual([]);
    // Not an operation: no operation line, no BAD_USER_INPUT about a missing preflight header.
    expect(t.logs.lines.filter((l) => l.includes('BAD_USER_INPUT') || l.includes('"operation"'))).toEqual([]);
  });

  it('is said once in the log (within a minute), with the origin and the same words', async () => {
    await preflight(t);
    const lines = refusalLines(t).filter((l) => l.origin === PAGE && l.path === '/graphql');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', reason: 'ORIGIN_NOT_ALLOWED' });
    expect(lines[0].msg).toContain(
      `refused a request to /graphql: Origin "${PAGE}" may not call /graphql from a browser page: list it in CORS_ORIGINS (${FIX})`,
    );
  });

  it('is refused its WebSocket, told that CORS_ORIGINS or ALLOWED_ORIGINS admits it, and on other endpoints ALLOWED_ORIGINS', async () => {
    const ws = await upgrade(t, PAGE);
    expect(ws).toMatchObject({
      status: 403,
      json: {
        errors: [
          {
            message: `Origin "${PAGE}" may not open a WebSocket to this gateway: list it in CORS_ORIGINS or ALLOWED_ORIGINS (${FIX}).`,
          },
        ],
      },
    });
    const health = await send(t, 'GET', '/healthz', { origin: PAGE });
    expect(health.status).toBe(403);
    expect(health.json.errors[0].message).toContain('list it in ALLOWED_ORIGINS (or CORS_ORIGINS)');
    expect(refusalLines(t).map((l) => l.path)).toEqual(['/graphql', '/graphql', '/healthz']);
  });

  it('has no value to suggest when its Origin is not an origin', async () => {
    const answer = await preflight(t, 'null');
    expect(answer.json.errors[0].message).toBe(
      'Origin "null" may not call /graphql from a browser page: list it in CORS_ORIGINS, which lets its pages send requests and read the answers (ALLOWED_ORIGINS alone admits only their WebSockets).',
    );
  });
});

describe('a browser origin ALLOWED_ORIGINS admits but CORS_ORIGINS does not list', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ ALLOWED_ORIGINS: PAGE });
  });
  afterAll(() => t?.close());

  it("gets its WebSocket, and for a preflight a 403 naming CORS_ORIGINS instead of CSRF prevention's 400", async () => {
    expect(await upgrade(t, PAGE)).toBe('open');
    const answer = await preflight(t);
    expect(answer.status).toBe(403);
    expect(answer.json.errors[0]).toMatchObject({
      message: expect.stringContaining(`list it in CORS_ORIGINS (${FIX})`),
      extensions: { code: 'FORBIDDEN', reason: 'ORIGIN_NOT_ALLOWED' },
    });
    expect(refusalLines(t).map((l) => [l.path, l.origin])).toEqual([['/graphql', PAGE]]);
    expect(t.logs.lines.filter((l) => l.includes('BAD_USER_INPUT'))).toEqual([]);
  });
});

describe('a browser origin CORS_ORIGINS lists', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ CORS_ORIGINS: PAGE });
  });
  afterAll(() => t?.close());

  it('gets its preflight answered and its WebSocket, and nothing is logged about it', async () => {
    const answer = await preflight(t);
    expect(answer.status).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe(PAGE);
    expect(await upgrade(t, PAGE)).toBe('open');
    expect(refusalLines(t)).toEqual([]);
  });
});
