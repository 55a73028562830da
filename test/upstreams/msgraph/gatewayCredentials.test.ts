/**
 * The gateway's own credentials refused upstream are the operator's fault, not the caller's: UPSTREAM_ERROR with
 * `reason: GATEWAY_CREDENTIALS_REJECTED` (never UNAUTHENTICATED), one error-level log line naming the variable,
 * `/readyz` naming the upstream, and one upstream request per backoff window however many operations ask.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { seedTitles } from '../../../src/sandbox/omdb/seed.js';
import { GatewayCredentials } from '../../../src/upstreams/credentials.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

const WRONG = 'wrong-credential-0123456789';
const HEALTH = '{ admin { serviceAnnouncement { healthOverviews(first: 1) { nodes { id } } } } }';
const IDS = seedTitles()
  .slice(0, 20)
  .map((t) => t.imdbID);
const COMPLETE = 'mutation($input: ChatCompletionInput!) { createChatCompletion(input: $input) { content } }';

let live: Sandbox;
let t: TestGateway | undefined;
beforeAll(async () => {
  live = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  live.faults.clear();
  live.record.clear();
});
afterAll(() => live.close());

const graphEnv = (secret: string) => ({
  GRAPH_BASE_URL: live.baseUrls.graph,
  GRAPH_AUTHORITY_URL: live.baseUrls.login,
  GRAPH_TENANT_ID: 'sandbox',
  GRAPH_CLIENT_ID: 'sandbox',
  GRAPH_CLIENT_SECRET: secret,
});
const requests = (upstream: string) => live.record.list().filter((r) => r.upstream === upstream);
const errorLines = () => t!.logs.json().filter((l) => l.level === 'error');
const readyz = async () => {
  const res = await fetch(`${t!.gateway.origin}/readyz`);
  return {
    status: res.status,
    body: (await res.json()) as { status: string; upstreams: Array<Record<string, unknown>> },
  };
};

function expectRejected(errors: Array<{ extensions?: Record<string, any> }> | undefined, upstream: string): void {
  expect(errors).toHaveLength(1);
  expect(errors![0].extensions).toMatchObject({
    code: 'UPSTREAM_ERROR',
    reason: 'GATEWAY_CREDENTIALS_REJECTED',
    upstream,
  });
}

describe("a refused credential of the gateway's own", () => {
  it('Graph: 20 operations (10 one after the other, then 10 at once) cost 1 token request and no Graph request', async () => {
    t = await startTestGateway(graphEnv(WRONG));
    const results = [];
    for (let i = 0; i < 10; i++) results.push(await t.query(HEALTH));
    results.push(...(await Promise.all(Array.from({ length: 10 }, () => t!.query(HEALTH)))));
    for (const r of results) {
      expectRejected(r.body.errors, 'graph');
      expect(r.body.errors![0].message).toContain('Fix GRAPH_CLIENT_SECRET');
      expect(r.body.data.admin.serviceAnnouncement.healthOverviews).toBeNull();
    }
    expect(requests('login')).toHaveLength(1);
    expect(requests('graph')).toHaveLength(0);
    // One line for the operator, at error level, naming the variable.
    expect(errorLines()).toHaveLength(1);
    expect(errorLines()[0]).toMatchObject({ upstream: 'graph', variable: 'GRAPH_CLIENT_SECRET' });
    expect(errorLines()[0].msg).toContain('fix GRAPH_CLIENT_SECRET');
    // Still ready (every other domain serves), and says which upstream and which variable.
    const ready = await readyz();
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(ready.body.upstreams.find((u) => u.id === 'graph')).toMatchObject({
      credentials: 'rejected',
      fix: 'GRAPH_CLIENT_SECRET',
    });
    expect(ready.body.upstreams.find((u) => u.id === 'omdb')).toEqual({ id: 'omdb', mode: 'sandbox' });
  });

  it('OMDb: 20 lookups of different titles cost 1 OMDb request', async () => {
    t = await startTestGateway({ OMDB_BASE_URL: live.baseUrls.omdb, OMDB_API_KEY: WRONG });
    for (const id of IDS) {
      const r = await t.query('query($id: ID!) { title(imdbId: $id) { title } }', { id });
      expectRejected(r.body.errors, 'omdb');
      expect(r.body.errors![0].message).toContain('Fix OMDB_API_KEY');
    }
    expect(requests('omdb')).toHaveLength(1);
    expect(errorLines().map((l) => l.variable)).toEqual(['OMDB_API_KEY']);
    expect((await readyz()).body.upstreams.find((u) => u.id === 'omdb')).toMatchObject({
      credentials: 'rejected',
      fix: 'OMDB_API_KEY',
    });
  });

  it('a chat provider: 20 completions cost 1 provider request (its model list, read at start)', async () => {
    t = await startTestGateway({ DEEPSEEK_BASE_URL: live.baseUrls.deepseek, DEEPSEEK_API_KEY: WRONG });
    for (let i = 0; i < 20; i++) {
      const r = await t.query(COMPLETE, {
        input: { provider: 'deepseek', model: 'deepseek-flash', messages: [{ role: 'USER', content: `Hi ${i}` }] },
      });
      expectRejected(r.body.errors, 'deepseek');
      expect(r.body.errors![0].message).toContain('Fix DEEPSEEK_API_KEY');
    }
    expect(requests('deepseek').map((r) => r.url)).toEqual(['/deepseek/v1/models']);
    expect(errorLines().map((l) => l.variable)).toEqual(['DEEPSEEK_API_KEY']);
  });
});

describe('Graph refusing a token', () => {
  it("is the gateway's fault when the token was its own, and UNAUTHENTICATED only when it was the caller's", async () => {
    t = await startTestGateway(graphEnv('sandbox'));
    live.faults.push({ upstream: 'graph', times: 1, status: 401 });
    const own = await t.query(HEALTH);
    expectRejected(own.body.errors, 'graph');
    expect(own.body.errors![0].extensions).toMatchObject({ status: 401, upstreamCode: 'InvalidAuthenticationToken' });
    expect(own.body.errors![0].message).toContain("Microsoft Graph refused the gateway's own token");
    // The token is still held (read without a promise): the next operation sends it again and gets its data.
    const sent = requests('graph').length;
    expect((await t.query(HEALTH)).body.errors).toBeUndefined();
    expect(requests('graph')).toHaveLength(sent + 1);
    // A caller's delegated token refused: theirs to fix.
    const delegated = await startTestGateway({ GRAPH_BASE_URL: live.baseUrls.graph });
    try {
      const caller = await delegated.query(HEALTH, undefined, { authorization: 'Bearer not-a-token-of-anyone' });
      expect(caller.body.errors![0].extensions).toMatchObject({
        code: 'UNAUTHENTICATED',
        upstream: 'graph',
        status: 401,
      });
      expect(caller.body.errors![0].extensions!.reason).toBeUndefined();
    } finally {
      await delegated.close();
    }
  });
});

describe('an outage of the identity platform', () => {
  it('is UPSTREAM_ERROR worded as an outage, without the credentials reason, log line or readiness note', async () => {
    t = await startTestGateway(graphEnv('sandbox'));
    live.faults.push({ upstream: 'login', times: 100, status: 503 });
    const r = await t.query(HEALTH);
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors![0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'graph', status: 503 });
    expect(r.body.errors![0].extensions!.reason).toBeUndefined();
    expect(r.body.errors![0].message).toContain('upstream outage, not a configuration error');
    expect(errorLines().filter((l) => l.variable)).toEqual([]);
    expect((await readyz()).body.upstreams.find((u) => u.id === 'graph')).toEqual({ id: 'graph', mode: 'live' });
    // Once it recovers, the next operation gets its token and its data.
    live.faults.clear();
    const ok = await t.query(HEALTH);
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.admin.serviceAnnouncement.healthOverviews.nodes).toHaveLength(1);
  });
});

describe('GatewayCredentials', () => {
  const log = { error: () => undefined, info: () => undefined } as never;

  it('believes a refusal for its window, doubling per refusal up to the max, and forgets it once accepted', () => {
    let now = 0;
    const c = new GatewayCredentials(log, { initialMs: 1000, maxMs: 3000 }, () => now);
    const details = { upstream: 'omdb', status: 401 };
    c.rejected('omdb', 'OMDB_API_KEY', 'refused.', details);
    expect(() => c.assertUsable('omdb')).toThrow(/Fix OMDB_API_KEY/);
    now = 1000;
    expect(() => c.assertUsable('omdb')).not.toThrow();
    c.rejected('omdb', 'OMDB_API_KEY', 'refused.', details);
    now = 2999;
    expect(() => c.assertUsable('omdb')).toThrow();
    now = 3000;
    c.rejected('omdb', 'OMDB_API_KEY', 'refused.', details);
    expect(c.list()).toEqual([
      {
        upstream: 'omdb',
        variable: 'OMDB_API_KEY',
        since: new Date(0).toISOString(),
        retryAt: new Date(6000).toISOString(),
      },
    ]);
    c.accepted('omdb');
    expect(() => c.assertUsable('omdb')).not.toThrow();
    expect(c.list()).toEqual([]);
  });
});
