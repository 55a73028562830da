import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

/**
 * DNS rebinding at /mcp (the MCP specification: a server MUST validate `Origin`): the Host and Origin checks of every
 * endpoint (ALLOWED_HOSTS, ALLOWED_ORIGINS, from the trust-boundaries work) hold for /mcp and its metadata, and a
 * refused request runs no tool.
 */
function post(
  t: TestGateway,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(t.gateway.origin);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'ServiceHealth', arguments: { id: 'Exchange' } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname,
        port,
        path,
        method: path === '/mcp' ? 'POST' : 'GET',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.on('error', reject);
    req.end(path === '/mcp' ? body : undefined);
  });
}

describe('/mcp: Host and Origin (DNS rebinding)', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ ALLOWED_ORIGINS: 'https://agent.example' });
  });
  afterAll(async () => t?.close());

  it('refuses a rebound Host and a foreign Origin with 403 before any tool runs', async () => {
    const figures: Record<string, { status: number; upstreamRequests: number }> = {};
    for (const [name, headers] of [
      ['Host: evil.example', { host: `evil.example:${new URL(t.gateway.origin).port}` }],
      ['Origin: http://evil.example', { origin: 'http://evil.example' }],
    ] as const) {
      t.clearUpstreamRequests();
      const { status } = await post(t, '/mcp', headers);
      figures[name] = { status, upstreamRequests: t.upstreamRequests().length };
    }
    expect(figures).toEqual({
      'Host: evil.example': { status: 403, upstreamRequests: 0 },
      'Origin: http://evil.example': { status: 403, upstreamRequests: 0 },
    });
  });

  it('serves a loopback Host, a listed Origin, and a client that sends no Origin (an agent, curl)', async () => {
    const allowed: Array<Record<string, string>> = [
      { host: `localhost:${new URL(t.gateway.origin).port}` },
      { origin: 'https://agent.example' },
      {},
    ];
    for (const headers of allowed) {
      const { status, body } = await post(t, '/mcp', headers);
      expect(status, JSON.stringify(headers)).toBe(200);
      expect(JSON.parse(body).result, JSON.stringify(headers)).toMatchObject({
        isError: false,
        structuredContent: { data: { admin: { serviceAnnouncement: { healthOverview: { id: 'Exchange' } } } } },
      });
    }
  });
});
