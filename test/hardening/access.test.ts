import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { collect, wsClient } from '../support/ws.js';

const KEY = 'gw-key-0123456789abcdef';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('gateway API keys', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ GATEWAY_API_KEYS: `other-key-0000000000,${KEY}` });
  });
  afterAll(() => t.close());

  it('refuses HTTP operations without a valid x-api-key with UNAUTHENTICATED', async () => {
    for (const headers of [{}, { 'x-api-key': 'wrong-key-0123456789abc' }, { 'x-api-key': KEY.slice(0, -1) }] as Record<
      string,
      string
    >[]) {
      const {
        status,
        body,
        headers: answered,
      } = await t.query('{ upstreams { id } }', undefined, {
        ...headers,
        'x-request-id': 'refused-1',
      });
      expect(status).toBe(401);
      expect(answered.get('x-request-id')).toBe('refused-1');
      expect(body.errors![0].extensions).toEqual({ code: 'UNAUTHENTICATED' });
      expect(body.errors![0].message).toMatch(/x-api-key/);
    }
  });

  it('accepts any configured key', async () => {
    const { status, body } = await t.query('{ upstreams { id } }', undefined, { 'x-api-key': KEY });
    expect(status).toBe(200);
    expect(body.data.upstreams).toHaveLength(6);
  });

  it('checks WebSocket connections through connectionParams (browsers cannot set headers)', async () => {
    const denied = wsClient(t.gateway.wsUrl);
    const refused = await collect(denied, '{ upstreams { id } }');
    await denied.dispose();
    expect((refused.error as { code?: number }).code).toBe(4403);
    const allowed = wsClient(t.gateway.wsUrl, { 'x-api-key': KEY });
    const ok = await collect<{ upstreams: unknown[] }>(allowed, '{ upstreams { id } }');
    await allowed.dispose();
    expect(ok.results[0].data!.upstreams).toHaveLength(6);
  });

  it('keeps GraphiQL and health endpoints reachable without a key', async () => {
    expect((await fetch(`${t.gateway.origin}/healthz`)).status).toBe(200);
    expect([200, 503]).toContain((await fetch(`${t.gateway.origin}/`, { headers: { accept: 'text/html' } })).status);
  });

  it('never logs a key', () => {
    expect(t.logs.lines.join('\n')).not.toContain(KEY);
  });
});

describe('CORS allow-list', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ CORS_ORIGINS: 'https://app.example.com' });
  });
  afterAll(() => t.close());

  it('answers a preflight from an allowed origin', async () => {
    const res = await fetch(t.gateway.url, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    expect(res.headers.get('access-control-allow-methods')).toMatch(/POST/);
  });

  it('adds the allow header to real requests from an allowed origin only', async () => {
    const ok = await t.query('{ upstreams { id } }', undefined, { origin: 'https://app.example.com' });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(ok.headers.get('access-control-expose-headers')).toBe('x-request-id');
    // The direct route's one-call head, merged with the CORS headers set before it.
    expect(ok.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(ok.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const other = await t.query('{ upstreams { id } }', undefined, { origin: 'https://evil.example.net' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('persisted operations', () => {
  it('run automatically persisted queries (APQ) by default', async () => {
    const t = await startTestGateway();
    const query = '{ upstreams { id } }';
    const ext = { persistedQuery: { version: 1, sha256Hash: sha256(query) } };
    const post = (body: unknown) =>
      fetch(t.gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<any>);
    const miss = await post({ extensions: ext });
    expect(miss.errors[0].message).toBe('PersistedQueryNotFound');
    expect((await post({ query, extensions: ext })).data.upstreams).toHaveLength(6);
    expect((await post({ extensions: ext })).data.upstreams).toHaveLength(6);
    await t.close();
  });

  it('accept only the manifest operations when PERSISTED_OPERATIONS_FILE is set', async () => {
    const listed = 'query Listed { upstreams { id } }';
    const dir = mkdtempSync(join(tmpdir(), 'persisted-'));
    const file = join(dir, 'manifest.json');
    writeFileSync(
      file,
      JSON.stringify({
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [{ id: sha256(listed), name: 'Listed', type: 'query', body: listed }],
      }),
    );
    const t = await startTestGateway({ PERSISTED_OPERATIONS_FILE: file });
    const byHash = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: sha256(listed) } } }),
    }).then((r) => r.json() as Promise<any>);
    expect(byHash.errors).toBeUndefined();
    expect(byHash.data.upstreams).toHaveLength(6);
    expect((await t.query(listed)).body.data.upstreams).toHaveLength(6);
    const other = await t.query('{ upstreams { id mode } }');
    expect(other.status).toBe(403);
    expect(other.body.errors![0].extensions).toEqual({ code: 'FORBIDDEN', reason: 'PERSISTED_QUERY_NOT_FOUND' });
    const get = await fetch(`${t.gateway.url}?documentId=${sha256(listed)}`, {
      headers: { 'apollo-require-preflight': '1' },
    }).then((r) => r.json() as Promise<any>);
    expect(get.errors).toBeUndefined();
    expect(get.data.upstreams).toHaveLength(6);
    const client = wsClient(t.gateway.wsUrl);
    const ws = await collect(client, '{ upstreams { mode } }');
    await client.dispose();
    expect((ws.error as Array<{ extensions: { code: string } }>)[0].extensions.code).toBe('FORBIDDEN');
    await t.close();
  });
});
