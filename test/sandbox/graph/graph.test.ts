import { beforeAll, describe, expect, it } from 'vitest';
import { SERVICE_HEALTH_STATUS } from '../../../src/sandbox/graph/model.js';
import { ODATA_JSON } from '../../../src/sandbox/graph/response.js';
import { useSandbox } from '../../support/sandbox.js';

const env = useSandbox();
const { control } = env;
let root: string;
const SA = '/admin/serviceAnnouncement';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(() => {
  root = `${env.sandbox.baseUrls.graph}/v1.0`;
});

interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

/** One Graph call (path below /v1.0, or an absolute nextLink) with the sandbox token unless told otherwise. */
async function graph(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; token?: string | null } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== null) headers.authorization = `Bearer ${init.token ?? 'sandbox'}`;
  if (init.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(path.startsWith('http') ? path : root + path, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

async function ok(path: string, init?: Parameters<typeof graph>[1]): Promise<any> {
  const r = await graph(path, init);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

/** Asserts a Graph error envelope and returns its message. */
function expectError(r: Reply, status: number, code: string): string {
  expect(r.status).toBe(status);
  expect(Object.keys(r.body)).toEqual(['error']);
  expect(r.body.error.code).toBe(code);
  expect(r.body.error.innerError.date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  expect(r.body.error.innerError['request-id']).toMatch(UUID);
  expect(r.body.error.innerError['client-request-id']).toBeTypeOf('string');
  return r.body.error.message;
}

/** Follows @odata.nextLink to the end; returns every item and the pages' sizes. */
async function all(
  path: string,
  headers?: Record<string, string>,
): Promise<{ items: any[]; sizes: number[]; links: string[] }> {
  const items: any[] = [];
  const sizes: number[] = [];
  const links: string[] = [];
  let next: string | undefined = path;
  while (next) {
    const page = await ok(next, { headers });
    items.push(...page.value);
    sizes.push(page.value.length);
    next = page['@odata.nextLink'];
    if (next) links.push(next);
  }
  return { items, sizes, links };
}

describe('responses look like Graph', () => {
  it('sends the Graph headers, echoing client-request-id', async () => {
    const r = await graph(`${SA}/healthOverviews/Exchange`, { headers: { 'client-request-id': 'caller-1' } });
    expect(r.headers.get('content-type')).toBe(ODATA_JSON);
    expect(r.headers.get('odata-version')).toBe('4.0');
    expect(r.headers.get('request-id')).toMatch(UUID);
    expect(r.headers.get('client-request-id')).toBe('caller-1');
    expect(r.headers.get('date')).toBeTruthy();
    const plain = await graph(`${SA}/healthOverviews/Exchange`);
    expect(plain.headers.get('client-request-id')).toBe(plain.headers.get('request-id'));
  });

  it('serves /beta from the same data', async () => {
    const v1 = await ok(`${SA}/healthOverviews/Exchange`);
    const beta = await ok(`${env.sandbox.baseUrls.graph}/beta${SA}/healthOverviews/Exchange`);
    expect(beta['@odata.context']).toBe(
      `${env.sandbox.baseUrls.graph}/beta/$metadata#admin/serviceAnnouncement/healthOverviews/$entity`,
    );
    expect({ ...beta, '@odata.context': 0 }).toEqual({ ...v1, '@odata.context': 0 });
  });

  it('answers an unknown segment with 400 and an unknown version with 400', async () => {
    expect(expectError(await graph(`${SA}/outages`), 400, 'BadRequest')).toBe(
      "Resource not found for the segment 'outages'.",
    );
    expectError(await graph(`${env.sandbox.baseUrls.graph}/v2.0/admin`), 400, 'BadRequest');
  });

  it('answers an unsupported method with 405', async () => {
    expect(expectError(await graph(`${SA}/issues`, { method: 'POST', body: {} }), 405, 'Request_BadRequest')).toMatch(
      /not allowed/,
    );
    expectError(await graph('/admin', { method: 'DELETE' }), 405, 'Request_BadRequest');
  });

  it('answers a body that is not JSON with 400', async () => {
    const r = await graph(`${SA}/healthOverviews`, { method: 'POST', body: '{"id": ' });
    expect(expectError(r, 400, 'BadRequest')).toMatch(/Unable to read JSON request payload/);
  });

  it('applies an injected fault with the Graph envelope and Retry-After', async () => {
    await control('faults', { upstream: 'graph', status: 503, retryAfter: 7 });
    const r = await graph(`${SA}/healthOverviews`);
    expectError(r, 503, 'serviceNotAvailable');
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.headers.get('content-type')).toBe(ODATA_JSON);
    expect((await graph(`${SA}/healthOverviews`)).status).toBe(200);
  });

  it('records the requests it served', async () => {
    await fetch(`${env.sandbox.origin}/_sandbox/requests`, { method: 'DELETE' });
    await graph(`${SA}/healthOverviews?$top=2`);
    await graph('/admin', { method: 'PATCH', body: { a: 1 } });
    const log = (await (await fetch(`${env.sandbox.origin}/_sandbox/requests`)).json()) as any[];
    expect(log.map((e) => [e.upstream, e.method, e.url, e.status])).toEqual([
      ['graph', 'GET', `/graph/v1.0${SA}/healthOverviews?$top=2`, 200],
      ['graph', 'PATCH', '/graph/v1.0/admin', 204],
    ]);
    expect(log[1].body).toBe('{"a":1}');
    expect(log[0].headers.authorization).toBe('Bearer sandbox');
  });
});

describe('admin and serviceAnnouncement singletons', () => {
  it('GET returns context and etag only until properties are stored', async () => {
    expect(await ok('/admin')).toEqual({
      '@odata.context': `${root}/$metadata#admin`,
      '@odata.etag': expect.stringMatching(/^W\/".+"$/),
    });
    const sa = await ok(SA);
    expect(sa['@odata.context']).toBe(`${root}/$metadata#admin/serviceAnnouncement`);
  });

  it('PATCH stores primitives, bumps the etag and answers 204 or the entity', async () => {
    const before = await ok('/admin');
    const r = await graph('/admin', {
      method: 'PATCH',
      body: { note: 'hello', level: 3, on: true, gone: null, '@odata.type': '#microsoft.graph.admin' },
    });
    expect(r.status).toBe(204);
    expect(r.body).toBeUndefined();
    const after = await ok('/admin');
    expect(after).toMatchObject({ note: 'hello', level: 3, on: true, gone: null });
    expect(after['@odata.etag']).not.toBe(before['@odata.etag']);
    const rep = await graph('/admin', {
      method: 'PATCH',
      body: { note: 'again' },
      headers: { prefer: 'return=representation' },
    });
    expect(rep.status).toBe(200);
    expect(rep.body).toMatchObject({ '@odata.context': `${root}/$metadata#admin`, note: 'again', level: 3 });
    expect(rep.body['@odata.etag']).not.toBe(after['@odata.etag']);
  });

  it('PATCH refuses nested values, naming the property', async () => {
    const r = await graph(SA, { method: 'PATCH', body: { ok: 1, nested: { a: 1 } } });
    expect(expectError(r, 400, 'BadRequest')).toMatch(/'nested'/);
    expect(expectError(await graph(SA, { method: 'PATCH', body: { list: [1] } }), 400, 'BadRequest')).toMatch(/'list'/);
    expect(expectError(await graph(SA, { method: 'PATCH', body: [1] }), 400, 'BadRequest')).toMatch(/JSON object/);
    expect(await ok(SA)).not.toHaveProperty('ok');
  });

  it('DELETE of serviceAnnouncement clears its properties but not its children', async () => {
    await graph(SA, { method: 'PATCH', body: { owner: 'ops' } });
    expect((await ok(SA)).owner).toBe('ops');
    expect((await graph(SA, { method: 'DELETE' })).status).toBe(204);
    expect(await ok(SA)).not.toHaveProperty('owner');
    expect((await ok(`${SA}/healthOverviews`)).value.length).toBe(39);
  });

  it('expands the single-valued relationship of admin', async () => {
    const body = await ok('/admin?$expand=serviceAnnouncement($expand=healthOverviews($top=2;$select=id))');
    expect(body['@odata.context']).toBe(`${root}/$metadata#admin(serviceAnnouncement(healthOverviews(id)))`);
    expect(body.serviceAnnouncement.healthOverviews).toHaveLength(2);
    expect(body.serviceAnnouncement['healthOverviews@odata.nextLink']).toBe(
      `${root}${SA}/healthOverviews?$top=2&$select=id&$skip=2`,
    );
  });
});

describe('healthOverviews', () => {
  it('lists realistic services with PascalCase statuses on one page', async () => {
    const body = await ok(`${SA}/healthOverviews`);
    expect(body['@odata.context']).toBe(`${root}/$metadata#admin/serviceAnnouncement/healthOverviews`);
    expect(body).not.toHaveProperty('@odata.nextLink');
    expect(body.value.length).toBeGreaterThanOrEqual(35);
    expect(body.value[0]).toEqual({
      '@odata.etag': expect.stringMatching(/^W\/"/),
      service: 'Exchange Online',
      status: expect.any(String),
      id: 'Exchange',
    });
    const ids = body.value.map((s: any) => s.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'OrgLiveID',
        'OSDPPlatform',
        'SharePoint',
        'microsoftteams',
        'Intune',
        'Yammer',
        'PowerBIcom',
      ]),
    );
    for (const s of body.value) expect(SERVICE_HEALTH_STATUS).toContain(s.status);
  });

  it('gets one service by id or by its URL-encoded name', async () => {
    const byName = await ok(`${SA}/healthOverviews/Microsoft%20365%20suite`);
    expect(byName).toMatchObject({
      '@odata.context': `${root}/$metadata#admin/serviceAnnouncement/healthOverviews/$entity`,
      id: 'OSDPPlatform',
      service: 'Microsoft 365 suite',
    });
    expect(await ok(`${SA}/healthOverviews/OSDPPlatform`)).toEqual(byName);
  });

  it('answers an unknown service with 404 itemNotFound', async () => {
    expect(expectError(await graph(`${SA}/healthOverviews/Nope`), 404, 'itemNotFound')).toMatch(/'Nope'/);
    expectError(await graph(`${SA}/healthOverviews/Nope/issues`), 404, 'itemNotFound');
  });

  it('POST creates a service with a Location; duplicates are 409 and missing fields 400', async () => {
    const r = await graph(`${SA}/healthOverviews`, {
      method: 'POST',
      body: { id: 'Contoso', service: 'Contoso Mail', status: 'serviceDegradation' },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      '@odata.context': `${root}/$metadata#admin/serviceAnnouncement/healthOverviews/$entity`,
      '@odata.etag': expect.stringMatching(/^W\//),
      service: 'Contoso Mail',
      status: 'ServiceDegradation',
      id: 'Contoso',
    });
    expect(r.headers.get('location')).toBe(`${root}${SA}/healthOverviews/Contoso`);
    expect((await ok(r.headers.get('location')!)).service).toBe('Contoso Mail');
    expectError(
      await graph(`${SA}/healthOverviews`, { method: 'POST', body: { id: 'Contoso', service: 'again' } }),
      409,
      'Conflict',
    );
    expect(
      expectError(await graph(`${SA}/healthOverviews`, { method: 'POST', body: { id: 'X' } }), 400, 'BadRequest'),
    ).toMatch(/'service' is required/);
    expect(
      expectError(await graph(`${SA}/healthOverviews`, { method: 'POST', body: { service: 'X' } }), 400, 'BadRequest'),
    ).toMatch(/'id' is required/);
    expect(
      expectError(
        await graph(`${SA}/healthOverviews`, { method: 'POST', body: { id: 'Y', service: 'Y', status: 'Fine' } }),
        400,
        'BadRequest',
      ),
    ).toMatch(/'Fine'.*'status'/);
  });

  it('PATCH updates, 204 or 200 with return=representation; unknown and read-only properties are 400', async () => {
    const r = await graph(`${SA}/healthOverviews/Exchange`, {
      method: 'PATCH',
      body: { status: 'ServiceInterruption' },
    });
    expect(r.status).toBe(204);
    expect((await ok(`${SA}/healthOverviews/Exchange`)).status).toBe('ServiceInterruption');
    const rep = await graph(`${SA}/healthOverviews/Exchange%20Online`, {
      method: 'PATCH',
      body: { service: 'EXO' },
      headers: { prefer: 'return=representation' },
    });
    expect(rep.status).toBe(200);
    expect(rep.body).toMatchObject({ id: 'Exchange', service: 'EXO', status: 'ServiceInterruption' });
    expect(
      expectError(
        await graph(`${SA}/healthOverviews/Exchange`, { method: 'PATCH', body: { colour: 'red' } }),
        400,
        'BadRequest',
      ),
    ).toBe("Could not find a property named 'colour' on type 'microsoft.graph.serviceHealth'.");
    expect(
      expectError(
        await graph(`${SA}/healthOverviews/Exchange`, { method: 'PATCH', body: { id: 'E2' } }),
        400,
        'BadRequest',
      ),
    ).toMatch(/'id' is read-only/);
  });

  it('DELETE removes the service and its issues', async () => {
    const issues = (await ok(`${SA}/healthOverviews/Yammer/issues`)).value;
    expect(issues.length).toBeGreaterThan(0);
    expect((await graph(`${SA}/healthOverviews/Yammer`, { method: 'DELETE' })).status).toBe(204);
    expectError(await graph(`${SA}/healthOverviews/Yammer`), 404, 'itemNotFound');
    expectError(await graph(`${SA}/issues/${issues[0].id}`), 404, 'itemNotFound');
    await control('reset', {});
    expect((await ok(`${SA}/healthOverviews/Yammer`)).id).toBe('Yammer');
  });

  it('has services with more than a page of issues and services with none', async () => {
    const body = await ok(`${SA}/healthOverviews?$expand=issues($select=id)`);
    const counts = body.value.map((s: any) => s.issues.length);
    expect(Math.max(...counts)).toBeGreaterThan(100);
    expect(counts.filter((n: number) => n === 0).length).toBeGreaterThan(2);
    expect(counts.reduce((a: number, b: number) => a + b, 0)).toBeGreaterThanOrEqual(550);
  });
});

describe('issues', () => {
  it('lists issues with every documented field', async () => {
    const body = await ok(`${SA}/issues?$top=1`);
    expect(body['@odata.context']).toBe(`${root}/$metadata#admin/serviceAnnouncement/issues`);
    const issue = body.value[0];
    expect(Object.keys(issue).sort()).toEqual(
      [
        '@odata.etag',
        'classification',
        'details',
        'endDateTime',
        'feature',
        'featureGroup',
        'id',
        'impactDescription',
        'isResolved',
        'lastModifiedDateTime',
        'origin',
        'posts',
        'service',
        'startDateTime',
        'status',
        'title',
      ].sort(),
    );
    expect(issue.id).toMatch(/^[A-Z]{2}\d{6}$/);
    expect(['Advisory', 'Incident']).toContain(issue.classification);
    expect(issue.posts.length).toBeGreaterThanOrEqual(1);
    expect(issue.posts[0]).toEqual({
      createdDateTime: expect.any(String),
      postType: expect.stringMatching(/^(Regular|Quick|Strategic)$/),
      description: { contentType: expect.stringMatching(/^(Html|Text)$/), content: expect.any(String) },
    });
  });

  it('gets one issue and 404s an unknown one', async () => {
    const first = (await ok(`${SA}/issues?$top=1`)).value[0];
    const one = await ok(`${SA}/issues/${first.id}`);
    expect(one).toEqual({ '@odata.context': `${root}/$metadata#admin/serviceAnnouncement/issues/$entity`, ...first });
    expectError(await graph(`${SA}/issues/EX000000`), 404, 'itemNotFound');
  });

  it('pages through every issue exactly once with $skip nextLinks of 100', async () => {
    const { count } = { count: (await ok(`${SA}/issues?$count=true&$top=1`))['@odata.count'] };
    const { items, sizes, links } = await all(`${SA}/issues`);
    expect(items.length).toBe(count);
    expect(new Set(items.map((i) => i.id)).size).toBe(count);
    expect(sizes.slice(0, -1).every((n) => n === 100)).toBe(true);
    expect(links[0]).toBe(`${root}${SA}/issues?$skip=100`);
  });

  it('uses $top as the page size and keeps every option in the nextLink', async () => {
    const q = `$select=id,service&$filter=service eq 'Exchange Online'&$orderby=id&$top=40`;
    const { items, sizes, links } = await all(`${SA}/issues?${q}`);
    expect(sizes).toEqual([40, 40, 40, 22]);
    expect(items.map((i) => i.id)).toEqual([...items.map((i) => i.id)].sort());
    for (const i of items) expect(Object.keys(i)).toEqual(['@odata.etag', 'id', 'service']);
    const link = new URL(links[1]);
    expect(link.searchParams.get('$top')).toBe('40');
    expect(link.searchParams.get('$skip')).toBe('80');
    expect(link.searchParams.get('$filter')).toBe("service eq 'Exchange Online'");
    expect(link.searchParams.get('$select')).toBe('id,service');
    expect(link.searchParams.get('$orderby')).toBe('id');
  });

  it('honours Prefer: odata.maxpagesize up to 1000', async () => {
    const r = await graph(`${SA}/issues`, { headers: { prefer: 'odata.maxpagesize=250' } });
    expect(r.body.value).toHaveLength(250);
    expect(r.headers.get('preference-applied')).toBe('odata.maxpagesize=250');
    const big = await ok(`${SA}/issues`, { headers: { prefer: 'odata.maxpagesize=5000' } });
    expect(big.value.length).toBeGreaterThan(550);
    expect(big).not.toHaveProperty('@odata.nextLink');
  });

  it('POST on a service creates an issue with a generated id', async () => {
    const r = await graph(`${SA}/healthOverviews/Exchange/issues`, {
      method: 'POST',
      body: { title: 'Mail delays', classification: 'incident', details: [{ name: 'NotifyInApp', value: 'True' }] },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      '@odata.context': `${root}/$metadata#admin/serviceAnnouncement/healthOverviews('Exchange')/issues/$entity`,
      id: 'EX900001',
      title: 'Mail delays',
      classification: 'Incident',
      origin: 'Microsoft',
      status: 'Investigating',
      service: 'Exchange Online',
      isResolved: false,
      endDateTime: null,
      posts: [],
    });
    expect(r.headers.get('location')).toBe(`${root}${SA}/issues/EX900001`);
    expect((await ok(`${SA}/issues/EX900001`)).title).toBe('Mail delays');
    const second = await graph(`${SA}/healthOverviews/Exchange/issues`, { method: 'POST', body: { title: 'Second' } });
    expect(second.body.id).toBe('EX900002');
    const own = await ok(`${SA}/healthOverviews/Exchange/issues?$filter=id in ('EX900001','EX900002')`);
    expect(own.value.map((i: any) => i.id).sort()).toEqual(['EX900001', 'EX900002']);
  });

  it('POST issue validates its body', async () => {
    const post = (body: unknown) => graph(`${SA}/healthOverviews/Exchange/issues`, { method: 'POST', body });
    expect(expectError(await post({}), 400, 'BadRequest')).toMatch(/'title' is required/);
    expect(expectError(await post({ title: 'x', id: 'EX1' }), 400, 'BadRequest')).toMatch(/'id' is read-only/);
    expect(expectError(await post({ title: 'x', isResolved: 'no' }), 400, 'BadRequest')).toMatch(/'isResolved'/);
    expect(expectError(await post({ title: 'x', startDateTime: 'yesterday' }), 400, 'BadRequest')).toMatch(
      /'startDateTime'/,
    );
    expect(expectError(await post({ title: 'x', origin: 'Mars' }), 400, 'BadRequest')).toMatch(/'Mars'/);
    expect(expectError(await post({ title: 'x', mood: 'ok' }), 400, 'BadRequest')).toMatch(/'mood'/);
  });
});

describe('messages', () => {
  it('lists service update messages with their fields and gets one', async () => {
    const body = await ok(`${SA}/messages?$count=true`);
    expect(body['@odata.count']).toBeGreaterThanOrEqual(50);
    const m = body.value[0];
    expect(m.id).toMatch(/^MC\d{6}$/);
    expect(m).toMatchObject({
      category: expect.stringMatching(/^(PreventOrFixIssue|PlanForChange|StayInformed)$/),
      severity: expect.stringMatching(/^(Normal|High|Critical)$/),
      hasAttachments: false,
      viewPoint: null,
    });
    expect(m.body.contentType).toBe('Html');
    expect(Array.isArray(m.services) && Array.isArray(m.tags)).toBe(true);
    expect(await ok(`${SA}/messages/${m.id}`)).toEqual({
      '@odata.context': `${root}/$metadata#admin/serviceAnnouncement/messages/$entity`,
      ...m,
    });
    expectError(await graph(`${SA}/messages/MC000000`), 404, 'itemNotFound');
  });

  it('filters messages by service with any()', async () => {
    const body = await ok(`${SA}/messages?$filter=services/any(s:s eq 'Exchange Online')&$select=services`);
    expect(body.value.length).toBeGreaterThan(0);
    for (const m of body.value) expect(m.services).toContain('Exchange Online');
  });
});

describe('OData query options', () => {
  it('$select narrows the properties and names them in the context', async () => {
    const body = await ok(`${SA}/healthOverviews?$select=id,service`);
    expect(body['@odata.context']).toBe(`${root}/$metadata#admin/serviceAnnouncement/healthOverviews(id,service)`);
    expect(Object.keys(body.value[0])).toEqual(['@odata.etag', 'id', 'service']);
  });

  it('$expand=issues inlines every issue of the service', async () => {
    const body = await ok(`${SA}/healthOverviews/Exchange?$expand=issues`);
    expect(body['@odata.context']).toBe(
      `${root}/$metadata#admin/serviceAnnouncement/healthOverviews(issues())/$entity`,
    );
    const own = await all(`${SA}/healthOverviews/Exchange/issues`);
    expect(body.issues.length).toBe(own.items.length);
    expect(body.issues.length).toBeGreaterThan(100);
    expect(body).not.toHaveProperty('issues@odata.nextLink');
    const list = await ok(`${SA}/healthOverviews?$expand=issues&$top=2`);
    expect(list['@odata.context']).toBe(`${root}/$metadata#admin/serviceAnnouncement/healthOverviews(issues())`);
  });

  it('nested $expand options select, filter, order, skip and count', async () => {
    const q = `$select=id&$expand=issues($select=id,title,startDateTime;$filter=classification eq 'Incident';$orderby=startDateTime desc;$skip=1;$count=true)`;
    const body = await ok(`${SA}/healthOverviews/microsoftteams?${encodeURI(q)}`);
    expect(body['@odata.context']).toBe(
      `${root}/$metadata#admin/serviceAnnouncement/healthOverviews(id,issues(id,title,startDateTime))/$entity`,
    );
    const incidents = (
      await ok(
        `${SA}/healthOverviews/microsoftteams/issues?$filter=classification eq 'Incident'&$orderby=startDateTime desc&$top=999`,
      )
    ).value;
    expect(body['issues@odata.count']).toBe(incidents.length);
    expect(body.issues.map((i: any) => i.id)).toEqual(incidents.slice(1).map((i: any) => i.id));
    expect(Object.keys(body.issues[0])).toEqual(['@odata.etag', 'id', 'title', 'startDateTime']);
  });

  it('nested $top caps the issues and links to the rest, keeping the nested options', async () => {
    const body = await ok(`${SA}/healthOverviews/Exchange?$expand=issues($top=30;$select=id;$orderby=id)`);
    expect(body.issues).toHaveLength(30);
    const link = body['issues@odata.nextLink'];
    expect(link).toBe(`${root}${SA}/healthOverviews/Exchange/issues?$top=30&$select=id&$orderby=id&$skip=30`);
    const rest = await all(link);
    const ids = [...body.issues, ...rest.items].map((i) => i.id);
    const expected = (await all(`${SA}/healthOverviews/Exchange/issues?$select=id`)).items.map((i) => i.id).sort();
    expect(ids).toEqual(expected);
    expect(rest.sizes.every((n) => n <= 30)).toBe(true);
  });

  it('$filter escapes quotes by doubling them', async () => {
    await graph(`${SA}/healthOverviews`, { method: 'POST', body: { id: 'Contoso', service: "Contoso's Mail" } });
    const body = await ok(`${SA}/healthOverviews?$filter=${encodeURIComponent("service eq 'Contoso''s Mail'")}`);
    expect(body.value.map((s: any) => s.id)).toEqual(['Contoso']);
  });

  it('$filter supports in, and/or/not with parentheses, functions, booleans, null and enums in any case', async () => {
    const ids = async (filter: string, path = `${SA}/healthOverviews`) =>
      (await ok(`${path}?$filter=${encodeURIComponent(filter)}&$top=999`)).value.map((s: any) => s.id);
    expect(await ids("id in ('Exchange', 'SharePoint','Nope')")).toEqual(['Exchange', 'SharePoint']);
    const mixed = await ids(
      "(startswith(id,'micro') or endswith(service, 'Online')) and not contains(service,'Teams')",
    );
    expect(mixed).toEqual(expect.arrayContaining(['Exchange', 'SharePoint', 'MicrosoftForms', 'Microsoft365Defender']));
    expect(mixed).not.toContain('microsoftteams');
    expect(mixed).not.toContain('Intune');
    expect(await ids("contains(service,'Teams')")).toEqual(['microsoftteams']);
    const operational = await ids("status eq 'serviceoperational'");
    expect(operational).toEqual(await ids("status eq 'ServiceOperational'"));
    expect(operational.length).toBeGreaterThan(0);
    const all = await ids('id ne null');
    expect((await ids("not (status eq 'ServiceOperational')")).length).toBe(all.length - operational.length);
    const unresolved = await ids('isResolved eq false', `${SA}/issues`);
    expect(await ids('endDateTime eq null', `${SA}/issues`)).toEqual(unresolved);
    expect(unresolved.length).toBeGreaterThan(0);
  });

  it('$filter takes unquoted DateTimeOffset literals and compares instants', async () => {
    const body = await ok(
      `${SA}/issues?$filter=startDateTime ge 2024-01-01T00:00:00Z and startDateTime lt 2024-03-01T12:00:00%2B01:00&$top=999`,
    );
    expect(body.value.length).toBeGreaterThan(0);
    for (const i of body.value) {
      expect(Date.parse(i.startDateTime)).toBeGreaterThanOrEqual(Date.parse('2024-01-01T00:00:00Z'));
      expect(Date.parse(i.startDateTime)).toBeLessThan(Date.parse('2024-03-01T11:00:00Z'));
    }
  });

  it('$orderby sorts by several keys, ascending by default', async () => {
    const body = await ok(
      `${SA}/issues?$orderby=classification,startDateTime desc&$top=999&$select=classification,startDateTime`,
    );
    const rows = body.value as { classification: string; startDateTime: string }[];
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1], rows[i]];
      expect(a.classification <= b.classification).toBe(true);
      if (a.classification === b.classification) expect(a.startDateTime >= b.startDateTime).toBe(true);
    }
    expect(rows[0].classification).toBe('Advisory');
    expect(rows.at(-1)!.classification).toBe('Incident');
  });

  it('accepts an encoded $ and + for spaces', async () => {
    const body = await ok(`${SA}/healthOverviews?%24top=2&%24orderby=service+desc&%24select=service`);
    expect(body.value).toHaveLength(2);
    const names = (await ok(`${SA}/healthOverviews?$select=service`)).value
      .map((s: any) => s.service)
      .sort()
      .reverse();
    expect(body.value.map((s: any) => s.service)).toEqual(names.slice(0, 2));
    expect(body['@odata.nextLink']).toBe(
      `${root}${SA}/healthOverviews?%24top=2&%24orderby=service+desc&%24select=service&$skip=2`,
    );
  });

  it('$count=true adds @odata.count on the first page only', async () => {
    const first = await ok(`${SA}/issues?$count=true&$top=300`);
    expect(first['@odata.count']).toBeGreaterThan(300);
    const second = await ok(first['@odata.nextLink']);
    expect(second).not.toHaveProperty('@odata.count');
  });

  it.each([
    ['$foo=1', "Unrecognized query argument specified: '$foo'."],
    ['$select=foo', "Could not find a property named 'foo' on type 'microsoft.graph.serviceHealth'."],
    ['$orderby=foo', "Could not find a property named 'foo' on type 'microsoft.graph.serviceHealth'."],
    ['$orderby=id sideways', "expected 'asc' or 'desc' after 'id', found 'sideways'"],
    ["$filter=foo eq 'x'", "Could not find a property named 'foo' on type 'microsoft.graph.serviceHealth'."],
    ['$filter=id eq', 'Syntax error in $filter'],
    ["$filter=id eq 'unterminated", 'unterminated string literal'],
    ['$filter=id eq 3', "incompatible types was detected. Found operand types 'Edm.String' and 'Edm.Double'"],
    ["$filter=frob(id,'x')", "unknown function with name 'frob'"],
    ['$expand=status', "Property 'status' on type 'microsoft.graph.serviceHealth' is not a navigation property"],
    ['$expand=issues,issues', 'Only one relationship can be expanded per level'],
    [
      '$expand=issues($select=nope)',
      "Could not find a property named 'nope' on type 'microsoft.graph.serviceHealthIssue'.",
    ],
    ['$expand=issues($top=5', 'unbalanced'],
    ['$expand=issues($frob=1)', "Unrecognized query argument specified: '$frob'."],
    ['$top=0', "Invalid value '0' for $top"],
    ['$top=1000', "Invalid value '1000' for $top"],
    ['$top=abc', "Invalid value 'abc' for $top"],
    ['$skip=-1', "Invalid value '-1' for $skip"],
    ['$count=yes', "Invalid value 'yes' for $count"],
    ['$search=exchange', "'$search' is not supported"],
    ['$top=1&$top=2', "Query option '$top' was specified more than once"],
    ['$filter=id%ZZ', 'malformed percent-encoding'],
  ])('%s is a 400 naming the problem', async (query, message) => {
    const r = await graph(`${SA}/healthOverviews?${query}`);
    expect(expectError(r, 400, 'BadRequest')).toContain(message);
  });

  it('/$count answers the number of matching entities as a bare integer', async () => {
    const res = await fetch(
      `${root}${SA}/issues/$count?$filter=${encodeURIComponent("classification eq 'Incident'")}`,
      { headers: { authorization: 'Bearer sandbox' } },
    );
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const incidents = (await ok(`${SA}/issues?$filter=classification eq 'Incident'&$count=true&$top=1`))[
      '@odata.count'
    ];
    expect(await res.text()).toBe(String(incidents));
    expect(await ok(`${SA}/healthOverviews/$count`)).toBe((await ok(`${SA}/healthOverviews`)).value.length);
    expect(await ok(`${SA}/healthOverviews/Exchange/issues/$count`)).toBe(
      (await ok(`${SA}/healthOverviews/Exchange?$expand=issues`)).issues.length,
    );
  });

  it('refuses collection options on a single entity', async () => {
    expect(
      expectError(
        await graph(`${SA}/issues/${(await ok(`${SA}/issues?$top=1`)).value[0].id}?$top=1`),
        400,
        'BadRequest',
      ),
    ).toMatch(/\$top/);
  });
});

describe('ETags and If-Match', () => {
  it('every write changes the etag; a stale If-Match is 412 resourceModified', async () => {
    const { '@odata.etag': etag } = await ok(`${SA}/healthOverviews/Exchange`);
    expect(
      (
        await graph(`${SA}/healthOverviews/Exchange`, {
          method: 'PATCH',
          body: { status: 'Investigating' },
          headers: { 'if-match': etag },
        })
      ).status,
    ).toBe(204);
    const stale = await graph(`${SA}/healthOverviews/Exchange`, {
      method: 'PATCH',
      body: { status: 'ServiceOperational' },
      headers: { 'if-match': etag },
    });
    expect(expectError(stale, 412, 'resourceModified')).toContain('entityTagDoesNotMatch');
    expect(stale.body.error.innerError.code).toBe('entityTagDoesNotMatch');
    expectError(
      await graph(`${SA}/healthOverviews/Exchange`, { method: 'DELETE', headers: { 'if-match': etag } }),
      412,
      'resourceModified',
    );
    expect((await ok(`${SA}/healthOverviews/Exchange`)).status).toBe('Investigating');
  });

  it('If-Match * or the current etag passes, absent passes', async () => {
    expect((await graph(SA, { method: 'PATCH', body: { a: 1 }, headers: { 'if-match': '*' } })).status).toBe(204);
    const { '@odata.etag': etag } = await ok(SA);
    expect((await graph(SA, { method: 'PATCH', body: { a: 2 }, headers: { 'if-match': etag } })).status).toBe(204);
    expect((await graph(SA, { method: 'PATCH', body: { a: 3 } })).status).toBe(204);
    const current = (await ok(SA))['@odata.etag'];
    expect((await graph(SA, { method: 'DELETE', headers: { 'if-match': current } })).status).toBe(204);
  });

  it('an unquoted If-Match is 400 malformedEntityTag', async () => {
    const { '@odata.etag': etag } = await ok('/admin');
    const unquoted = etag.replace(/^W\/"|"$/g, '');
    expect(
      expectError(
        await graph('/admin', { method: 'PATCH', body: { a: 1 }, headers: { 'if-match': unquoted } }),
        400,
        'malformedEntityTag',
      ),
    ).toContain(unquoted);
  });
});

describe('$batch', () => {
  const batch = (requests: unknown[], token?: string | null) =>
    graph('/$batch', { method: 'POST', body: { requests }, token });

  it('answers 20 requests, not in request order, each matched by id', async () => {
    const services = (await ok(`${SA}/healthOverviews?$top=20&$select=id`)).value.map((s: any) => s.id);
    const r = await batch(
      services.map((id: string, i: number) => ({
        id: String(i + 1),
        method: 'GET',
        url: `/admin/serviceAnnouncement/healthOverviews/${id}`,
      })),
    );
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(ODATA_JSON);
    const responses = r.body.responses as any[];
    expect(responses).toHaveLength(20);
    expect(responses.map((x) => x.id)).not.toEqual(services.map((_: string, i: number) => String(i + 1)));
    for (const x of responses) {
      expect(x.status).toBe(200);
      expect(x.headers['Content-Type']).toBe(ODATA_JSON);
      expect(x.body.id).toBe(services[Number(x.id) - 1]);
    }
  });

  it('refuses 21 requests and duplicate ids for the whole batch', async () => {
    const item = (id: string) => ({ id, method: 'GET', url: 'admin' });
    expect(expectError(await batch(Array.from({ length: 21 }, (_, i) => item(String(i)))), 400, 'BadRequest')).toMatch(
      /at most 20/,
    );
    expect(expectError(await batch([item('a'), item('A')]), 400, 'BadRequest')).toMatch(/'A' is used more than once/);
    expectError(await batch([{ method: 'GET', url: 'admin' }]), 400, 'BadRequest');
    expectError(await batch([item('1'), { ...item('2'), dependsOn: ['9'] }]), 400, 'BadRequest');
    const patch = {
      method: 'PATCH',
      url: '/admin',
      headers: { 'Content-Type': 'application/json' },
      body: { touched: true },
    };
    const cycle = await batch([
      { id: 'w', ...patch },
      { ...item('x'), dependsOn: ['y'] },
      { ...item('y'), dependsOn: ['x'] },
    ]);
    expect(expectError(cycle, 400, 'BadRequest')).toMatch(/cycle/);
    expect(await ok('/admin')).not.toHaveProperty('touched');
    expect(expectError(await graph('/$batch', { method: 'POST', body: { nope: [] } }), 400, 'BadRequest')).toMatch(
      /requests/,
    );
  });

  it('fails a request with 424 when a request it depends on failed', async () => {
    const r = await batch([
      { id: '1', method: 'GET', url: '/admin/serviceAnnouncement/healthOverviews/Nope' },
      { id: '2', method: 'GET', url: '/admin/serviceAnnouncement/healthOverviews/Exchange', dependsOn: ['1'] },
      { id: '3', method: 'GET', url: 'admin/serviceAnnouncement/healthOverviews/Exchange?$select=id' },
      { id: '4', method: 'GET', url: '/admin', dependsOn: ['3'] },
    ]);
    const byId = Object.fromEntries((r.body.responses as any[]).map((x) => [x.id, x]));
    expect([byId[1].status, byId[2].status, byId[3].status, byId[4].status]).toEqual([404, 424, 200, 200]);
    expect(byId[1].body.error.code).toBe('itemNotFound');
    expect(byId[2].body.error.message).toContain("'1'");
    expect(byId[3].body).toEqual({
      '@odata.context': `${root}/$metadata#admin/serviceAnnouncement/healthOverviews(id)/$entity`,
      '@odata.etag': expect.any(String),
      id: 'Exchange',
    });
  });

  it('runs writes in dependency order and applies If-Match per item', async () => {
    const { '@odata.etag': etag } = await ok(`${SA}/healthOverviews/Exchange`);
    const r = await batch([
      {
        id: 'create',
        method: 'POST',
        url: '/admin/serviceAnnouncement/healthOverviews',
        headers: { 'Content-Type': 'application/json' },
        body: { id: 'Contoso', service: 'Contoso' },
      },
      {
        id: 'patch',
        method: 'PATCH',
        url: '/admin/serviceAnnouncement/healthOverviews/Exchange',
        headers: { 'Content-Type': 'application/json', 'If-Match': etag },
        body: { status: 'Investigating' },
      },
      {
        id: 'again',
        method: 'PATCH',
        url: '/admin/serviceAnnouncement/healthOverviews/Exchange',
        headers: { 'Content-Type': 'application/json', 'If-Match': etag },
        body: { status: 'Investigating' },
        dependsOn: ['patch'],
      },
      { id: 'read', method: 'GET', url: '/admin/serviceAnnouncement/healthOverviews/Contoso', dependsOn: ['create'] },
    ]);
    const byId = Object.fromEntries((r.body.responses as any[]).map((x) => [x.id, x]));
    expect(byId.create.status).toBe(201);
    expect(byId.create.headers.Location).toBe(`${root}${SA}/healthOverviews/Contoso`);
    expect(byId.patch).toEqual({ id: 'patch', status: 204, headers: {} });
    expect(byId.again.status).toBe(412);
    expect(byId.again.body.error.code).toBe('resourceModified');
    expect(byId.read.body.service).toBe('Contoso');
    expect(expectError(await batch([{ id: '1', method: 'POST', url: '/admin', body: {} }]), 400, 'BadRequest')).toMatch(
      /Content-Type/,
    );
  });

  it('answers an item hit by an injected fault with that status and Retry-After', async () => {
    await control('faults', { upstream: 'graph', match: 'healthOverviews/Exchange', status: 429, retryAfter: 1 });
    const r = await batch([
      { id: 'a', method: 'GET', url: '/admin/serviceAnnouncement/healthOverviews/SharePoint' },
      { id: 'b', method: 'GET', url: '/admin/serviceAnnouncement/healthOverviews/Exchange' },
    ]);
    expect(r.status).toBe(200);
    const byId = Object.fromEntries((r.body.responses as any[]).map((x) => [x.id, x]));
    expect(byId.a.status).toBe(200);
    expect(byId.b.status).toBe(429);
    expect(byId.b.headers['Retry-After']).toBe('1');
    expect(byId.b.body.error.code).toBe('TooManyRequests');
    const again = await batch([{ id: 'b', method: 'GET', url: '/admin/serviceAnnouncement/healthOverviews/Exchange' }]);
    expect(again.body.responses[0].status).toBe(200);
  });

  it('needs the outer token, which covers every item', async () => {
    expectError(await batch([{ id: '1', method: 'GET', url: '/admin' }], null), 401, 'InvalidAuthenticationToken');
    expectError(await graph('/$batch'), 405, 'Request_BadRequest');
  });

  it('answers an absolute item url with a 400 item', async () => {
    const r = await batch([{ id: '1', method: 'GET', url: 'https://graph.microsoft.com/v1.0/admin' }]);
    expect(r.body.responses[0].status).toBe(400);
  });
});

describe('bearer tokens', () => {
  it('a missing token is 401 "Access token is empty."', async () => {
    const r = await graph(`${SA}/healthOverviews`, { token: null });
    expect(expectError(r, 401, 'InvalidAuthenticationToken')).toBe('Access token is empty.');
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('an unknown token is 401', async () => {
    expect(expectError(await graph('/admin', { token: 'garbage' }), 401, 'InvalidAuthenticationToken')).toMatch(
      /^IDX14100: JWT is not well formed/,
    );
    expectError(await graph('/admin', { token: 'a.b.c' }), 401, 'InvalidAuthenticationToken');
  });
});
