import type { IncomingMessage } from 'node:http';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMcpAuth, type McpAuth } from '../../../src/transports/mcp/auth.js';
import { startTestIssuer, type TestIssuer } from '../../support/issuer.js';

/**
 * MCP_JWT_JWKS_URL read at most once per cooldown (30 s) while it fails (src/transports/mcp/keySet.ts), as jose reads
 * it at most once per cooldown for an unknown key id: a key set answering 500 is not read once per token.
 */
describe('MCP_AUTH=jwt: a key set that fails', () => {
  let issuer: TestIssuer;
  let auth: McpAuth;
  const request = (token: string) =>
    ({
      headers: { host: '127.0.0.1:4000', authorization: `Bearer ${token}` },
      socket: {},
    }) as unknown as IncomingMessage;
  const later = (ms: number) => vi.setSystemTime(Date.now() + ms);

  beforeEach(async () => {
    // Only the clock jose and the gateway read moves; timers and sockets stay real.
    vi.useFakeTimers({ toFake: ['Date'] });
    issuer = await startTestIssuer('api://gateway');
    auth = createMcpAuth({
      auth: { mode: 'jwt', jwksUrl: issuer.jwksUrl, issuer: issuer.issuer, audience: 'api://gateway' },
      pipeline: undefined as never,
      scopes: [],
    });
  });
  afterEach(async () => {
    vi.useRealTimers();
    await issuer.close();
  });
  afterAll(() => vi.useRealTimers());

  it('is read once for 20 tokens while it answers 500, each refused 503, then once per cooldown until it answers again', async () => {
    issuer.answerJwks(500);
    const token = await issuer.token();
    for (let i = 0; i < 20; i++) {
      const refused = await auth.authenticate(request(token));
      expect(refused).toMatchObject({
        status: 503,
        error: { message: expect.stringMatching(/MCP_JWT_JWKS_URL\) could not be read/) },
      });
    }
    expect(issuer.jwksReads()).toBe(1);

    later(30_001);
    expect(await auth.authenticate(request(token))).toMatchObject({ status: 503 });
    expect(issuer.jwksReads()).toBe(2);
    // Answering again: read when the cooldown is over, not before.
    issuer.answerJwks(200);
    later(10_000);
    expect(await auth.authenticate(request(token))).toMatchObject({ status: 503 });
    expect(issuer.jwksReads()).toBe(2);
    later(20_001);
    expect(await auth.authenticate(request(token))).toMatchObject({ subject: 'agent-user-1', authenticated: true });
    expect(issuer.jwksReads()).toBe(3);
  });

  it('keeps checking tokens with the keys it holds while a read for an unknown key fails, reading once per cooldown', async () => {
    expect(await auth.authenticate(request(await issuer.token()))).toMatchObject({ subject: 'agent-user-1' });
    expect(issuer.jwksReads()).toBe(1);
    issuer.answerJwks(500);
    await issuer.addKey('rotated');
    const rotated = await issuer.token({ sub: 'bob' }, { kid: 'rotated' });
    // Past jose's own cooldown, an unknown key id reads the key set: it fails.
    later(30_001);
    expect(await auth.authenticate(request(rotated))).toMatchObject({ status: 503 });
    expect(issuer.jwksReads()).toBe(2);
    for (let i = 0; i < 20; i++) {
      // The held key still verifies; the unknown one is refused as while jose cools down; nothing is read.
      expect(await auth.authenticate(request(await issuer.token()))).toMatchObject({ subject: 'agent-user-1' });
      expect(await auth.authenticate(request(rotated))).toMatchObject({ status: 401 });
    }
    expect(issuer.jwksReads()).toBe(2);
  });

  it('refuses without reading while the keys it holds are stale and the key set failed a moment ago', async () => {
    const token = await issuer.token({ exp: Math.floor(Date.now() / 1000) + 7200 });
    expect(await auth.authenticate(request(token))).toMatchObject({ subject: 'agent-user-1' });
    issuer.answerJwks(500);
    // jose keeps a key set for 10 minutes, then reads it again before using it.
    later(10 * 60_000 + 1);
    for (let i = 0; i < 20; i++) expect(await auth.authenticate(request(token))).toMatchObject({ status: 503 });
    expect(issuer.jwksReads()).toBe(2);
  });
});
