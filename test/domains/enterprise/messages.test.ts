import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { enterpriseExamples } from '../../../src/domains/enterprise/index.js';
import { fromUpstreamEnum, MESSAGE_CATEGORY, MESSAGE_SEVERITY } from '../../../src/domains/enterprise/enums.js';
import { toServiceUpdateMessage } from '../../../src/domains/enterprise/model.js';
import { exampleOperation } from '../../support/examples.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { batchItems, graphCalls } from '../../support/graphRequests.js';

let gw: TestGateway;
beforeAll(async () => {
  // Selecting every message property is above the default cost limit; this file tests planning, not limits.
  gw = await startTestGateway({ GATEWAY_MAX_ALIASES: '100' });
});
afterAll(() => gw?.close());
beforeEach(() => gw.clearUpstreamRequests());

const LIST = '/admin/serviceAnnouncement/messages';

interface RawMessage {
  id: string;
  title: string;
  category: string;
  severity: string;
  services: string[];
  tags: string[];
  isMajorChange: boolean;
  lastModifiedDateTime: string;
  actionRequiredByDateTime: string | null;
  details: Array<{ name: string; value: string }>;
  body: { contentType: string; content: string };
}

/** Every message as the emulator stores it, read straight from it (not through the gateway); off the record. */
async function upstreamMessages(): Promise<RawMessage[]> {
  const res = await fetch(`${gw.sandbox.origin}/graph/v1.0${LIST}?$top=999`, {
    headers: { authorization: 'Bearer sandbox' },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { value: RawMessage[]; '@odata.nextLink'?: string };
  expect(body['@odata.nextLink']).toBeUndefined();
  gw.clearUpstreamRequests();
  return body.value;
}

const messagesOf = (r: { body: { data?: any } }, field = 'messages') => r.body.data.admin.serviceAnnouncement[field];

describe('selection → OData for messages', () => {
  it('sends one GET whose $select, $top and $orderby follow the selection and arguments', async () => {
    const r = await gw.query(`{ admin { serviceAnnouncement {
      messages(first: 4, orderBy: [{ field: SEVERITY, direction: DESC }, { field: START_DATE_TIME }]) {
        nodes { ...M title } pageInfo { hasNextPage } } } } }
      fragment M on ServiceUpdateMessage { category body { contentType } services ... on ServiceUpdateMessage { viewPoint { isRead } } }`);
    expect(r.body.errors).toBeUndefined();
    expect(graphCalls(gw)).toEqual([
      `GET ${LIST}?$select=id,category,body,services,viewPoint,title&$top=4&$orderby=severity desc,startDateTime`,
    ]);
    const conn = messagesOf(r);
    expect(conn.nodes).toHaveLength(4);
    expect(conn.pageInfo.hasNextPage).toBe(true);
    // The emulator grants application permissions, under which Graph gives no viewpoint.
    for (const m of conn.nodes) expect(m.viewPoint).toBeNull();
  });

  it('maps every property of the upstream message onto the graph type', async () => {
    const raw = await upstreamMessages();
    const r = await gw.query(`{ admin { serviceAnnouncement { messages(first: 999) { nodes {
      id title startDateTime endDateTime lastModifiedDateTime details { name value } actionRequiredByDateTime expiryDateTime
      body { contentType content } category severity hasAttachments isMajorChange services tags viewPoint { isRead isArchived isFavorited } } } } } }`);
    expect(r.body.errors).toBeUndefined();
    expect(graphCalls(gw)).toEqual([
      `GET ${LIST}?$select=id,title,startDateTime,endDateTime,lastModifiedDateTime,details,actionRequiredByDateTime,expiryDateTime,body,category,severity,hasAttachments,isMajorChange,services,tags,viewPoint&$top=999`,
    ]);
    const nodes = messagesOf(r).nodes as Array<Record<string, unknown>>;
    expect(nodes).toHaveLength(raw.length);
    const categories = {
      PreventOrFixIssue: 'PREVENT_OR_FIX_ISSUE',
      PlanForChange: 'PLAN_FOR_CHANGE',
      StayInformed: 'STAY_INFORMED',
    } as Record<string, string>;
    const severities = { Normal: 'NORMAL', High: 'HIGH', Critical: 'CRITICAL' } as Record<string, string>;
    nodes.forEach((node, i) => {
      const m = raw[i];
      expect(node).toMatchObject({
        id: m.id,
        title: m.title,
        category: categories[m.category],
        severity: severities[m.severity],
        services: m.services,
        tags: m.tags,
        isMajorChange: m.isMajorChange,
        actionRequiredByDateTime: m.actionRequiredByDateTime,
        details: m.details,
        body: { contentType: 'HTML', content: m.body.content },
        expiryDateTime: null,
        hasAttachments: false,
        viewPoint: null,
      });
    });
    expect(new Set(nodes.map((n) => n.category))).toEqual(
      new Set(['PREVENT_OR_FIX_ISSUE', 'PLAN_FOR_CHANGE', 'STAY_INFORMED']),
    );
  });

  it('runs its GraphiQL example in one request, and finds major changes in the sandbox', async () => {
    const r = await gw.query(exampleOperation('Changes', enterpriseExamples).query);
    expect(r.body.errors).toBeUndefined();
    expect(graphCalls(gw)).toEqual([
      `GET ${LIST}?$select=id,title,category,severity,actionRequiredByDateTime,services,tags&$top=5&$orderby=lastModifiedDateTime desc&$filter=services/any(s:s eq 'SharePoint Online') and isMajorChange eq true`,
    ]);
    expect(messagesOf(r).nodes.length).toBeGreaterThan(0);
    for (const m of messagesOf(r).nodes) expect(m.services).toContain('SharePoint Online');
  });
});

describe('messages connection', () => {
  const PAGE = `query Page($after: String) { admin { serviceAnnouncement {
    messages(first: 25, after: $after, orderBy: [{ field: TITLE }]) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } } } }`;

  it('pages to the end, returning every message exactly once', async () => {
    const expected = (await upstreamMessages()).map((m) => m.id);
    expect(expected.length).toBeGreaterThan(50);
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const r = await gw.query(PAGE, { after });
      expect(r.body.errors).toBeUndefined();
      const conn: { edges: Array<{ node: { id: string } }>; pageInfo: { hasNextPage: boolean; endCursor: string } } =
        messagesOf(r);
      seen.push(...conn.edges.map((e) => e.node.id));
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(seen).toHaveLength(expected.length);
    expect(new Set(seen)).toEqual(new Set(expected));
    const pages = Math.ceil(expected.length / 25);
    expect(graphCalls(gw)).toEqual(
      Array.from(
        { length: pages },
        (_, i) => `GET ${LIST}?$select=id&$top=25&$orderby=title${i ? `&$skip=${i * 25}` : ''}`,
      ),
    );
  });

  it('continues right after an edge cursor, keeping the page’s order and filter', async () => {
    const FILTERED = `query($after: String, $first: Int) { admin { serviceAnnouncement {
      messages(first: $first, after: $after, filter: { category: PLAN_FOR_CHANGE }, orderBy: [{ field: LAST_MODIFIED_DATE_TIME, direction: DESC }]) {
        edges { cursor node { id category } } } } } }`;
    const all = await gw.query(FILTERED, { first: 999 });
    const ids = messagesOf(all).edges.map((e: { node: { id: string } }) => e.node.id);
    expect(ids.length).toBeGreaterThan(5);
    const first = await gw.query(FILTERED, { first: 3 });
    gw.clearUpstreamRequests();
    const next = await gw.query(FILTERED, { first: 2, after: messagesOf(first).edges[1].cursor });
    expect(messagesOf(next).edges.map((e: { node: { id: string; category: string } }) => e.node)).toEqual(
      ids.slice(2, 4).map((id: string) => ({ id, category: 'PLAN_FOR_CHANGE' })),
    );
    expect(graphCalls(gw)).toEqual([
      `GET ${LIST}?$select=id,category&$top=2&$orderby=lastModifiedDateTime desc&$filter=category eq 'planForChange'&$skip=2`,
    ]);
  });
});

describe('message filters', () => {
  it('doubles a quote inside a service name', async () => {
    const r = await gw.query(
      `query($s: String) { admin { serviceAnnouncement { messages(filter: { service: $s }) { nodes { id } } } } }`,
      {
        s: 'Contoso\'s "Mail" (beta)',
      },
    );
    expect(r.body.errors).toBeUndefined();
    expect(messagesOf(r).nodes).toEqual([]);
    expect(graphCalls(gw)).toEqual([`GET ${LIST}?$select=id&$filter=services/any(s:s eq 'Contoso''s "Mail" (beta)')`]);
  });

  it('joins every condition with and, returning exactly the matching messages', async () => {
    const raw = await upstreamMessages();
    const r = await gw.query(`{ admin { serviceAnnouncement {
      messages(first: 999, filter: { service: "Exchange Online", severity: NORMAL, tag: "User impact", isMajorChange: false }) { nodes { id } } } } }`);
    expect(r.body.errors).toBeUndefined();
    expect(graphCalls(gw)).toEqual([
      `GET ${LIST}?$select=id&$top=999&$filter=services/any(s:s eq 'Exchange Online') and tags/any(t:t eq 'User impact') and severity eq 'normal' and isMajorChange eq false`,
    ]);
    const expected = raw
      .filter(
        (m) =>
          m.services.includes('Exchange Online') &&
          m.severity === 'Normal' &&
          m.tags.includes('User impact') &&
          !m.isMajorChange,
      )
      .map((m) => m.id);
    expect(expected.length).toBeGreaterThan(0);
    expect(messagesOf(r).nodes.map((n: { id: string }) => n.id)).toEqual(expected);
  });
});

describe('message(id:)', () => {
  it('answers null for an unknown id after one GET', async () => {
    const r = await gw.query('{ admin { serviceAnnouncement { message(id: "MC000000") { id title } } } }');
    expect(r.body.errors).toBeUndefined();
    expect(messagesOf(r, 'message')).toBeNull();
    expect(graphCalls(gw)).toEqual([`GET ${LIST}/MC000000?$select=id,title`]);
  });

  it('reads several ids in one $batch, one item per id with the union of their selections', async () => {
    const [a, b] = await upstreamMessages();
    const r = await gw.query(`{ admin { serviceAnnouncement {
      x: message(id: "${a.id}") { title } y: message(id: "${a.id}") { severity }
      z: message(id: "${b.id}") { services } missing: message(id: "MC000000") { id } } } }`);
    expect(r.body.errors).toBeUndefined();
    const data = r.body.data.admin.serviceAnnouncement;
    expect(data).toEqual({
      x: { title: a.title },
      y: { severity: a.severity.toUpperCase() },
      z: { services: b.services },
      missing: null,
    });
    const calls = gw.upstreamRequests('graph');
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /graph/v1.0/$batch']);
    expect(batchItems(calls[0])).toEqual([
      `GET ${LIST}/${a.id}?$select=id,title,severity`,
      `GET ${LIST}/${b.id}?$select=id,services`,
      `GET ${LIST}/MC000000?$select=id`,
    ]);
  });
});

describe('bad input is refused before any upstream call', () => {
  const issuesCursor = Buffer.from(JSON.stringify({ l: '/admin/serviceAnnouncement/issues?$skip=5' })).toString(
    'base64url',
  );
  const cases: Array<[string, string, string, string]> = [
    ['first below 1', '{ admin { serviceAnnouncement { messages(first: 0) { nodes { id } } } } }', 'first', 'first: 0'],
    [
      'an empty service name',
      '{ admin { serviceAnnouncement { messages(filter: { service: "" }) { nodes { id } } } } }',
      'filter.service',
      'filter.service: ""',
    ],
    [
      'a blank tag',
      '{ admin { serviceAnnouncement { messages(filter: { tag: "  " }) { nodes { id } } } } }',
      'filter.tag',
      'filter.tag: "  "',
    ],
    [
      'a filter on UNKNOWN_FUTURE_VALUE',
      '{ admin { serviceAnnouncement { messages(filter: { severity: UNKNOWN_FUTURE_VALUE }) { nodes { id } } } } }',
      'filter.severity',
      'UNKNOWN_FUTURE_VALUE',
    ],
    [
      'a duplicate order field',
      '{ admin { serviceAnnouncement { messages(orderBy: [{ field: TITLE }, { field: TITLE, direction: DESC }]) { nodes { id } } } } }',
      'orderBy',
      'TITLE',
    ],
    [
      'a cursor of another collection',
      `{ admin { serviceAnnouncement { messages(after: "${issuesCursor}") { nodes { id } } } } }`,
      'after',
      issuesCursor.slice(0, 20),
    ],
    ['an empty message id', '{ admin { serviceAnnouncement { message(id: " ") { id } } } }', 'id', 'MC172851'],
  ];
  it.each(cases)('%s', async (_, query, argument, named) => {
    const r = await gw.query(query);
    expect(r.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
    expect(r.body.errors?.[0]?.message).toContain(named);
    expect(gw.upstreamRequests()).toEqual([]);
  });
});

describe('upstream enum mapping', () => {
  it('matches category and severity case-insensitively and maps unknown values to UNKNOWN_FUTURE_VALUE', () => {
    for (const value of ['planForChange', 'PlanForChange', 'PLANFORCHANGE', 'PLAN_FOR_CHANGE'])
      expect(fromUpstreamEnum(MESSAGE_CATEGORY, value)).toBe('PLAN_FOR_CHANGE');
    expect(fromUpstreamEnum(MESSAGE_CATEGORY, 'preventOrFixIssue')).toBe('PREVENT_OR_FIX_ISSUE');
    expect(fromUpstreamEnum(MESSAGE_CATEGORY, 'retirementNotice')).toBe('UNKNOWN_FUTURE_VALUE');
    expect(fromUpstreamEnum(MESSAGE_SEVERITY, 'critical')).toBe('CRITICAL');
    expect(fromUpstreamEnum(MESSAGE_SEVERITY, 'Urgent')).toBe('UNKNOWN_FUTURE_VALUE');
    expect(fromUpstreamEnum(MESSAGE_SEVERITY, null)).toBeNull();
  });

  it('maps a delegated-permission message with a viewpoint and values this gateway does not know', () => {
    const model = toServiceUpdateMessage({
      id: 'MC1',
      category: 'stayInformed',
      severity: 'catastrophic',
      body: { contentType: 'text', content: 'hi' },
      viewPoint: { isRead: true, isArchived: false },
      expiryDateTime: '2030-01-01T00:00:00Z',
    });
    expect(model).toMatchObject({
      id: 'MC1',
      title: null,
      category: 'STAY_INFORMED',
      severity: 'UNKNOWN_FUTURE_VALUE',
      body: { contentType: 'TEXT', content: 'hi' },
      viewPoint: { isRead: true, isArchived: false, isFavorited: null },
      expiryDateTime: '2030-01-01T00:00:00Z',
      services: [],
      tags: [],
      details: [],
    });
  });
});

describe('upstream-request budget', () => {
  let small: TestGateway;
  beforeAll(async () => {
    small = await startTestGateway({ GATEWAY_MAX_UPSTREAM_REQUESTS: '2', GATEWAY_MAX_ALIASES: '100' });
  });
  afterAll(() => small?.close());
  const lookups = (n: number) => Array.from({ length: n }, (_, i) => `m${i}: message(id: "MC${i}") { id }`).join(' ');

  it('counts a messages list as one request and message lookups as one per 20 ids', async () => {
    const fits = await small.query(
      `{ admin { serviceAnnouncement { messages(first: 2) { nodes { id } } ${lookups(20)} } } }`,
    );
    expect(fits.body.errors).toBeUndefined();
    expect(
      graphCalls(small)
        .map((c) => c.split('?')[0])
        .sort(),
    ).toEqual(['GET /admin/serviceAnnouncement/messages', 'POST /$batch']);
    small.clearUpstreamRequests();
    const over = await small.query(
      `{ admin { serviceAnnouncement { messages(first: 2) { nodes { id } } ${lookups(21)} } } }`,
    );
    expect(over.body.errors?.[0]?.extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS',
      found: 3,
      upstream: 'graph',
    });
    expect(small.upstreamRequests()).toEqual([]);
  });
});
