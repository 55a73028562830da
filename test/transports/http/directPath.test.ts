import { ApolloServer } from '@apollo/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Fault } from '../../../src/sandbox/types.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';

/**
 * The direct path (src/transports/http/graphql.ts) answers JSON POSTs of known documents without Apollo Server,
 * refusals and errors included, through the one writer (response.ts); the classifier (classify.ts) refuses what no
 * path may run (CSRF) and gives Apollo the rest. One table of requests runs against two gateways, one with the direct
 * path and one sending every operation through Apollo: status, response headers, body and upstream requests must be
 * the same, and the direct gateway must have called Apollo exactly as often as the case says.
 */
const TITLE = 'query OneTitle($imdbId: ID!) { title(imdbId: $imdbId) { imdbId title year genres } }';
const HEALTH =
  'query Health { admin { serviceAnnouncement { healthOverview(id: "Exchange") { id service status } } } }';
const DELETE = 'mutation Forget($id: ID!) { deleteChatDocument(id: $id) }';
const CHAT =
  'mutation Say($input: ChatCompletionInput!) { createChatCompletion(input: $input) { provider model choices { message { content } } } }';

interface Case {
  name: string;
  body: unknown;
  headers?: Record<string, string>;
  faults?: Fault[];
  /** Calls of Apollo's `executeHTTPGraphQLRequest` on the direct gateway: 0 when answered directly. */
  apollo: 0 | 1;
}

const cases: Case[] = [
  { name: 'a title by variable', body: { query: TITLE, variables: { imdbId: 'tt0133093' } }, apollo: 0 },
  {
    name: 'the same title again (a response-cache hit: no upstream request)',
    body: { query: TITLE, variables: { imdbId: 'tt0133093' } },
    apollo: 0,
  },
  { name: 'a health overview (Graph, application token)', body: { query: HEALTH, operationName: 'Health' }, apollo: 0 },
  {
    name: 'the same, asking for application/graphql-response+json',
    body: { query: HEALTH },
    headers: { accept: 'application/graphql-response+json' },
    apollo: 0,
  },
  {
    name: 'accept with weights',
    body: { query: HEALTH },
    headers: { accept: 'application/json;q=0.5, application/graphql-response+json' },
    apollo: 0,
  },
  {
    name: 'a mutation',
    body: {
      query: CHAT,
      variables: {
        input: { provider: 'deepseek', model: 'deepseek-flash', messages: [{ role: 'USER', content: 'hi' }] },
      },
    },
    apollo: 0,
  },
  { name: '__typename only', body: { query: '{ __typename }', extensions: { trace: true } }, apollo: 0 },
  { name: 'an argument the resolver refuses', body: { query: TITLE, variables: { imdbId: '5' } }, apollo: 0 },
  { name: 'variables that fail to coerce', body: { query: TITLE, variables: { imdbId: null } }, apollo: 0 },
  {
    name: 'variables that fail to coerce, graphql-response+json',
    body: { query: TITLE, variables: {} },
    headers: { accept: 'application/graphql-response+json' },
    apollo: 0,
  },
  // A mutation's arguments are read by rules before execution (the cost, the budget): its variables coerce first.
  { name: 'a mutation missing a non-null variable', body: { query: DELETE, variables: {} }, apollo: 0 },
  {
    name: 'a mutation with a null non-null variable, graphql-response+json',
    body: { query: DELETE, variables: { id: null } },
    headers: { accept: 'application/graphql-response+json' },
    apollo: 0,
  },
  {
    name: 'a mutation with an input object missing a field',
    body: { query: CHAT, variables: { input: { provider: 'deepseek', messages: [] } } },
    apollo: 0,
  },
  {
    name: 'a mutation missing a variable, with an Accept only Apollo answers',
    body: { query: DELETE },
    headers: { accept: 'application/json; callbackSpec=1.0' },
    apollo: 1,
  },
  {
    name: 'an upstream failure (partial data)',
    body: { query: `{ a: title(imdbId: "tt0133093") { title } b: title(imdbId: "tt0080684") { title } }` },
    faults: [{ upstream: 'omdb', times: 1, status: 500, match: 'tt0080684' }],
    apollo: 0,
  },
  {
    name: 'a refusal at admission (upstream budget)',
    body: {
      query: `{ a: title(imdbId: "tt0133093") { title } b: title(imdbId: "tt0080684") { title } c: title(imdbId: "tt0078346") { title } }`,
    },
    apollo: 0,
  },
  { name: 'an invalid document', body: { query: '{ title { nope } }' }, apollo: 1 },
  { name: 'an unknown operationName', body: { query: HEALTH, operationName: 'Other' }, apollo: 1 },
  { name: 'variables as a string', body: { query: TITLE, variables: '{"imdbId":"tt0133093"}' }, apollo: 1 },
  { name: 'an Accept it cannot answer', body: { query: HEALTH }, headers: { accept: 'text/html' }, apollo: 1 },
  // A browser sends `text/plain` with any parameters as a simple request (no preflight): Apollo's CSRF prevention
  // refuses it, and no parameter that merely mentions JSON may route it past that.
  {
    name: 'a mutation as text/plain naming JSON in a parameter (CSRF)',
    body: {
      query: CHAT,
      variables: {
        input: { provider: 'deepseek', model: 'deepseek-flash', messages: [{ role: 'USER', content: 'hi' }] },
      },
    },
    headers: { 'content-type': 'text/plain; charset=application/json' },
    apollo: 0,
  },
  {
    name: 'APQ with its query',
    body: {
      query: HEALTH,
      extensions: {
        persistedQuery: { version: 1, sha256Hash: '0ff5c8a1ad41e28e0ad0d76d43ee5ef1c0e9d0d1e0ad3c8d4e2a53b8dc28e4e4' },
      },
    },
    apollo: 1,
  },
];

const env = { GATEWAY_MAX_UPSTREAM_REQUESTS: '2', OMDB_CACHE_MAX: '0' };
let direct: TestGateway;
let apolloOnly: TestGateway;

/** A gateway with the direct path and one sending every operation through Apollo, on the same settings. */
const startPair = (settings: Record<string, string>) =>
  Promise.all([startTestGateway(settings), startTestGateway(settings, {}, { directExecution: false })]);

beforeAll(async () => {
  [direct, apolloOnly] = await startPair(env);
});
afterAll(async () => {
  await Promise.all([direct?.close(), apolloOnly?.close()]);
});

async function send(t: TestGateway, c: Case) {
  t.sandbox.faults.clear();
  for (const fault of c.faults ?? []) t.sandbox.faults.push(fault);
  t.clearUpstreamRequests();
  const res = await fetch(t.gateway.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...c.headers },
    body: JSON.stringify(c.body),
  });
  const text = await res.text();
  const headers = Object.fromEntries(
    [...res.headers].filter(([name]) => !['date', 'x-request-id', 'content-length'].includes(name)),
  );
  const upstream = t
    .upstreamRequests()
    .filter((r) => r.upstream !== 'login')
    .map((r) => `${r.method} ${r.url}`)
    .sort();
  return { status: res.status, headers, body: comparable(text), upstream };
}

/** Stack traces name the path that threw (Apollo's frames or not): compared as present or absent. */
function comparable(text: string): unknown {
  const body = JSON.parse(text) as { errors?: Array<{ extensions?: Record<string, unknown> }> };
  for (const e of body.errors ?? []) if (e.extensions?.stacktrace) e.extensions.stacktrace = 'present';
  return { ...body, newline: text.endsWith('\n') };
}

describe('HTTP: the direct path answers as Apollo Server does', () => {
  it.each(cases)('$name', async (c) => {
    const expected = await send(apolloOnly, c);
    const spy = vi.spyOn(ApolloServer.prototype, 'executeHTTPGraphQLRequest');
    try {
      const got = await send(direct, c);
      expect(got).toEqual(expected);
      // Stack traces only when asked for (ERROR_STACK_TRACES, below).
      expect(JSON.stringify(got.body)).not.toContain('stacktrace');
      expect(spy).toHaveBeenCalledTimes(c.apollo);
    } finally {
      spy.mockRestore();
    }
  });

  it('sends one upstream request for a directly answered title, and none for a refused one', async () => {
    const ok = await send(direct, { ...cases[0], body: { query: TITLE, variables: { imdbId: 'tt0078346' } } });
    expect(ok.upstream).toEqual(['GET /omdb/?apikey=sandbox&i=tt0078346']);
    const refused = await send(
      direct,
      cases.find((c) => c.name.startsWith('a refusal'))!,
    );
    expect(refused.upstream).toEqual([]);
    expect((refused.body as { errors: Array<{ extensions: { code: string } }> }).errors[0].extensions.code).toBe(
      'QUERY_TOO_COMPLEX',
    );
  });

  it("answers a resolver's bug alike on both paths, without its stack, and logs the stack once with the request id", async () => {
    const answers = [];
    for (const t of [direct, apolloOnly]) {
      const spy = vi.spyOn(t.gateway.services.upstreams, 'map').mockImplementationOnce(() => {
        throw new TypeError("Cannot read properties of undefined (reading 'mode')");
      });
      try {
        const res = await fetch(t.gateway.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ upstreams { id } }' }),
        });
        answers.push({ status: res.status, body: await res.json(), requestId: res.headers.get('x-request-id') });
      } finally {
        spy.mockRestore();
      }
      const logged = t.logs
        .json()
        .filter((l) => l.msg === "unexpected error: Cannot read properties of undefined (reading 'mode')");
      expect(logged).toEqual([
        expect.objectContaining({
          level: 'error',
          requestId: answers.at(-1)!.requestId,
          path: ['upstreams'],
          err: expect.stringMatching(/^TypeError: Cannot read properties of undefined \(reading 'mode'\)\n\s+at /),
        }),
      ]);
    }
    expect(answers[0].body).toEqual(answers[1].body);
    expect(answers[0].body.errors[0].extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
  });

  it('answers a mutation whose variable is missing BAD_USER_INPUT before any rule reads its arguments: 200 for application/json, 400 for graphql-response+json, nothing logged as a failure', async () => {
    const logged = direct.logs.lines.length;
    const missing = await send(
      direct,
      cases.find((c) => c.name === 'a mutation missing a non-null variable')!,
    );
    expect(missing.status).toBe(200);
    expect(missing.body).toMatchObject({
      errors: [
        { message: 'Variable "$id" of required type "ID!" was not provided.', extensions: { code: 'BAD_USER_INPUT' } },
      ],
    });
    const nulled = await send(
      direct,
      cases.find((c) => c.name.startsWith('a mutation with a null'))!,
    );
    expect(nulled.status).toBe(400);
    expect(nulled.body).toMatchObject({
      errors: [
        { message: 'Variable "$id" of non-null type "ID!" must not be null.', extensions: { code: 'BAD_USER_INPUT' } },
      ],
    });
    expect(direct.logs.lines.slice(logged).filter((l) => l.includes('"level":"error"'))).toEqual([]);
  });

  it('refuses a simple-request POST with CSRF prevention and sends nothing upstream', async () => {
    const csrf = await send(
      direct,
      cases.find((c) => c.name.includes('CSRF'))!,
    );
    expect(csrf.status).toBe(400);
    expect((csrf.body as { errors: Array<{ message: string }> }).errors[0].message).toMatch(
      /Cross-Site Request Forgery/,
    );
    expect(csrf.upstream).toEqual([]);
  });
});

describe('HTTP: with ERROR_STACK_TRACES=true both paths put a stack trace on every error', () => {
  let withStacks: TestGateway;
  let apolloWithStacks: TestGateway;
  beforeAll(async () => {
    [withStacks, apolloWithStacks] = await startPair({ ...env, ERROR_STACK_TRACES: 'true' });
  });
  afterAll(async () => {
    await Promise.all([withStacks?.close(), apolloWithStacks?.close()]);
  });

  it.each(cases.filter((c) => /refuses|coerce|failure|invalid document/.test(c.name)))('$name', async (c) => {
    const expected = await send(apolloWithStacks, c);
    const got = await send(withStacks, c);
    expect(got).toEqual(expected);
    const errors = (got.body as { errors: Array<{ extensions: { stacktrace?: unknown } }> }).errors;
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) expect(e.extensions.stacktrace).toBe('present');
  });
});
