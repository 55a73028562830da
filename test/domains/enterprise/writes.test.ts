import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { graphCalls, resetSandbox } from '../../support/graphRequests.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());
beforeEach(() => resetSandbox(gw));

const ITEM = '/admin/serviceAnnouncement/healthOverviews';
const etagOf = async (id: string): Promise<string> =>
  (await gw.query(`{ admin { serviceAnnouncement { healthOverview(id: "${id}") { etag } } } }`)).body.data.admin
    .serviceAnnouncement.healthOverview.etag;

describe('writes', () => {
  it('updates a service with its current etag and refuses the stale one as PRECONDITION_FAILED', async () => {
    const etag = await etagOf('Exchange');
    gw.clearUpstreamRequests();
    const update = `mutation($ifMatch: String, $status: ServiceHealthStatus) { updateServiceHealth(id: "Exchange", input: { status: $status }, ifMatch: $ifMatch) { id status etag } }`;
    const ok = await gw.query(update, { ifMatch: etag, status: 'SERVICE_DEGRADATION' });
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.updateServiceHealth).toMatchObject({ id: 'Exchange', status: 'SERVICE_DEGRADATION' });
    expect(ok.body.data.updateServiceHealth.etag).not.toBe(etag);
    const calls = gw.upstreamRequests('graph');
    expect(graphCalls(gw)).toEqual([`PATCH ${ITEM}/Exchange`]);
    expect(calls[0].headers['if-match']).toBe(etag);
    expect(JSON.parse(calls[0].body)).toEqual({ status: 'serviceDegradation' });

    const stale = await gw.query(update, { ifMatch: etag, status: 'SERVICE_OPERATIONAL' });
    expect(stale.body.errors?.[0]?.extensions).toMatchObject({
      code: 'PRECONDITION_FAILED',
      status: 412,
      upstreamCode: 'resourceModified',
    });
    expect(stale.body.errors?.[0]?.message).toContain('etag');
  });

  it('refuses an ifMatch that is not an entity tag before any upstream call', async () => {
    gw.clearUpstreamRequests();
    const r = await gw.query('mutation { deleteServiceHealth(id: "Exchange", ifMatch: "abc") }');
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'ifMatch' });
    expect(gw.upstreamRequests()).toEqual([]);
  });

  it('creates a service, adds an issue to it, reads it back in one request and deletes it', async () => {
    const created = await gw.query(
      'mutation { createServiceHealth(input: { id: "Contoso", service: "Contoso Portal", status: INVESTIGATING }) { id service status etag } }',
    );
    expect(created.body.data.createServiceHealth).toMatchObject({
      id: 'Contoso',
      service: 'Contoso Portal',
      status: 'INVESTIGATING',
    });
    const duplicate = await gw.query(
      'mutation { createServiceHealth(input: { id: "Contoso", service: "Again" }) { id } }',
    );
    expect(duplicate.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', status: 409 });

    const issue = await gw.query(`mutation { createServiceHealthIssue(serviceHealthId: "Contoso", input: {
      title: "Sign-in fails", classification: INCIDENT, origin: THIRD_PARTY, details: [{ name: "NotifyInApp", value: "True" }],
      posts: [{ postType: QUICK, description: { contentType: TEXT, content: "Looking into it" } }] }) {
      id title classification origin status service details { name value } posts { postType description { contentType content } } } }`);
    expect(issue.body.errors).toBeUndefined();
    expect(issue.body.data.createServiceHealthIssue).toMatchObject({
      title: 'Sign-in fails',
      classification: 'INCIDENT',
      origin: 'THIRD_PARTY',
      service: 'Contoso Portal',
      details: [{ name: 'NotifyInApp', value: 'True' }],
      posts: [{ postType: 'QUICK', description: { contentType: 'TEXT', content: 'Looking into it' } }],
    });

    gw.clearUpstreamRequests();
    const read = await gw.query(
      '{ admin { serviceAnnouncement { healthOverview(id: "Contoso") { issues { nodes { id title } } } } } }',
    );
    expect(read.body.data.admin.serviceAnnouncement.healthOverview.issues.nodes).toEqual([
      { id: issue.body.data.createServiceHealthIssue.id, title: 'Sign-in fails' },
    ]);
    expect(graphCalls(gw)).toEqual([`GET ${ITEM}/Contoso?$select=id&$expand=issues($select=id,title)`]);

    const deleted = await gw.query('mutation { deleteServiceHealth(id: "Contoso", ifMatch: "*") }');
    expect(deleted.body.data.deleteServiceHealth).toBe(true);
    const again = await gw.query('mutation { deleteServiceHealth(id: "Contoso") }');
    expect(again.body.data.deleteServiceHealth).toBe(false);
  });

  it('stores primitive properties on the admin and serviceAnnouncement singletons', async () => {
    const admin = await gw.query(
      'mutation { updateAdmin(input: { properties: [{ name: "displayName", value: "Contoso IT" }] }) { etag properties { name value } } }',
    );
    expect(admin.body.data.updateAdmin.properties).toEqual([{ name: 'displayName', value: 'Contoso IT' }]);
    const sa = await gw.query(
      'mutation { updateServiceAnnouncement(input: { properties: [{ name: "owner", value: "ops" }] }) { etag } }',
    );
    const etag = sa.body.data.updateServiceAnnouncement.etag;
    gw.clearUpstreamRequests();
    const read = await gw.query(
      '{ admin { etag properties { name value } serviceAnnouncement { etag properties { name value } } } }',
    );
    expect(read.body.data.admin.properties).toEqual([{ name: 'displayName', value: 'Contoso IT' }]);
    expect(read.body.data.admin.serviceAnnouncement).toEqual({ etag, properties: [{ name: 'owner', value: 'ops' }] });
    expect(graphCalls(gw).sort()).toEqual(['GET /admin', 'GET /admin/serviceAnnouncement']);
    const stale = await gw.query('mutation { deleteServiceAnnouncement(ifMatch: "W/\\"old\\"") }');
    expect(stale.body.errors?.[0]?.extensions?.code).toBe('PRECONDITION_FAILED');
    const deleted = await gw.query('mutation($e: String) { deleteServiceAnnouncement(ifMatch: $e) }', { e: etag });
    expect(deleted.body.data.deleteServiceAnnouncement).toBe(true);
  });

  it('refuses writing UNKNOWN_FUTURE_VALUE and reserved property names before any upstream call', async () => {
    gw.clearUpstreamRequests();
    const a = await gw.query(
      'mutation { createServiceHealth(input: { id: "X", service: "X", status: UNKNOWN_FUTURE_VALUE }) { id } }',
    );
    const b = await gw.query(
      'mutation { updateAdmin(input: { properties: [{ name: "@odata.type", value: "x" }] }) { etag } }',
    );
    expect(a.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(b.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(gw.upstreamRequests()).toEqual([]);
  });
});

describe('retries', () => {
  it('succeeds after two 429s, honouring Retry-After, with 3 recorded requests', async () => {
    await gw.query('{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { id } } } }');
    gw.clearUpstreamRequests();
    gw.sandbox.faults.push({ upstream: 'graph', times: 2, status: 429, retryAfter: 0 });
    const r = await gw.query('{ admin { serviceAnnouncement { healthOverviews(first: 2) { nodes { id } } } } }');
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.admin.serviceAnnouncement.healthOverviews.nodes).toHaveLength(2);
    expect(graphCalls(gw)).toEqual(Array(3).fill(`GET ${ITEM}?$select=id&$top=2`));
    expect(gw.upstreamRequests('graph').map((c) => c.status)).toEqual([429, 429, 200]);
  });

  it('reports UPSTREAM_RATE_LIMITED when throttling outlasts the retries, leaving other fields intact', async () => {
    gw.sandbox.faults.push({
      upstream: 'graph',
      times: 10,
      status: 429,
      retryAfter: 0,
      match: 'healthOverviews/Exchange?',
    });
    const r = await gw.query(
      '{ admin { serviceAnnouncement { list: healthOverviews(first: 2) { nodes { id } } one: healthOverview(id: "Exchange") { id } } } }',
    );
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors?.[0]?.path).toEqual(['admin', 'serviceAnnouncement', 'one']);
    expect(r.body.errors?.[0]?.extensions).toMatchObject({
      code: 'UPSTREAM_RATE_LIMITED',
      upstream: 'graph',
      status: 429,
      upstreamCode: 'TooManyRequests',
      retryAfter: 0,
    });
    expect(r.body.data?.admin.serviceAnnouncement.list.nodes).toHaveLength(2);
    expect(gw.upstreamRequests('graph').filter((c) => c.url.includes('/Exchange?'))).toHaveLength(4);
    gw.sandbox.faults.clear();
  });
});
