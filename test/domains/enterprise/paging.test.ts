import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { graphCalls } from '../../support/graphRequests.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(() => gw?.close());
beforeEach(() => gw.clearUpstreamRequests());

const ISSUES_OF_EXCHANGE = `query Page($after: String) { admin { serviceAnnouncement { healthOverview(id: "Exchange") {
  issues(first: 40, after: $after, orderBy: [{ field: START_DATE_TIME, direction: DESC }]) {
    edges { cursor node { id } } pageInfo { hasNextPage endCursor } } } } } }`;

describe('connections over @odata.nextLink', () => {
  it('pages a nested issues connection to the end, returning every issue exactly once', async () => {
    const all = await gw.query(
      '{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { issues(first: 999) { nodes { id } } } } } }',
    );
    const expected: string[] = all.body.data.admin.serviceAnnouncement.healthOverview.issues.nodes.map(
      (n: { id: string }) => n.id,
    );
    expect(expected.length).toBeGreaterThan(100);
    gw.clearUpstreamRequests();

    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const r = await gw.query(ISSUES_OF_EXCHANGE, { after });
      expect(r.body.errors).toBeUndefined();
      const conn: { edges: Array<{ node: { id: string } }>; pageInfo: { hasNextPage: boolean; endCursor: string } } =
        r.body.data.admin.serviceAnnouncement.healthOverview.issues;
      seen.push(...conn.edges.map((e) => e.node.id));
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(seen).toHaveLength(expected.length);
    expect(new Set(seen)).toEqual(new Set(expected));
    const pages = Math.ceil(expected.length / 40);
    const calls = graphCalls(gw);
    // The first page rides inline on the service GET; each later page is the service GET plus the followed nextLink.
    expect(calls[0]).toBe(
      'GET /admin/serviceAnnouncement/healthOverviews/Exchange?$select=id&$expand=issues($select=id;$top=40;$orderby=startDateTime desc)',
    );
    expect(calls).toHaveLength(1 + (pages - 1) * 2);
    expect(calls[2]).toBe(
      'GET /admin/serviceAnnouncement/healthOverviews/Exchange/issues?$select=id&$top=40&$orderby=startDateTime desc&$skip=40',
    );
  });

  it("answers Relay page info: no previous page on the first, one after a cursor, startCursor the first edge's, at no extra request", async () => {
    const info = 'edges { cursor } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';
    const first = await gw.query(`{ admin { serviceAnnouncement { healthOverviews(first: 5) { ${info} } } } }`);
    const page1 = first.body.data.admin.serviceAnnouncement.healthOverviews;
    expect(page1.pageInfo).toMatchObject({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: page1.edges[0].cursor,
      endCursor: page1.edges[4].cursor,
    });
    const second = await gw.query(
      `query($after: String) { admin { serviceAnnouncement { healthOverviews(first: 5, after: $after) { ${info} } } } }`,
      { after: page1.pageInfo.endCursor },
    );
    const page2 = second.body.data.admin.serviceAnnouncement.healthOverviews;
    expect(page2.pageInfo).toMatchObject({ hasPreviousPage: true, startCursor: page2.edges[0].cursor });
    expect(page2.pageInfo.startCursor).not.toBe(page1.pageInfo.startCursor);
    expect(graphCalls(gw)).toHaveLength(2);
  });

  it('pages the healthOverviews connection with first/after and edge cursors', async () => {
    const first = await gw.query(
      '{ admin { serviceAnnouncement { healthOverviews(first: 5) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } } } }',
    );
    const conn = first.body.data.admin.serviceAnnouncement.healthOverviews;
    expect(conn.pageInfo.hasNextPage).toBe(true);
    const second = await gw.query(
      'query($after: String) { admin { serviceAnnouncement { healthOverviews(first: 5, after: $after) { nodes { id service } } } } }',
      {
        after: conn.pageInfo.endCursor,
      },
    );
    // An edge cursor continues right after its node.
    const fromEdge = await gw.query(
      'query($after: String) { admin { serviceAnnouncement { healthOverviews(first: 2, after: $after) { nodes { id } } } } }',
      {
        after: conn.edges[2].cursor,
      },
    );
    const ids = (r: typeof first) =>
      r.body.data.admin.serviceAnnouncement.healthOverviews.nodes?.map((n: { id: string }) => n.id);
    const all = await gw.query('{ admin { serviceAnnouncement { healthOverviews(first: 10) { nodes { id } } } } }');
    expect(ids(second)).toEqual(ids(all).slice(5, 10));
    expect(ids(fromEdge)).toEqual(ids(all).slice(3, 5));
    expect(graphCalls(gw).slice(0, 3)).toEqual([
      'GET /admin/serviceAnnouncement/healthOverviews?$select=id&$top=5',
      'GET /admin/serviceAnnouncement/healthOverviews?$select=id,service&$top=5&$skip=5',
      'GET /admin/serviceAnnouncement/healthOverviews?$select=id&$top=2&$skip=3',
    ]);
  });

  it('refuses a cursor that points at another resource or host, before any upstream call', async () => {
    const forged = [
      Buffer.from(JSON.stringify({ l: '/admin/serviceAnnouncement/messages?$skip=5' })).toString('base64url'),
      Buffer.from(JSON.stringify({ l: '//evil.example/admin/serviceAnnouncement/healthOverviews?$skip=5' })).toString(
        'base64url',
      ),
      Buffer.from(
        JSON.stringify({ l: 'https://evil.example/v1.0/admin/serviceAnnouncement/healthOverviews' }),
      ).toString('base64url'),
      Buffer.from(JSON.stringify({ l: '/admin/serviceAnnouncement/healthOverviews/../../me?$skip=1' })).toString(
        'base64url',
      ),
    ];
    for (const after of forged) {
      const r = await gw.query(
        'query($after: String) { admin { serviceAnnouncement { healthOverviews(after: $after) { nodes { id } } } } }',
        { after },
      );
      expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'after' });
    }
    expect(gw.upstreamRequests()).toEqual([]);
    // A cursor of one service's issues is not a cursor of another's.
    const page = await gw.query(ISSUES_OF_EXCHANGE, { after: null });
    gw.clearUpstreamRequests();
    const cursor = page.body.data.admin.serviceAnnouncement.healthOverview.issues.pageInfo.endCursor;
    const r = await gw.query(
      'query($after: String) { admin { serviceAnnouncement { healthOverview(id: "SharePoint") { id issues(after: $after) { nodes { id } } } } } }',
      { after: cursor },
    );
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'after' });
    expect(graphCalls(gw).filter((c) => c.includes('/issues'))).toEqual([]);
  });
});
