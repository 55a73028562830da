import { createClient as createSseClient } from 'graphql-sse';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { mergePayloads, type IncrementalPayload } from '../support/incremental.js';
import { readMultipart } from '../support/multipart.js';
import { collect, wsClient } from '../support/ws.js';

/** What Apollo Client's Defer20220824Handler sends for a document with `@defer`. */
const DEFER_ACCEPT = 'multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9';

/** Ten search hits at no extra cost, each one's details deferred: one lookup per distinct title. */
const SEARCH_DEFERRED = `query Search($q: String!) { searchTitles(query: $q) { items { imdbId title
  ... @defer(label: "details") { directors imdbRating } } } }`;
const HEALTH_DEFERRED = `{ admin { serviceAnnouncement { healthOverviews(first: 3, orderBy: [{ field: SERVICE, direction: ASC }]) { nodes { id service
  ... on ServiceHealth @defer(label: "issues") { status issues(first: 2) { nodes { id title } } } } } } } }`;

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());
beforeEach(() => {
  t.clearUpstreamRequests();
  t.sandbox.faults.clear();
});

const post = (body: unknown, accept = DEFER_ACCEPT) =>
  fetch(t.gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify(body),
  });

/** Every part of an incremental multipart answer, and a callback at each one as it arrives. */
async function parts(body: unknown, onPart: (part: IncrementalPayload, index: number) => void = () => undefined) {
  const res = await post(body);
  expect(res.headers.get('content-type')).toBe('multipart/mixed;boundary="-";deferSpec=20220824');
  const read = await readMultipart(res, (part, all) => onPart(part as IncrementalPayload, all.length - 1));
  return { payloads: read.parts as IncrementalPayload[], closed: read.closed };
}

/** A distinct search per test: the titles cache must not answer what a test counts. */
const omdbSearches = () => t.upstreamRequests('omdb').filter((r) => r.url.includes('s='));
const omdbLookups = () => t.upstreamRequests('omdb').filter((r) => /[?&]i=tt/.test(r.url));

describe('@defer and @stream over HTTP multipart (Apollo Router format)', () => {
  it('answers in the multipart format Apollo Client reads: parts with JSON bodies, the initial data first, then incremental, closed by -----', async () => {
    const res = await post({ query: '{ upstreams { id } ... @defer(label: "later") { chatProviders { id } } }' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('multipart/mixed;boundary="-";deferSpec=20220824');
    const raw = await res.text();
    const part = '\r\n---\r\ncontent-type: application/json; charset=utf-8\r\n\r\n';
    expect(raw.startsWith(part)).toBe(true);
    expect(raw.endsWith('\r\n-----\r\n')).toBe(true);
    const bodies = raw
      .slice(part.length, -'\r\n-----\r\n'.length)
      .split(part)
      .map((b) => JSON.parse(b) as IncrementalPayload);
    expect(bodies[0]).toEqual({
      data: { upstreams: expect.any(Array) },
      hasNext: true,
      extensions: { cost: expect.objectContaining({ upstreamRequests: 0 }) },
    });
    expect(bodies.at(-1)!.hasNext).toBe(false);
    const incremental = bodies.slice(1).flatMap((b) => b.incremental ?? []);
    expect(incremental).toEqual([
      { data: { chatProviders: expect.arrayContaining([{ id: 'glm' }]) }, path: [], label: 'later' },
    ]);
  });

  it('sends the first part while a slow deferred lookup is still in flight, and still one OMDb request per distinct title', async () => {
    // Every detail lookup waits; the search does not.
    t.sandbox.faults.push({ upstream: 'omdb', times: 10, delayMs: 1500, match: 'i=tt' });
    let answeredAtFirstPart: number | undefined;
    const { payloads, closed } = await parts({ query: SEARCH_DEFERRED, variables: { q: 'batman' } }, (_part, index) => {
      if (index === 0) answeredAtFirstPart = omdbLookups().filter((r) => r.status !== null).length;
    });
    expect(closed).toBe(true);
    const [first, ...rest] = payloads;
    expect(first.hasNext).toBe(true);
    const items = first.data.searchTitles.items as Array<Record<string, unknown>>;
    expect(items).toHaveLength(10);
    expect(items.every((i) => !('directors' in i) && !('imdbRating' in i))).toBe(true);
    // The initial part left the gateway before any of the slow lookups answered.
    expect(answeredAtFirstPart).toBe(0);
    const deferred = rest.flatMap((p) => p.incremental ?? []);
    expect(deferred).toHaveLength(10);
    expect(
      deferred.every((d) => d.label === 'details' && d.path[0] === 'searchTitles' && Array.isArray(d.data?.directors)),
    ).toBe(true);
    expect(mergePayloads(payloads).data.searchTitles.items[0]).toMatchObject({
      imdbId: items[0].imdbId,
      directors: expect.any(Array),
    });
    expect(omdbSearches()).toHaveLength(1);
    const ids = omdbLookups().map((r) => /[?&]i=(tt\d+)/.exec(r.url)![1]);
    expect(ids).toHaveLength(10);
    expect(new Set(ids).size).toBe(10);
  });

  it('plans a deferred nested health selection into the one Graph request of its list', async () => {
    const { payloads } = await parts({ query: HEALTH_DEFERRED });
    const first = payloads[0].data.admin.serviceAnnouncement.healthOverviews.nodes as Array<Record<string, unknown>>;
    expect(first).toHaveLength(3);
    expect(first.every((n) => !('issues' in n) && !('status' in n))).toBe(true);
    const merged = mergePayloads(payloads).data.admin.serviceAnnouncement.healthOverviews.nodes;
    expect(merged.every((n: any) => typeof n.status === 'string' && Array.isArray(n.issues.nodes))).toBe(true);
    const graph = t.upstreamRequests('graph');
    expect(graph).toHaveLength(1);
    expect(decodeURIComponent(graph[0].url)).toContain('$expand=issues($select=id,title;$top=2)');
  });

  it('plans a deferred named fragment spread the same way: one Graph request with its $select and $expand', async () => {
    const query = `{ admin { serviceAnnouncement { healthOverviews(first: 3) { nodes { id ...Health @defer(label: "health") } } } } }
      fragment Health on ServiceHealth { status issues(first: 2) { nodes { id title } } }`;
    const { payloads } = await parts({ query });
    expect(
      payloads[0].data.admin.serviceAnnouncement.healthOverviews.nodes.every(
        (n: any) => Object.keys(n).join() === 'id',
      ),
    ).toBe(true);
    expect(
      mergePayloads(payloads).data.admin.serviceAnnouncement.healthOverviews.nodes.every(
        (n: any) => n.status && n.issues.nodes,
      ),
    ).toBe(true);
    const graph = t.upstreamRequests('graph');
    expect(graph).toHaveLength(1);
    expect(decodeURIComponent(graph[0].url)).toContain('$select=id,status&$expand=issues($select=id,title;$top=2)');
  });

  it('streams a list with @stream: initialCount items first, then the rest as items at their index', async () => {
    // The sandbox finds six Star Wars films.
    const { payloads } = await parts({
      query: '{ searchTitles(query: "star wars") { items @stream(initialCount: 2) { imdbId } } }',
    });
    expect(payloads[0].data.searchTitles.items).toHaveLength(2);
    const streamed = payloads.slice(1).flatMap((p) => p.incremental ?? []);
    expect(streamed.map((s) => s.path)).toEqual(Array.from({ length: 4 }, (_, i) => ['searchTitles', 'items', i + 2]));
    expect(mergePayloads(payloads).data.searchTitles.items).toHaveLength(6);
    expect(omdbSearches()).toHaveLength(1);
  });

  it('answers a client that does not ask for parts with the whole result, at the same upstream cost', async () => {
    const whole = await post({ query: SEARCH_DEFERRED, variables: { q: 'lord of the rings' } }, 'application/json');
    expect(whole.headers.get('content-type')).toContain('application/json');
    const body = (await whole.json()) as { data: any; errors?: unknown };
    expect(body.errors).toBeUndefined();
    expect(body.data.searchTitles.items.every((i: any) => Array.isArray(i.directors))).toBe(true);
    const cost = t.upstreamRequests('omdb').length;
    t.clearUpstreamRequests();
    // The same search in parts now comes from the titles cache: its merged answer equals the whole one.
    const { payloads } = await parts({ query: SEARCH_DEFERRED, variables: { q: 'lord of the rings' } });
    expect(mergePayloads(payloads).data).toEqual(body.data);
    expect(cost).toBe(1 + new Set(body.data.searchTitles.items.map((i: any) => i.imdbId)).size);
  });

  it('refuses a deferred operation over the limits before any part or upstream request', async () => {
    const res = await post({
      query: '{ ... @defer { title(imdbId: "tt0078346") { title } } x: title(imdbId: "tt0078346") { nope } }',
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
    const body = (await res.json()) as { errors: Array<{ extensions: { code: string } }> };
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('refuses a deferred mutation whose variables do not coerce as BAD_USER_INPUT, 400, before any part, rule failure or upstream request', async () => {
    const query =
      'mutation($input: ChatCompletionInput!) { createChatCompletion(input: $input) { model ... @defer { content } } }';
    const res = await post({ query, variables: { input: null } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(body.errors[0]).toMatchObject({
      message: 'Variable "$input" of non-null type "ChatCompletionInput!" must not be null.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect(t.logs.lines.filter((l) => l.includes('a pipeline rule failed'))).toEqual([]);
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('refuses a subscription sent this way as Apollo refuses one over plain HTTP, naming the streaming protocols', async () => {
    const res = await post({ query: 'subscription { serverTime(intervalMs: 10, count: 2) } # asks for @defer' });
    const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].message).toContain('A subscription needs a streaming response');
  });

  it('aborts the deferred upstream requests when the client leaves after the first part', async () => {
    t.sandbox.faults.push({ upstream: 'omdb', times: 10, delayMs: 5000, match: 'i=tt' });
    const controller = new AbortController();
    const res = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: DEFER_ACCEPT },
      body: JSON.stringify({ query: SEARCH_DEFERRED, variables: { q: 'alien' } }),
      signal: controller.signal,
    });
    let items = 0;
    await readMultipart(res, (part) => {
      items = (part as IncrementalPayload).data.searchTitles.items.length;
      return true;
    }).catch(() => undefined);
    // Every deferred lookup has reached the (slow) upstream; then the client leaves.
    await expect.poll(() => omdbLookups().length, { timeout: 3000 }).toBe(items);
    controller.abort();
    await expect.poll(() => omdbLookups().filter((r) => r.aborted).length, { timeout: 3000 }).toBe(items);
  });
});

describe('@defer over graphql-ws and GraphQL over SSE', () => {
  it('sends the initial payload and then the incremental payloads as next messages, then complete (graphql-ws)', async () => {
    const client = wsClient(t.gateway.wsUrl);
    try {
      const { results, error } = await collect(client, HEALTH_DEFERRED);
      expect(error).toBeUndefined();
      const payloads = results as IncrementalPayload[];
      expect(payloads[0].hasNext).toBe(true);
      expect(payloads[0].data.admin.serviceAnnouncement.healthOverviews.nodes[0]).not.toHaveProperty('issues');
      expect(payloads.at(-1)!.hasNext).toBe(false);
      expect(
        payloads
          .slice(1)
          .flatMap((p) => p.incremental ?? [])
          .every((e) => e.label === 'issues'),
      ).toBe(true);
      expect(mergePayloads(payloads).data.admin.serviceAnnouncement.healthOverviews.nodes[0].issues.nodes).toEqual(
        expect.any(Array),
      );
      expect(t.upstreamRequests('graph')).toHaveLength(1);
    } finally {
      await client.dispose();
    }
  });

  it('sends the same payloads as next events (GraphQL over SSE)', async () => {
    const client = createSseClient({ url: t.gateway.url, retryAttempts: 0 });
    try {
      const payloads = await new Promise<IncrementalPayload[]>((resolve, reject) => {
        const out: IncrementalPayload[] = [];
        client.subscribe(
          { query: HEALTH_DEFERRED },
          { next: (r) => void out.push(r as IncrementalPayload), error: reject, complete: () => resolve(out) },
        );
      });
      expect(payloads[0]).toMatchObject({ hasNext: true });
      expect(payloads.at(-1)!.hasNext).toBe(false);
      expect(
        mergePayloads(payloads).data.admin.serviceAnnouncement.healthOverviews.nodes.every((n: any) => n.issues),
      ).toBe(true);
      expect(t.upstreamRequests('graph')).toHaveLength(1);
    } finally {
      client.dispose();
    }
  });
});

describe('the schema', () => {
  it('defines @defer and @stream for clients (introspection) but not in the SDL a router composes', async () => {
    const { body } = await t.query('{ __schema { directives { name args { name } } } _service { sdl } }');
    const directives = (body.data as any).__schema.directives as Array<{ name: string; args: Array<{ name: string }> }>;
    expect(
      directives
        .find((d) => d.name === 'defer')
        ?.args.map((a) => a.name)
        .sort(),
    ).toEqual(['if', 'label']);
    expect(
      directives
        .find((d) => d.name === 'stream')
        ?.args.map((a) => a.name)
        .sort(),
    ).toEqual(['if', 'initialCount', 'label']);
    expect((body.data as any)._service.sdl).not.toMatch(/directive @(defer|stream)/);
  });
});

describe('@defer and @stream used as the incremental delivery RFC allows', () => {
  it.each([
    [
      '@stream(initialCount: -1)',
      '{ searchTitles(query: "x") { items @stream(initialCount: -1) { imdbId } } }',
      '@stream(initialCount: -1) must be 0 or more',
    ],
    [
      '@stream(initialCount: null)',
      '{ searchTitles(query: "x") { items @stream(initialCount: null) { imdbId } } }',
      '@stream(initialCount: null) must be 0 or more',
    ],
    [
      '@stream on a field that is not a list',
      '{ title(imdbId: "tt0078346") { title @stream } }',
      '@stream is for list fields: Title.title is String',
    ],
    [
      'a label used twice',
      '{ ... @defer(label: "a") { upstreams { id } } ... @defer(label: "a") { u: upstreams { mode } } }',
      '@defer(label: "a") is used twice',
    ],
    [
      'a label from a variable',
      'query ($l: String) { ... @defer(label: $l) { upstreams { id } } }',
      '@defer(label:) must be a string written in the document',
    ],
    [
      "@defer on a mutation's root fields",
      'mutation { ... @defer { updateAdmin(input: { properties: [{ name: "x", value: "y" }] }) { __typename } } }',
      '@defer cannot be used on the root fields of a mutation',
    ],
  ])('refuses %s as BAD_USER_INPUT before any upstream request', async (_name, query, message) => {
    const res = await post({ query, variables: { l: 'x' } });
    const body = (await res.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(body.errors[0].message).toContain(message);
    expect(t.upstreamRequests()).toEqual([]);
  });
});
