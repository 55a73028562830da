import { afterEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

async function sandboxToken(g: TestGateway): Promise<string> {
  const form = new URLSearchParams({
    client_id: 'sandbox',
    client_secret: 'sandbox',
    scope: 'https://graph.microsoft.com/.default',
    grant_type: 'client_credentials',
  });
  const res = await fetch(`${g.sandbox.origin}/login/sandbox/oauth2/v2.0/token`, {
    method: 'POST',
    body: form,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

const lookup = (id: string) => `{ admin { serviceAnnouncement { healthOverview(id: "${id}") { id service } } } }`;

describe('Graph credentials', () => {
  it("forwards each caller's own token and never crosses two concurrent callers", async () => {
    gw = await startTestGateway();
    const [alice, bob] = [await sandboxToken(gw), await sandboxToken(gw)];
    expect(alice).not.toBe(bob);
    gw.clearUpstreamRequests();
    const runs = Array.from({ length: 10 }, (_, i) =>
      i % 2
        ? gw!.query(lookup('SharePoint'), undefined, { authorization: `Bearer ${bob}` })
        : gw!.query(lookup('Exchange'), undefined, { authorization: `Bearer ${alice}` }),
    );
    const results = await Promise.all(runs);
    for (const r of results) expect(r.body.errors).toBeUndefined();
    results.forEach((r, i) =>
      expect(r.body.data.admin.serviceAnnouncement.healthOverview.id).toBe(i % 2 ? 'SharePoint' : 'Exchange'),
    );
    const calls = gw.upstreamRequests();
    expect(calls.filter((c) => c.upstream === 'login')).toEqual([]);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const c of calls) {
      expect(c.headers.authorization).toBe(c.url.includes('/Exchange?') ? `Bearer ${alice}` : `Bearer ${bob}`);
    }
  });

  it('sends concurrent identical lookups once per caller token, never sharing an answer between two tokens', async () => {
    gw = await startTestGateway();
    const [alice, bob] = [await sandboxToken(gw), await sandboxToken(gw)];
    // Slow answers keep every operation in flight at once, so each (token, request) pair is sent exactly once.
    gw.sandbox.faults.push({ upstream: 'graph', times: 20, delayMs: 1500 });
    gw.clearUpstreamRequests();
    const runs = Array.from({ length: 10 }, (_, i) =>
      gw!.query(lookup('Exchange'), undefined, { authorization: `Bearer ${i % 2 ? bob : alice}` }),
    );
    const results = await Promise.all(runs);
    for (const r of results) expect(r.body.data).toEqual(results[0].body.data);
    const calls = gw.upstreamRequests('graph');
    // A shared request counts for the operation that sent it: one per token.
    expect(results.reduce((n, r) => n + r.body.extensions!.cost.upstreamRequests, 0)).toBe(2);
    expect(calls.map((c) => c.headers.authorization).sort()).toEqual([`Bearer ${alice}`, `Bearer ${bob}`].sort());
    // A caller's bad token is not hidden behind another caller's good one.
    const [good, bad] = await Promise.all([
      gw.query(lookup('Intune'), undefined, { authorization: `Bearer ${alice}` }),
      gw.query(lookup('Intune'), undefined, { authorization: 'Bearer not-a-token' }),
    ]);
    expect(good.body.errors).toBeUndefined();
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('asks the identity platform once for any number of concurrent operations in application mode', async () => {
    gw = await startTestGateway();
    // Slow answers keep all twelve in flight at once: identical lookups share one request.
    gw.sandbox.faults.push({ upstream: 'graph', times: 20, delayMs: 1500 });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => gw!.query(lookup(i % 2 ? 'Exchange' : 'Intune'))),
    );
    for (const r of results) expect(r.body.errors).toBeUndefined();
    const logins = gw.upstreamRequests('login');
    expect(logins).toHaveLength(1);
    expect(logins[0].method).toBe('POST');
    expect(Object.fromEntries(new URLSearchParams(logins[0].body))).toMatchObject({
      grant_type: 'client_credentials',
      scope: 'https://graph.microsoft.com/.default',
    });
    const graph = gw.upstreamRequests('graph');
    expect(graph.map((c) => c.url.split('?')[0].split('/').pop()).sort()).toEqual(['Exchange', 'Intune']);
    expect(new Set(graph.map((c) => c.headers.authorization)).size).toBe(1);
    // The cached token serves later operations too.
    await gw.query(lookup('Exchange'));
    expect(gw.upstreamRequests('login')).toHaveLength(1);
  });

  it('refuses a live delegated call without a caller token as UNAUTHENTICATED before any upstream call', async () => {
    gw = await startTestGateway({ GRAPH_BASE_URL: 'http://127.0.0.1:9', GRAPH_AUTHORITY_URL: 'http://127.0.0.1:9' });
    const r = await gw.query(lookup('Exchange'));
    expect(r.body.data?.admin.serviceAnnouncement.healthOverview).toBeNull();
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', upstream: 'graph' });
    expect(r.body.errors?.[0]?.message).toContain('Authorization: Bearer');
  });

  it('maps an upstream 401 to UNAUTHENTICATED and 403 to FORBIDDEN, with Graph code and request id', async () => {
    gw = await startTestGateway();
    const denied = await gw.query(lookup('Exchange'), undefined, { authorization: 'Bearer not-a-token' });
    expect(denied.body.errors?.[0]?.extensions).toMatchObject({
      code: 'UNAUTHENTICATED',
      status: 401,
      upstreamCode: 'InvalidAuthenticationToken',
    });
    expect(denied.body.errors?.[0]?.extensions?.upstreamRequestId).toBeTruthy();
    expect(denied.body.errors?.[0]?.message).not.toContain('not-a-token');
    gw.sandbox.faults.push({ upstream: 'graph', times: 1, status: 403 });
    const forbidden = await gw.query(
      '{ admin { serviceAnnouncement { healthOverviews(first: 1) { nodes { id } } } } }',
    );
    expect(forbidden.body.errors?.[0]?.extensions).toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
      upstreamCode: 'accessDenied',
    });
  });
});
