import { describe, expect, it } from 'vitest';
import { HostOriginCheck } from '../../src/transports/hostOrigin.js';

describe('HostOriginCheck', () => {
  const check = new HostOriginCheck({
    allowedHosts: ['localhost', '.localhost', 'api.example.com', '.corp.example'],
    allowedOrigins: ['https://app.example.com'],
  });
  const reason = (headers: Record<string, string>) => check.refusal(headers)?.extensions.reason;

  it.each([
    'localhost:4000',
    'LocalHost',
    'a.localhost',
    'api.example.com.',
    'x.y.corp.example:8443',
    '127.0.0.1:4000',
    '10.9.8.7',
    '[::1]:4000',
    '[2001:db8::1]',
  ])('lets Host %s in', (host) => {
    expect(check.refusal({ host })).toBeUndefined();
  });

  it.each(['evil.example', 'localhost.evil.example', 'evilcorp.example', 'api.example.com.evil', '[::1', 'a:b:c'])(
    'refuses Host %s',
    (host) => {
      expect(reason({ host })).toBe('HOST_NOT_ALLOWED');
    },
  );

  it('lets in requests without Origin, the same origin and allowed origins; refuses any other, null included', () => {
    expect(check.refusal({ host: 'localhost:4000' })).toBeUndefined();
    expect(check.refusal({ host: 'localhost:4000', origin: 'http://localhost:4000' })).toBeUndefined();
    expect(check.refusal({ host: 'api.example.com', origin: 'https://api.example.com' })).toBeUndefined();
    expect(check.refusal({ host: 'localhost:4000', origin: 'https://app.example.com' })).toBeUndefined();
    expect(reason({ host: 'localhost:4000', origin: 'http://localhost:5173' })).toBe('ORIGIN_NOT_ALLOWED');
    expect(reason({ host: 'localhost:4000', origin: 'null' })).toBe('ORIGIN_NOT_ALLOWED');
    expect(check.refusal({ host: 'localhost:4000', origin: 'http://evil.example' })?.extensions).toEqual({
      code: 'FORBIDDEN',
      reason: 'ORIGIN_NOT_ALLOWED',
      http: { status: 403 },
    });
  });

  it('names the variable by where the request goes: CORS_ORIGINS for /graphql, either for a WebSocket, ALLOWED_ORIGINS elsewhere', () => {
    const headers = { host: 'localhost:4000', origin: 'http://localhost:5173' };
    expect(check.refusal(headers, 'graphql')?.message).toContain(
      'list it in CORS_ORIGINS (CORS_ORIGINS=http://localhost:5173)',
    );
    expect(check.refusal(headers, 'websocket')?.message).toContain(
      'list it in CORS_ORIGINS or ALLOWED_ORIGINS (CORS_ORIGINS=http://localhost:5173)',
    );
    expect(check.refusal(headers)?.message).toContain('list it in ALLOWED_ORIGINS (or CORS_ORIGINS)');
  });

  it('logs each refusal once a minute, and at most 64 different ones a minute', () => {
    const lines: string[] = [];
    const logged = new HostOriginCheck({ allowedHosts: ['localhost'], allowedOrigins: [] }, {
      warn: (_fields: unknown, msg: string) => void lines.push(msg),
    } as never);
    const refuse = (origin: string, at: number) =>
      logged.logRefusal(logged.refusal({ host: 'localhost', origin }, 'graphql')!, { path: '/graphql', origin }, at);
    refuse('http://a.example', 0);
    refuse('http://a.example', 59_999);
    expect(lines).toHaveLength(1);
    for (let i = 0; i < 100; i++) refuse(`http://n${i}.example`, 1_000);
    expect(lines).toHaveLength(64);
    refuse('http://a.example', 60_000);
    expect(lines).toHaveLength(65);
    expect(lines.at(-1)).toMatch(
      /^refused a request to \/graphql: Origin "http:\/\/a\.example" may not call \/graphql/,
    );
  });

  it('describes itself for the start-up log, with a hint when HOST listens on every interface', () => {
    expect(check.describe('0.0.0.0')).toBe(
      'requests are answered for Host localhost, api.example.com, *.localhost, *.corp.example or an IP address (ALLOWED_HOSTS) and browser Origin the same origin or https://app.example.com (ALLOWED_ORIGINS); HOST 0.0.0.0 listens on every interface: list the names clients use in ALLOWED_HOSTS',
    );
  });
});
