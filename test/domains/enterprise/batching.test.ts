import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { batchItems, graphCalls } from '../../support/graphRequests.js';

let gw: TestGateway;
beforeAll(async () => {
  // 45 aliased lookups in one operation are above the default alias limit (30) on purpose.
  gw = await startTestGateway({ GATEWAY_MAX_ALIASES: '100' });
});
afterAll(() => gw?.close());
beforeEach(() => {
  gw.sandbox.faults.clear();
  gw.clearUpstreamRequests();
});

const ITEM = '/admin/serviceAnnouncement/healthOverviews';

describe('healthOverview(id:) lookups across an operation', () => {
  it('sends one id as a plain GET', async () => {
    const r = await gw.query(
      '{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { id service etag } } } }',
    );
    expect(r.body.data.admin.serviceAnnouncement.healthOverview).toMatchObject({
      id: 'Exchange',
      service: 'Exchange Online',
    });
    expect(r.body.data.admin.serviceAnnouncement.healthOverview.etag).toMatch(/^W\/".+"$/);
    expect(graphCalls(gw)).toEqual([`GET ${ITEM}/Exchange?$select=id,service`]);
  });

  it('sends three aliased lookups as one $batch', async () => {
    const r = await gw.query(`{ admin { serviceAnnouncement {
      a: healthOverview(id: "Exchange") { service }
      b: healthOverview(id: "SharePoint") { status }
      c: healthOverview(id: "microsoftteams") { service status } } } }`);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.admin.serviceAnnouncement.c.service).toBe('Microsoft Teams');
    const calls = gw.upstreamRequests('graph');
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /graph/v1.0/$batch']);
    expect(batchItems(calls[0])).toEqual([
      `GET ${ITEM}/Exchange?$select=id,service`,
      `GET ${ITEM}/SharePoint?$select=id,status`,
      `GET ${ITEM}/microsoftteams?$select=id,service,status`,
    ]);
  });

  it('dedupes one id selected in several places (aliases, fragments, two admin fields) into one item with the union $select', async () => {
    const r = await gw.query(`
      query { first: admin { serviceAnnouncement { x: healthOverview(id: "Exchange") { service } ...More } }
              second: admin { serviceAnnouncement { y: healthOverview(id: "Exchange") { status } } } }
      fragment More on ServiceAnnouncement { z: healthOverview(id: "Exchange") { id } }`);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.second.serviceAnnouncement.y.status).toMatch(/^[A-Z_]+$/);
    expect(graphCalls(gw)).toEqual([`GET ${ITEM}/Exchange?$select=id,service,status`]);
  });

  it('sends 45 distinct ids as 3 $batch requests of at most 20', async () => {
    const list = await gw.query('{ admin { serviceAnnouncement { healthOverviews(first: 999) { nodes { id } } } } }');
    const known: string[] = list.body.data.admin.serviceAnnouncement.healthOverviews.nodes.map(
      (n: { id: string }) => n.id,
    );
    const ids = [...known, ...Array.from({ length: 45 }, (_, i) => `Missing${i}`)].slice(0, 45);
    gw.clearUpstreamRequests();
    const query = `{ admin { serviceAnnouncement { ${ids.map((id, i) => `s${i}: healthOverview(id: "${id}") { id }`).join(' ')} } } }`;
    const r = await gw.query(query);
    expect(r.body.errors).toBeUndefined();
    const calls = gw.upstreamRequests('graph');
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(Array(3).fill('POST /graph/v1.0/$batch'));
    const items = calls.map(batchItems);
    expect(items.map((i) => i.length).sort((a, b) => b - a)).toEqual([20, 20, 5]);
    expect(new Set(items.flat())).toEqual(new Set(ids.map((id) => `GET ${ITEM}/${id}?$select=id`)));
    const data = r.body.data.admin.serviceAnnouncement;
    ids.forEach((id, i) => expect(data[`s${i}`]).toEqual(known.includes(id) ? { id } : null));
  });

  it('answers null for an id the upstream does not know, without an error', async () => {
    const r = await gw.query(
      '{ admin { serviceAnnouncement { a: healthOverview(id: "Exchange") { id } b: healthOverview(id: "NoSuchService") { id } } } }',
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.admin.serviceAnnouncement).toEqual({ a: { id: 'Exchange' }, b: null });
  });

  it('answers a lone lookup of an unknown id null, and a failed one as its own field error', async () => {
    const unknown = await gw.query('{ admin { serviceAnnouncement { healthOverview(id: "NoSuchService") { id } } } }');
    expect(unknown.body.errors).toBeUndefined();
    expect(unknown.body.data).toEqual({ admin: { serviceAnnouncement: { healthOverview: null } } });
    gw.sandbox.faults.push({ upstream: 'graph', times: 1, status: 500, match: 'healthOverviews/Exchange' });
    const failed = await gw.query('{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { id } } } }');
    expect(failed.body.data.admin.serviceAnnouncement.healthOverview).toBeNull();
    expect(failed.body.errors).toHaveLength(1);
    expect(failed.body.errors![0].path).toEqual(['admin', 'serviceAnnouncement', 'healthOverview']);
    expect(failed.body.errors![0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstream: 'graph', status: 500 });
    expect(graphCalls(gw)).toEqual([`GET ${ITEM}/NoSuchService?$select=id`, `GET ${ITEM}/Exchange?$select=id`]);
  });

  it('sends the nested issue pages of two looked-up services, which the lookups could not expand, as one $batch', async () => {
    // Each service expands its first `issues` inline; the second (other arguments) is loaded once the lookups answer,
    // by both services in the same turn: one batch window, one request.
    const r = await gw.query(`{ admin { serviceAnnouncement {
      x: healthOverview(id: "Exchange") { a: issues(first: 1) { nodes { id } } b: issues(first: 2) { nodes { id } } }
      y: healthOverview(id: "SharePoint") { a: issues(first: 1) { nodes { id } } b: issues(first: 2) { nodes { id } } } } } }`);
    expect(r.body.errors).toBeUndefined();
    const calls = gw.upstreamRequests('graph');
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /graph/v1.0/$batch', 'POST /graph/v1.0/$batch']);
    expect(batchItems(calls[0])).toHaveLength(2);
    expect(batchItems(calls[1]).map((item) => item.split('?')[0])).toEqual([
      `GET ${ITEM}/Exchange/issues`,
      `GET ${ITEM}/SharePoint/issues`,
    ]);
  });

  it('keeps the other items when one batch item fails', async () => {
    gw.sandbox.faults.push({ upstream: 'graph', times: 1, status: 500, match: 'healthOverviews/OrgLiveID' });
    const r = await gw.query(`{ admin { serviceAnnouncement {
      a: healthOverview(id: "Exchange") { service } b: healthOverview(id: "OrgLiveID") { service } c: healthOverview(id: "SharePoint") { service } } } }`);
    expect(r.body.data.admin.serviceAnnouncement).toEqual({
      a: { service: 'Exchange Online' },
      b: null,
      c: { service: 'SharePoint Online' },
    });
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors![0].path).toEqual(['admin', 'serviceAnnouncement', 'b']);
    expect(r.body.errors![0].extensions).toMatchObject({
      code: 'UPSTREAM_ERROR',
      upstream: 'graph',
      status: 500,
      upstreamCode: 'generalException',
    });
    expect(r.body.errors![0].extensions!.upstreamRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(gw.upstreamRequests('graph')).toHaveLength(1);
  });

  it('retries only the throttled item of a batch, honouring its Retry-After', async () => {
    gw.sandbox.faults.push({
      upstream: 'graph',
      times: 1,
      status: 429,
      retryAfter: 0,
      match: 'healthOverviews/SharePoint',
    });
    const r = await gw.query(`{ admin { serviceAnnouncement {
      a: healthOverview(id: "Exchange") { service } b: healthOverview(id: "SharePoint") { service } c: healthOverview(id: "Intune") { service } } } }`);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.admin.serviceAnnouncement.b).toEqual({ service: 'SharePoint Online' });
    const calls = gw.upstreamRequests('graph');
    expect(calls).toHaveLength(2);
    expect(batchItems(calls[0])).toHaveLength(3);
    expect(graphCalls(gw)[1]).toBe(`GET ${ITEM}/SharePoint?$select=id,service`);
  });
});
