import { describe, expect, it } from 'vitest';
import { useSandbox } from '../../support/sandbox.js';

const env = useSandbox();
const { control } = env;

const GOOD = {
  grant_type: 'client_credentials',
  client_id: 'sandbox',
  client_secret: 'sandbox',
  scope: 'https://graph.microsoft.com/.default',
};

async function token(
  form: Record<string, string>,
  tenant = 'sandbox',
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${env.sandbox.baseUrls.login}/${tenant}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

const callGraph = (accessToken: string) =>
  fetch(`${env.sandbox.baseUrls.graph}/v1.0/admin/serviceAnnouncement/healthOverviews/Exchange`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });

/** Asserts the identity platform's error body (docs/upstreams.md 1.12) and returns it. */
function expectAad(r: { status: number; body: any }, status: number, error: string, code: number): any {
  expect(r.status).toBe(status);
  expect(Object.keys(r.body)).toEqual([
    'error',
    'error_description',
    'error_codes',
    'timestamp',
    'trace_id',
    'correlation_id',
  ]);
  expect(r.body.error).toBe(error);
  expect(r.body.error_codes).toEqual([code]);
  expect(r.body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z$/);
  expect(r.body.error_description).toMatch(
    new RegExp(
      `^AADSTS${code}: .+\\r\\nTrace ID: ${r.body.trace_id}\\r\\nCorrelation ID: ${r.body.correlation_id}\\r\\nTimestamp: ${r.body.timestamp}$`,
    ),
  );
  return r.body;
}

describe('client-credentials token endpoint', () => {
  it('issues a new bearer token on every call, each accepted by Graph', async () => {
    const a = await token(GOOD);
    const b = await token(GOOD);
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      token_type: 'Bearer',
      expires_in: 3599,
      ext_expires_in: 3599,
      access_token: expect.any(String),
    });
    expect(a.headers.get('cache-control')).toContain('no-store');
    expect(a.body.access_token).not.toBe(b.body.access_token);
    expect((await callGraph(a.body.access_token)).status).toBe(200);
    expect((await callGraph(b.body.access_token)).status).toBe(200);
  });

  it('honours the configured lifetime and expires tokens on the sandbox clock', async () => {
    await control('config', { tokenLifetimeSeconds: 60 });
    const { body } = await token(GOOD);
    expect(body.expires_in).toBe(60);
    await control('clock', { offsetMs: 59_000 });
    expect((await callGraph(body.access_token)).status).toBe(200);
    await control('clock', { offsetMs: 61_000 });
    const expired = await callGraph(body.access_token);
    expect(expired.status).toBe(401);
    const err = (await expired.json()) as any;
    expect(err.error.code).toBe('InvalidAuthenticationToken');
    expect(err.error.message).toBe('Lifetime validation failed, the token is expired.');
    expect((await callGraph('sandbox')).status).toBe(200);
  });

  it('accepts the Graph app id form of the scope', async () => {
    expect((await token({ ...GOOD, scope: '00000003-0000-0000-c000-000000000000/.default' })).status).toBe(200);
  });

  it('uses the client-request-id as correlation id', async () => {
    const res = await fetch(`${env.sandbox.baseUrls.login}/sandbox/oauth2/v2.0/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'client-request-id': 'corr-1' },
      body: new URLSearchParams({ ...GOOD, client_secret: 'wrong' }).toString(),
    });
    expect(
      expectAad({ status: res.status, body: await res.json() }, 401, 'invalid_client', 7000215).correlation_id,
    ).toBe('corr-1');
  });

  it.each([
    ['an unknown GUID tenant', { ...GOOD }, '72f988bf-86f1-41af-91ab-2d7cd011db47', 400, 'invalid_request', 90002],
    ['an unknown domain tenant', { ...GOOD }, 'contoso.onmicrosoft.com', 400, 'invalid_request', 90002],
    ['a tenant that is no DNS name', { ...GOOD }, 'not_a_tenant', 400, 'invalid_request', 900023],
    ['no grant_type', { client_id: 'sandbox' }, 'sandbox', 400, 'invalid_request', 900144],
    ['another grant', { ...GOOD, grant_type: 'password' }, 'sandbox', 400, 'unsupported_grant_type', 70003],
    ['no client_id', { ...GOOD, client_id: '' }, 'sandbox', 400, 'invalid_request', 900144],
    ['no scope', { ...GOOD, scope: '' }, 'sandbox', 400, 'invalid_request', 90014],
    ['a delegated scope', { ...GOOD, scope: 'ServiceHealth.Read.All' }, 'sandbox', 400, 'invalid_scope', 1002012],
    [
      'another resource',
      { ...GOOD, scope: 'https://vault.azure.net/.default' },
      'sandbox',
      400,
      'invalid_resource',
      500011,
    ],
    [
      'an unknown client_id',
      { ...GOOD, client_id: '11111111-2222-3333-4444-555555555555' },
      'sandbox',
      400,
      'unauthorized_client',
      700016,
    ],
    ['no secret', { ...GOOD, client_secret: '' }, 'sandbox', 400, 'invalid_client', 7000216],
    ['a wrong secret', { ...GOOD, client_secret: 'nope' }, 'sandbox', 401, 'invalid_client', 7000215],
  ])('refuses %s', async (_what, form, tenant, status, error, code) => {
    const body = expectAad(await token(form as Record<string, string>, tenant), status, error, code);
    if (code === 90002) expect(body.error_description).toContain(`Tenant '${tenant}' not found`);
    if (code === 700016) expect(body.error_description).toContain("'11111111-2222-3333-4444-555555555555'");
  });

  it('only accepts POST', async () => {
    const res = await fetch(`${env.sandbox.baseUrls.login}/sandbox/oauth2/v2.0/token`);
    expect(
      expectAad({ status: res.status, body: await res.json() }, 400, 'invalid_request', 900561).error_description,
    ).toContain('Received a GET request');
  });

  it('answers an injected fault in the identity platform shape', async () => {
    await control('faults', { upstream: 'login', status: 503, retryAfter: 2 });
    const r = await token(GOOD);
    expectAad(r, 503, 'temporarily_unavailable', 90033);
    expect(r.headers.get('retry-after')).toBe('2');
  });

  it('leaves issued tokens valid across a sandbox reset', async () => {
    const { body } = await token(GOOD);
    await control('reset', {});
    expect((await callGraph(body.access_token)).status).toBe(200);
  });
});
