import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SignJWT } from 'jose';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/env.js';
import { createMcpAuth } from '../../../src/transports/mcp/auth.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startTestIssuer, type TestIssuer } from '../../support/issuer.js';

/** What MCP clients ask tokens for (RFC 8707): the public URL of /mcp, as the guide says to set it. */
const AUDIENCE = 'https://gateway.example/mcp';
const METADATA_URL = 'https://gateway.example/.well-known/oauth-protected-resource/mcp';
const API_KEY = 'mcp-test-key-0123456789';

async function connect(t: TestGateway, token?: string): Promise<Client> {
  const client = new Client({ name: 'agent-platform', version: '1.0.0' });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.gateway.origin}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

/** A raw `initialize` POST, to read the status, the challenge and the body a refusal gets. */
async function initialize(t: TestGateway, authorization?: string) {
  const res = await fetch(`${t.gateway.origin}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  return {
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    body: (await res.json()) as { error?: { message: string; data?: Record<string, unknown> }; result?: unknown },
  };
}

describe('/mcp with MCP_AUTH=jwt: an OAuth 2.1 resource server', () => {
  let issuer: TestIssuer;
  let t: TestGateway;
  let operations: string;
  beforeAll(async () => {
    issuer = await startTestIssuer(AUDIENCE);
    operations = mkdtempSync(join(tmpdir(), 'mcp-scoped-'));
    writeFileSync(
      join(operations, 'ops.graphql'),
      '# One service\'s health by its id, such as "Exchange".\n# @scope health:read\nquery ScopedHealth($id: ID!) { admin { serviceAnnouncement { healthOverview(id: $id) { id status } } } }\n\n' +
        '# The upstreams this gateway reaches.\nquery Upstreams { upstreams { id } }\n',
    );
    t = await startTestGateway({
      MCP_AUTH: 'jwt',
      MCP_JWT_JWKS_URL: issuer.jwksUrl,
      MCP_JWT_ISSUER: issuer.issuer,
      MCP_JWT_AUDIENCE: AUDIENCE,
      MCP_OPERATIONS: operations,
    });
  });
  afterAll(async () => {
    await t?.close();
    await issuer?.close();
  });

  it('serves its protected-resource metadata (RFC 9728) at the root well-known path and at the one derived for /mcp', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const res = await fetch(`${t.gateway.origin}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual({
        resource: AUDIENCE,
        authorization_servers: [issuer.issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['health:read'],
        resource_name: 'GraphQL gateway tools (MCP)',
      });
    }
  });

  it('lets in a valid token: its subject is the caller of the operation, and the token is never sent upstream', async () => {
    const token = await issuer.token({ sub: 'alice@example.com', scope: 'health:read' });
    const client = await connect(t, token);
    try {
      t.clearUpstreamRequests();
      const result = await client.callTool({ name: 'ScopedHealth', arguments: { id: 'Exchange' } });
      expect(result.isError).toBe(false);
      expect((result.structuredContent as any).data.admin.serviceAnnouncement.healthOverview.id).toBe('Exchange');
      const graph = t.upstreamRequests('graph').filter((r) => !r.url.includes('/oauth2/'));
      expect(graph).toHaveLength(1);
      expect(JSON.stringify(graph[0].headers)).not.toContain(token);
      const line = t.logs
        .json()
        .filter((l) => l.msg === 'operation' && l.transport === 'mcp')
        .at(-1);
      expect(line).toMatchObject({ operation: 'ScopedHealth', outcome: 'ok', subject: 'alice@example.com' });
      expect(t.logs.lines.join('\n')).not.toContain(token);
    } finally {
      await client.close();
    }
  });

  it('reads the key set once and keeps it', async () => {
    const reads = issuer.jwksReads();
    expect(reads).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 3; i++) expect((await initialize(t, `Bearer ${await issuer.token()}`)).status).toBe(200);
    expect(issuer.jwksReads()).toBe(reads);
  });

  it('refuses a missing or bad token with 401 and a challenge pointing at the metadata, before any upstream request', async () => {
    await issuer.addKey('unpublished', { publish: false });
    await issuer.addKey('rs-key', { alg: 'RS256' });
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string | undefined, RegExp]> = [
      ['token missing', undefined, /needs an OAuth access token: send "Authorization: Bearer <token>"/],
      [
        'wrong audience',
        `Bearer ${await issuer.token({ aud: 'https://other.example/mcp' })}`,
        /not issued for this server: its audience must be https:\/\/gateway.example\/mcp \(MCP_JWT_AUDIENCE\)/,
      ],
      ['expired', `Bearer ${await issuer.token({ iat: now - 7200, exp: now - 3600 })}`, /has expired/],
      [
        'unknown key',
        `Bearer ${await issuer.token({}, { kid: 'unpublished' })}`,
        /signed by a key the authorization server does not publish/,
      ],
      [
        'wrong issuer',
        `Bearer ${await issuer.token({ iss: 'https://evil.example/' })}`,
        /issued by another authorization server/,
      ],
      ['no subject', `Bearer ${await issuer.token({ sub: undefined })}`, /names no subject|"sub" claim/],
      [
        'forged signature',
        `Bearer ${(await issuer.token()).replace(/\.[^.]+$/, '.AAAA')}`,
        /signature does not verify|not a valid JWT/,
      ],
      [
        'symmetric HS256',
        `Bearer ${await new SignJWT({ sub: 'x', aud: AUDIENCE, iss: issuer.issuer }).setProtectedHeader({ alg: 'HS256', kid: 'key-1' }).setExpirationTime('1h').sign(new TextEncoder().encode('a-shared-secret-of-32-bytes-long!'))}`,
        /algorithm \/mcp does not accept/,
      ],
      ['not a bearer token', 'Basic dXNlcjpwYXNz', /needs an OAuth access token/],
    ];
    const figures: Record<string, { status: number; upstreamRequests: number }> = {};
    for (const [name, authorization, message] of cases) {
      t.clearUpstreamRequests();
      const { status, challenge, body } = await initialize(t, authorization);
      figures[name] = { status, upstreamRequests: t.upstreamRequests().length };
      expect(status, name).toBe(401);
      expect(body.error?.message, name).toMatch(message);
      expect(body.error?.data, name).toMatchObject({ code: 'UNAUTHENTICATED' });
      if (authorization?.startsWith('Bearer ')) {
        expect(challenge, name).toMatch(
          new RegExp(`^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="${METADATA_URL}"$`),
        );
      } else expect(challenge, name).toBe(`Bearer resource_metadata="${METADATA_URL}"`);
    }
    expect(figures).toEqual(Object.fromEntries(cases.map(([name]) => [name, { status: 401, upstreamRequests: 0 }])));
  });

  it('an unknown key id read within 30 s of the last read does not read the key set again (a flood of made-up ids costs the issuer nothing)', async () => {
    const reads = issuer.jwksReads();
    for (let i = 0; i < 5; i++)
      expect((await initialize(t, `Bearer ${await issuer.token({}, { kid: 'unpublished' })}`)).status).toBe(401);
    expect(issuer.jwksReads()).toBe(reads);
  });

  it('the SDK client sees the refusal as HTTP 401 and nothing runs', async () => {
    t.clearUpstreamRequests();
    await expect(connect(t)).rejects.toMatchObject({
      code: 401,
      message: expect.stringMatching(/needs an OAuth access token/),
    });
    await expect(connect(t, await issuer.token({ aud: 'https://other.example/mcp' }))).rejects.toMatchObject({
      code: 401,
      message: expect.stringMatching(/not issued for this server/),
    });
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('a tool whose comment names a scope needs it: 403 insufficient_scope naming it, so the client can ask for more', async () => {
    const without = await issuer.token({ scope: 'titles:read' });
    const client = await connect(t, without);
    try {
      t.clearUpstreamRequests();
      expect((await client.callTool({ name: 'Upstreams', arguments: {} })).isError).toBe(false);
      await expect(client.callTool({ name: 'ScopedHealth', arguments: { id: 'Exchange' } })).rejects.toMatchObject({
        code: 403,
      });
      expect(t.upstreamRequests('graph')).toHaveLength(0);
    } finally {
      await client.close();
    }
    const res = await fetch(`${t.gateway.origin}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${without}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'ScopedHealth', arguments: { id: 'Exchange' } },
      }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="health:read", error_description="ScopedHealth needs health:read", resource_metadata="${METADATA_URL}"`,
    );
    expect(((await res.json()) as any).error).toMatchObject({
      message:
        'ScopedHealth needs the scope health:read; the token lacks health:read: ask the authorization server for a token with it.',
      data: { code: 'FORBIDDEN' },
    });
  });

  it("Entra ID's scp claim counts as the token's scopes", async () => {
    const client = await connect(t, await issuer.token({ scope: undefined, scp: 'health:read other' }));
    try {
      expect((await client.callTool({ name: 'ScopedHealth', arguments: { id: 'Exchange' } })).isError).toBe(false);
    } finally {
      await client.close();
    }
  });
});

describe('MCP_AUTH=jwt: the key set', () => {
  let issuer: TestIssuer;
  beforeAll(async () => {
    issuer = await startTestIssuer('api://gateway');
  });
  afterAll(() => issuer?.close());

  const request = (token?: string) =>
    ({
      headers: { host: '127.0.0.1:4000', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      socket: {},
    }) as unknown as IncomingMessage;

  it('is read again for a key id it does not know once the cooldown passed: a rotated key is accepted', async () => {
    const auth = createMcpAuth({
      auth: { mode: 'jwt', jwksUrl: issuer.jwksUrl, issuer: issuer.issuer, audience: 'api://gateway' },
      pipeline: undefined as never,
      scopes: [],
      jwksCooldownMs: 0,
    });
    expect(await auth.authenticate(request(await issuer.token()))).toMatchObject({
      subject: 'agent-user-1',
      authenticated: true,
    });
    expect(issuer.jwksReads()).toBe(1);
    expect(await auth.authenticate(request(await issuer.token()))).toMatchObject({ subject: 'agent-user-1' });
    expect(issuer.jwksReads()).toBe(1);
    await issuer.addKey('rotated');
    expect(await auth.authenticate(request(await issuer.token({ sub: 'bob' }, { kid: 'rotated' })))).toMatchObject({
      subject: 'bob',
    });
    expect(issuer.jwksReads()).toBe(2);
  });

  it('with an audience that is not a URL, the resource is /mcp as the request reached it', async () => {
    const auth = createMcpAuth({
      auth: { mode: 'jwt', jwksUrl: issuer.jwksUrl, issuer: issuer.issuer, audience: 'api://gateway' },
      pipeline: undefined as never,
      scopes: [],
    });
    expect(auth.resource(request())).toMatchObject({
      resource: 'http://127.0.0.1:4000/mcp',
      metadataUrl: 'http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp',
    });
    expect(await auth.authenticate(request())).toMatchObject({
      status: 401,
      challenge: 'Bearer resource_metadata="http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp"',
    });
  });

  it("an unreachable key set is 503, not the caller's fault", async () => {
    const auth = createMcpAuth({
      auth: { mode: 'jwt', jwksUrl: 'http://127.0.0.1:9/jwks.json', issuer: issuer.issuer, audience: 'api://gateway' },
      pipeline: undefined as never,
      scopes: [],
    });
    const refused = await auth.authenticate(request(await issuer.token()));
    expect(refused).toMatchObject({ status: 503 });
    expect((refused as { error: Error }).error.message).toMatch(/MCP_JWT_JWKS_URL\) could not be read/);
  });
});

describe('MCP_AUTH: the modes', () => {
  it('defaults to api-key when GATEWAY_API_KEYS is set, else none', () => {
    expect(loadConfig({}).mcp.auth).toEqual({ mode: 'none' });
    expect(loadConfig({ GATEWAY_API_KEYS: API_KEY }).mcp.auth).toEqual({ mode: 'api-key' });
  });

  it('refuses to start with what a mode needs missing, or with token settings and no jwt', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        return (error as ConfigError).problems.map((p) => `${p.variable}: ${p.message}`);
      }
    };
    expect(problems({ MCP_AUTH: 'jwt', MCP_JWT_ISSUER: 'https://login.example/' })).toEqual([
      'MCP_JWT_JWKS_URL: is required with MCP_AUTH=jwt',
      'MCP_JWT_AUDIENCE: is required with MCP_AUTH=jwt',
    ]);
    expect(problems({ MCP_AUTH: 'api-key' })).toEqual([
      'MCP_AUTH: is api-key, but GATEWAY_API_KEYS is not set: set the keys, or use jwt or none',
    ]);
    expect(problems({ MCP_JWT_AUDIENCE: 'https://gateway.example/mcp' })).toEqual([
      'MCP_JWT_AUDIENCE: is read only with MCP_AUTH=jwt, and MCP_AUTH is none: set MCP_AUTH=jwt or unset MCP_JWT_AUDIENCE',
    ]);
    expect(problems({ MCP_AUTH: 'oauth' })[0]).toMatch(/^MCP_AUTH: must be one of none, api-key, jwt/);
  });

  it('none opens /mcp even with GATEWAY_API_KEYS (the other endpoints keep needing a key), and says so at start', async () => {
    const t = await startTestGateway({ GATEWAY_API_KEYS: API_KEY, MCP_AUTH: 'none' });
    try {
      const client = await connect(t);
      expect((await client.callTool({ name: 'ChatProviders', arguments: {} })).isError).toBe(false);
      await client.close();
      expect((await t.query('{ upstreams { id } }')).status).toBe(401);
      expect(
        t.logs.json().some((l) => l.level === 'warn' && /MCP_AUTH=none lets anyone call \/mcp/.test(String(l.msg))),
      ).toBe(true);
      expect((await fetch(`${t.gateway.origin}/.well-known/oauth-protected-resource`)).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
