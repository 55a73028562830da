import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { graphCalls } from '../../support/graphRequests.js';

let gw: TestGateway;
beforeAll(async () => {
  // first: 1000 must reach the gateway's own check rather than the operation cost limit.
  gw = await startTestGateway();
});
afterAll(() => gw?.close());
beforeEach(() => gw.clearUpstreamRequests());

const LIST = '/admin/serviceAnnouncement/healthOverviews';

describe('selection → OData', () => {
  it('sends one upstream request for a nested health query', async () => {
    const r = await gw.query(`{
      admin { serviceAnnouncement { healthOverviews { nodes { service
        issues(first: 5, orderBy: [{ field: START_DATE_TIME, direction: DESC }]) { nodes { title } } } } } } }`);
    expect(r.body.errors).toBeUndefined();
    expect(graphCalls(gw)).toEqual([
      `GET ${LIST}?$select=id,service&$expand=issues($select=id,title;$top=5;$orderby=startDateTime desc)`,
    ]);
    const nodes = r.body.data.admin.serviceAnnouncement.healthOverviews.nodes;
    expect(nodes.length).toBeGreaterThan(20);
    expect(nodes[0].issues.nodes).toHaveLength(5);
    const dates = nodes[0].issues.nodes.map((n: { title: string }) => n.title);
    expect(new Set(dates).size).toBe(5);
  });

  it('collapses admin and serviceAnnouncement into the list request (no request of their own)', async () => {
    await gw.query('{ admin { serviceAnnouncement { healthOverviews(first: 2) { nodes { id } } } } }');
    expect(graphCalls(gw)).toEqual([`GET ${LIST}?$select=id&$top=2`]);
  });

  it('builds $select from named and inline fragments and drops @include(if: false) / @skip(if: true) fields', async () => {
    const r = await gw.query(
      `query Q($withStatus: Boolean!, $skipTitle: Boolean!) {
        admin { serviceAnnouncement { healthOverviews(first: 2, orderBy: [{ field: SERVICE, direction: DESC }, { field: ID }]) {
          nodes { ...Health ... on ServiceHealth { status @include(if: $withStatus) } } } } } }
      fragment Health on ServiceHealth { service issues(first: 1) { nodes { ...IssueBits title @skip(if: $skipTitle) } } }
      fragment IssueBits on ServiceHealthIssue { classification ... on ServiceHealthIssue { isResolved } details { name } }`,
      { withStatus: false, skipTitle: true },
    );
    expect(r.body.errors).toBeUndefined();
    expect(graphCalls(gw)).toEqual([
      `GET ${LIST}?$select=id,service&$expand=issues($select=id,classification,isResolved,details;$top=1)&$top=2&$orderby=service desc,id`,
    ]);
    gw.clearUpstreamRequests();
    await gw.query(
      `query Q($withStatus: Boolean!) { admin { serviceAnnouncement { healthOverviews(first: 2) { nodes { ... on ServiceHealth { status @include(if: $withStatus) } } } } } }`,
      { withStatus: true },
    );
    expect(graphCalls(gw)).toEqual([`GET ${LIST}?$select=id,status&$top=2`]);
  });

  it('sends identical aliased lists once and each distinct argument set once', async () => {
    const r = await gw.query(`{ admin { serviceAnnouncement {
      a: healthOverviews(first: 3) { nodes { id } }
      b: healthOverviews(first: 3) { nodes { id } }
      c: healthOverviews(first: 4) { nodes { id } } } } }`);
    expect(r.body.errors).toBeUndefined();
    expect(graphCalls(gw).sort()).toEqual([`GET ${LIST}?$select=id&$top=3`, `GET ${LIST}?$select=id&$top=4`]);
    expect(r.body.data.admin.serviceAnnouncement.a).toEqual(r.body.data.admin.serviceAnnouncement.b);
  });

  it('merges aliases of the same nested issues field into one $expand', async () => {
    const r = await gw.query(`{ admin { serviceAnnouncement { healthOverviews(first: 2) { nodes {
      x: issues(first: 2) { nodes { title } } y: issues(first: 2) { nodes { status } } } } } } }`);
    expect(r.body.errors).toBeUndefined();
    expect(graphCalls(gw)).toEqual([`GET ${LIST}?$select=id&$expand=issues($select=id,title,status;$top=2)&$top=2`]);
  });

  it("reads serviceAnnouncement's issue list in one request", async () => {
    const r =
      await gw.query(`{ admin { serviceAnnouncement { issues(first: 3, orderBy: [{ field: LAST_MODIFIED_DATE_TIME, direction: DESC }]) {
      nodes { id title lastModifiedDateTime } pageInfo { hasNextPage } } } } }`);
    expect(r.body.errors).toBeUndefined();
    const nodes = r.body.data.admin.serviceAnnouncement.issues.nodes;
    expect(nodes).toHaveLength(3);
    expect(Date.parse(nodes[0].lastModifiedDateTime)).toBeGreaterThanOrEqual(Date.parse(nodes[2].lastModifiedDateTime));
    expect(graphCalls(gw)).toEqual([
      'GET /admin/serviceAnnouncement/issues?$select=id,title,lastModifiedDateTime&$top=3&$orderby=lastModifiedDateTime desc',
    ]);
  });

  it('plans a lookup once per document, and again for each value of a variable read below it', async () => {
    // The id is the field's own (its resolver's); the selection below names no variable: one plan for every id.
    const byId = `query ($id: ID!) { admin { serviceAnnouncement { healthOverview(id: $id) { service
      issues(first: 2) { nodes { title } } } } } }`;
    for (const id of ['Exchange', 'SharePoint', 'Intune']) await gw.query(byId, { id });
    const expand = '$expand=issues($select=id,title;$top=2)';
    expect(graphCalls(gw)).toEqual(
      ['Exchange', 'SharePoint', 'Intune'].map((id) => `GET ${LIST}/${id}?$select=id,service&${expand}`),
    );
    gw.clearUpstreamRequests();
    // A variable below the field (a nested argument, a condition) makes the plan its values'.
    const nested = `query ($id: ID!, $n: Int, $status: Boolean!) { admin { serviceAnnouncement { healthOverview(id: $id) {
      status @include(if: $status) issues(first: $n) { nodes { title } } } } } }`;
    await gw.query(nested, { id: 'Exchange', n: 1, status: true });
    await gw.query(nested, { id: 'Exchange', n: 3, status: false });
    expect(graphCalls(gw)).toEqual([
      `GET ${LIST}/Exchange?$select=id,status&$expand=issues($select=id,title;$top=1)`,
      `GET ${LIST}/Exchange?$select=id&$expand=issues($select=id,title;$top=3)`,
    ]);
  });

  it('maps upstream enums case-insensitively onto the graph enums', async () => {
    const r = await gw.query(`{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { status issues(first: 3) {
      nodes { classification origin status posts { postType description { contentType } } } } } } } }`);
    expect(r.body.errors).toBeUndefined();
    const h = r.body.data.admin.serviceAnnouncement.healthOverview;
    expect(h.status).toMatch(/^[A-Z_]+$/);
    for (const issue of h.issues.nodes) {
      expect(['ADVISORY', 'INCIDENT']).toContain(issue.classification);
      expect(issue.origin).toMatch(/^[A-Z_]+$/);
      for (const post of issue.posts) expect(['HTML', 'TEXT']).toContain(post.description.contentType);
    }
  });
});

describe('bad input is refused before any upstream call', () => {
  const cases: Array<[string, string, string]> = [
    ['first below 1', '{ admin { serviceAnnouncement { healthOverviews(first: 0) { nodes { id } } } } }', 'first'],
    ['first above 999', '{ admin { serviceAnnouncement { healthOverviews(first: 1000) { nodes { id } } } } }', 'first'],
    [
      'a nested first out of range',
      '{ admin { serviceAnnouncement { healthOverviews { nodes { issues(first: -1) { nodes { id } } } } } } }',
      'first',
    ],
    [
      'a malformed cursor',
      '{ admin { serviceAnnouncement { healthOverviews(after: "not a cursor!") { nodes { id } } } } }',
      'after',
    ],
    ['an empty id', '{ admin { serviceAnnouncement { healthOverview(id: "") { id } } } }', 'id'],
    [
      'a duplicate order field',
      '{ admin { serviceAnnouncement { healthOverviews(orderBy: [{ field: SERVICE }, { field: SERVICE, direction: DESC }]) { nodes { id } } } } }',
      'orderBy',
    ],
  ];
  it.each(cases)('%s', async (_, query, argument) => {
    const r = await gw.query(query);
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    expect(r.body.errors?.[0]?.message).toContain(argument);
    expect(gw.upstreamRequests()).toEqual([]);
  });

  it('refuses an unknown order field through the enum', async () => {
    const r = await gw.query(
      '{ admin { serviceAnnouncement { healthOverviews(orderBy: [{ field: COLOUR }]) { nodes { id } } } } }',
    );
    expect(r.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(gw.upstreamRequests()).toEqual([]);
  });
});
