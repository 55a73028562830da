import { createClient as createSseClient } from 'graphql-sse';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { readMultipart, type MultipartPart } from '../../support/multipart.js';
import { COMPLETION, STREAM, eventually, text, user, type Chunk } from '../../support/chat.js';

const MULTIPART = 'multipart/mixed;boundary="graphql";subscriptionSpec="1.0",application/json';
const input = { provider: 'deepseek', model: 'deepseek-flash', messages: [user('What does a GraphQL gateway do?')] };

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway({}, { chatTokenDelayMs: 1 }, { multipartHeartbeatMs: 20 });
});
afterAll(() => t.close());
beforeEach(async () => {
  t.clearUpstreamRequests();
  await setTokenDelay(1);
});

const setTokenDelay = (ms: number) =>
  fetch(`${t.sandbox.origin}/_sandbox/config`, { method: 'POST', body: JSON.stringify({ chatTokenDelayMs: ms }) });
const post = (accept: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(t.gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, ...headers },
    body: JSON.stringify(body),
  });

async function mutationContent(): Promise<string> {
  const { body } = await t.query(COMPLETION, { input });
  return body.data.createChatCompletion.content;
}

/** Every `next` event's payload of a distinct-connections SSE stream, read with the graphql-sse client. */
function sseResults(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string> = {},
  singleConnection = false,
) {
  const client = createSseClient({ url, headers, retryAttempts: 0, singleConnection });
  return new Promise<Array<{ data?: any; errors?: any[] }>>((resolve, reject) => {
    const results: Array<{ data?: any; errors?: any[] }> = [];
    client.subscribe(
      { query, variables },
      { next: (r) => void results.push(r as never), error: reject, complete: () => resolve(results) },
    );
  }).finally(() => client.dispose());
}

describe('GraphQL over SSE (graphql-sse) on /graphql', () => {
  it('streams chatCompletionStream whose accumulated text equals the mutation content, with one upstream stream', async () => {
    const expected = await mutationContent();
    t.clearUpstreamRequests();
    const results = await sseResults(t.gateway.url, STREAM, { input });
    const chunks = results.map((r) => r.data.chatCompletionStream as Chunk);
    expect(chunks.length).toBeGreaterThan(3);
    expect(text(chunks)).toBe(expected);
    expect(chunks.at(-1)!.usage?.totalTokens).toBeGreaterThan(0);
    const upstream = t.upstreamRequests('deepseek');
    expect(upstream).toHaveLength(1);
    expect(JSON.parse(upstream[0].body).stream).toBe(true);
  });

  it('serves the single-connection mode too (PUT reservation, operations with the stream token)', async () => {
    const expected = await mutationContent();
    const results = await sseResults(t.gateway.url, STREAM, { input }, {}, true);
    expect(text(results.map((r) => r.data.chatCompletionStream as Chunk))).toBe(expected);
  });

  it('runs queries too, and refuses an operation over the limits with QUERY_TOO_COMPLEX before any upstream call', async () => {
    const [ok] = await sseResults(t.gateway.url, '{ chatProviders { id } }', {});
    expect(ok.data.chatProviders.map((p: { id: string }) => p.id)).toContain('glm');
    const aliases = Array.from({ length: 40 }, (_, i) => `a${i}: chatProviders { id }`).join(' ');
    const [refused] = await sseResults(t.gateway.url, `{ ${aliases} }`, {});
    expect(refused.errors?.[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(refused.errors?.[0].extensions.limit).toBe('GATEWAY_MAX_ALIASES');
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('aborts the upstream chat request when the client closes the event stream', async () => {
    await setTokenDelay(50);
    const controller = new AbortController();
    const res = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: STREAM, variables: { input } }),
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    let seen = '';
    while ((seen.match(/event: next/g) ?? []).length < 2) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(await eventually(() => t.upstreamRequests('deepseek')[0]?.aborted === true, 5_000)).toBe(true);
    expect(t.upstreamRequests('deepseek')).toHaveLength(1);
  });
});

describe("Apollo's multipart subscription protocol on /graphql", () => {
  it('answers multipart/mixed with subscriptionSpec 1.0, one {payload} part per chunk, then the closing boundary', async () => {
    const expected = await mutationContent();
    t.clearUpstreamRequests();
    const res = await post(MULTIPART, { query: STREAM, variables: { input } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('multipart/mixed;boundary="graphql";subscriptionSpec="1.0"');
    const { parts, closed } = await readMultipart(res);
    expect(closed).toBe(true);
    const chunks = parts.filter((p) => p.payload).map((p) => p.payload!.data.chatCompletionStream as Chunk);
    expect(text(chunks)).toBe(expected);
    expect(chunks.at(-1)!.finishReason).toBe('STOP');
    expect(t.upstreamRequests('deepseek')).toHaveLength(1);
  });

  it('sends {} heartbeats while the upstream is slow', async () => {
    await setTokenDelay(60);
    const res = await post(MULTIPART, { query: STREAM, variables: { input: { ...input, maxTokens: 6 } } });
    const { parts } = await readMultipart(res);
    const heartbeats = parts.filter((p) => Object.keys(p).length === 0);
    expect(heartbeats.length).toBeGreaterThan(0);
    expect(parts.filter((p) => p.payload).length).toBeGreaterThan(1);
  });

  it('aborts the upstream chat request when the client disconnects after two chunks', async () => {
    await setTokenDelay(50);
    const res = await post(MULTIPART, { query: STREAM, variables: { input } });
    // Returning true cancels the body, which closes the connection.
    const { closed } = await readMultipart(
      res,
      (_part: MultipartPart, all) => all.filter((p) => p.payload).length >= 2,
    );
    expect(closed).toBe(false);
    expect(await eventually(() => t.upstreamRequests('deepseek')[0]?.aborted === true, 5_000)).toBe(true);
  });

  it('refuses an invalid subscription before streaming, as GraphQL over HTTP does', async () => {
    const res = await post('multipart/mixed;subscriptionSpec="1.0",application/graphql-response+json', {
      query: 'subscription { chatCompletionStream { id } }',
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'GRAPHQL_VALIDATION_FAILED' });
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it('refuses a bad argument at admission, before the stream opens, with its code and before any upstream call', async () => {
    // As every admission refusal over multipart: a JSON error answer (its status as GraphQL over HTTP says for the
    // client's Accept), not a stream (src/domains/chat/admission.ts).
    const res = await post(MULTIPART, { query: STREAM, variables: { input: { ...input, provider: 'nope' } } });
    expect(res.headers.get('content-type')).toContain('json');
    const { errors } = (await res.json()) as { errors: Array<{ message: string; extensions?: { code?: string } }> };
    expect(errors[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(errors[0].message).toContain('nope');
    expect(t.upstreamRequests()).toHaveLength(0);
  });
});

describe('subscriptions over HTTP keep the gateway rules', () => {
  it('answers a plain JSON POST of a subscription with an error naming the streaming protocols', async () => {
    const { status, body } = await t.query(STREAM, { input });
    expect(status).toBe(200);
    expect(body.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    expect(body.errors?.[0].message).toContain('text/event-stream');
    expect(body.errors?.[0].message).toContain('subscriptionSpec');
    expect(t.upstreamRequests()).toHaveLength(0);
  });

  it.each([
    ['SSE GET (what EventSource sends cross-site)', 'GET', 'text/event-stream', undefined],
    ['SSE POST with text/plain', 'POST', 'text/event-stream', 'text/plain'],
    ['multipart POST with a form content type', 'POST', MULTIPART, 'application/x-www-form-urlencoded'],
  ])(
    'refuses a simple cross-site request (%s) as CSRF, before any upstream call',
    async (_name, method, accept, type) => {
      const query = encodeURIComponent(
        `subscription { chatCompletionStream(input: { provider: "glm", model: "glm-4-flash", messages: [{ role: USER, content: "hi" }] }) { id } }`,
      );
      const res = await fetch(method === 'GET' ? `${t.gateway.url}?query=${query}` : t.gateway.url, {
        method,
        headers: { accept, ...(type ? { 'content-type': type } : {}) },
        body: method === 'GET' ? undefined : JSON.stringify({ query: decodeURIComponent(query) }),
      });
      expect(res.status).toBe(400);
      expect((await res.json()).errors[0].message).toContain('Cross-Site Request Forgery');
      expect(t.upstreamRequests()).toHaveLength(0);
    },
  );

  it('serves an SSE GET that carries a preflight header', async () => {
    const res = await fetch(`${t.gateway.url}?query=${encodeURIComponent('{ chatProviders { id } }')}`, {
      headers: { accept: 'text/event-stream', 'apollo-require-preflight': 'true' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"chatProviders"');
  });
});

describe('with GATEWAY_API_KEYS', () => {
  const KEY = 'k'.repeat(24);
  let keyed: TestGateway;
  beforeAll(async () => {
    keyed = await startTestGateway({ GATEWAY_API_KEYS: KEY });
  });
  afterAll(() => keyed.close());

  it('refuses SSE and multipart streams without x-api-key and serves them with it', async () => {
    for (const accept of ['text/event-stream', MULTIPART]) {
      const refused = await fetch(keyed.gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: JSON.stringify({ query: '{ chatProviders { id } }' }),
      });
      expect(refused.status).toBe(401);
    }
    const [ok] = await sseResults(keyed.gateway.url, '{ chatProviders { id } }', {}, { 'x-api-key': KEY });
    expect(ok.data.chatProviders.length).toBeGreaterThan(3);
  });
});
