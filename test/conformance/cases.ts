import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { TestGateway } from '../support/gateway.js';
import { mergePayloads } from '../support/incremental.js';
import type { AfterFirst, ConformanceRequest, Outcome, TransportRunner } from './transports.js';

/** Which transports a case runs on. */
export type Carriers = (runner: TransportRunner) => boolean;
/** Transports that stream subscriptions (plain HTTP does not). */
const streaming: Carriers = (r) => r.streams;
/** Transports that run mutations (GraphQL over HTTP refuses them over GET). */
const mutating: Carriers = (r) => r.name !== 'http GET';

/**
 * One row of the conformance table: a gateway configuration, an operation, and what every transport's client must
 * see, with the exact upstream requests it may cost. Adding a rule or a behaviour to check is adding a row.
 */
export interface ConformanceCase {
  name: string;
  /** Gateway environment on top of the test defaults. */
  env?: Record<string, string>;
  /** Sandbox settings (e.g. `chatTokenDelayMs`). */
  sandbox?: Record<string, unknown>;
  /** @default every transport */
  carriers?: Carriers;
  /** A fresh gateway for each transport (a case that closes it). @default false */
  fresh?: boolean;
  /** Runs before each transport's request (sandbox faults, warm-up). */
  setup?(t: TestGateway): void | Promise<void>;
  request: ConformanceRequest;
  /** Called once the first result arrived (cancel, shut down); `t` is the gateway serving the request. */
  afterFirst?(t: TestGateway): AfterFirst;
  /** What every transport must see. */
  expect: {
    /** `extensions.code` of the first error, or undefined for none. */
    code?: string;
    /** Further fields of the first error's extensions. */
    extensions?: Record<string, unknown>;
    /** Text the first error's message must contain / must not contain. */
    message?: { includes?: string; excludes?: string };
    /** Upstream requests by upstream id, exactly (an absent upstream: none). */
    upstreams: Record<string, number>;
    /** Further checks on the outcome (results received, how the stream ended) and the gateway afterwards. */
    check?(outcome: Outcome, t: TestGateway): void | Promise<void>;
  };
}

const CHAT_STREAM =
  'subscription($input: ChatCompletionInput!) { chatCompletionStream(input: $input) { delta { content } finishReason } }';
const DELETE_DOCUMENT = 'mutation($id: ID!) { deleteChatDocument(id: $id) }';
const CHAT_INPUT = {
  provider: 'deepseek',
  model: 'deepseek-flash',
  messages: [{ role: 'USER', content: 'What does a GraphQL gateway do?' }],
};
/** Kimi K2.6: deprecated since 2026-10-31 (models/moonshot.ts), so its completions carry a warning. */
const RETIRING_INPUT = { provider: 'moonshot', model: 'kimi-k2.6', messages: [{ role: 'USER', content: 'Hi' }] };
const RETIRING_WARNING = {
  code: 'MODEL_RETIRING',
  message:
    'moonshot model kimi-k2.6 is deprecated since 2026-10-31 and retires on 2026-12-31; move to moonshot model kimi-k3.',
};
const LISTED = '{ upstreams { id } }';
const LISTED_ID = createHash('sha256').update(LISTED).digest('hex');
/** A manifest of one operation, for the persisted-only rows. */
export const MANIFEST = {
  format: 'apollo-persisted-query-manifest',
  version: 1,
  operations: [{ id: LISTED_ID, name: 'Upstreams', type: 'query', body: LISTED }],
};
/** Three distinct OMDb lookups: three upstream requests. */
const THREE_TITLES =
  '{ a: title(imdbId: "tt0078346") { title } b: title(imdbId: "tt0372784") { title } c: title(imdbId: "tt0468569") { title } }';
/** Service health with each service's status and latest issue deferred: one Graph request whatever the delivery. */
const HEALTH_DEFERRED = `{ admin { serviceAnnouncement { healthOverviews(first: 2, orderBy: [{ field: SERVICE, direction: ASC }]) { nodes { id service
  ... on ServiceHealth @defer(label: "status") { status issues(first: 1) { nodes { id } } } } } } } }`;
/** The Graph app token is fetched once per gateway: fetch it before the request whose upstream calls are counted. */
const warmGraph = async (t: TestGateway) => {
  await t.query('{ admin { serviceAnnouncement { healthOverviews(first: 1) { nodes { id } } } } }');
  t.clearUpstreamRequests();
};
/** `{"deep": [[[…]]]}` as JSON text, `depth` arrays nested in one another. */
const nestedVariables = (depth: number) => `{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}`;
const ENTITIES =
  'query ($r: [_Any!]!) { _entities(representations: $r) { __typename ... on Title { imdbId title } ... on ServiceHealth { id service } } }';
/** Five titles nobody looked up yet, then two services: two kinds of reference. */
const TITLES_THEN_SERVICES = [
  ...['tt0078346', 'tt0372784', 'tt0468569', 'tt0133093', 'tt0076759'].map((imdbId) => ({
    __typename: 'Title',
    imdbId,
  })),
  ...['Exchange', 'SharePoint'].map((id) => ({ __typename: 'ServiceHealth', id })),
];
/** What an upstream's error page may carry that must never reach a client in production. */
const UPSTREAM_SECRET = '<html><body>internal-db-7.corp.example: stack trace</body></html>';

export function conformanceCases(manifestFile: string): ConformanceCase[] {
  return [
    {
      name: 'an operation within every rule runs, with no upstream request for gateway-only fields',
      request: { query: LISTED },
      expect: { upstreams: {}, check: (o) => expectData(o, (d) => d.upstreams.length > 0) },
    },
    {
      name: 'a document larger than GATEWAY_MAX_DOCUMENT_BYTES is refused before parsing',
      env: { GATEWAY_MAX_DOCUMENT_BYTES: '200' },
      request: { query: `{ upstreams { id } } # ${'x'.repeat(300)}` },
      expect: {
        code: 'QUERY_TOO_COMPLEX',
        extensions: { limit: 'GATEWAY_MAX_DOCUMENT_BYTES', max: 200 },
        upstreams: {},
      },
    },
    {
      name: 'an operation deeper than GATEWAY_MAX_DEPTH is refused',
      env: { GATEWAY_MAX_DEPTH: '2' },
      request: { query: '{ title(imdbId: "tt0078346") { series { series { title } } } }' },
      expect: { code: 'QUERY_TOO_COMPLEX', extensions: { limit: 'GATEWAY_MAX_DEPTH' }, upstreams: {} },
    },
    {
      name: 'persisted-only mode refuses a document outside the manifest',
      env: { PERSISTED_OPERATIONS_FILE: manifestFile },
      request: { query: '{ upstreams { id mode } }' },
      expect: { code: 'FORBIDDEN', extensions: { reason: 'PERSISTED_QUERY_NOT_FOUND' }, upstreams: {} },
    },
    {
      name: 'persisted-only mode runs a listed operation sent as its text',
      env: { PERSISTED_OPERATIONS_FILE: manifestFile },
      request: { query: LISTED },
      expect: { upstreams: {}, check: (o) => expectData(o, (d) => d.upstreams.length > 0) },
    },
    {
      // graphql-ws and graphql-sse require `query` in their messages, so only HTTP carries an id alone.
      name: 'persisted-only mode runs a listed operation sent by its id',
      env: { PERSISTED_OPERATIONS_FILE: manifestFile },
      carriers: (r) => r.name.startsWith('http') || r.name === 'multipart',
      request: { extensions: { persistedQuery: { version: 1, sha256Hash: LISTED_ID } } },
      expect: { upstreams: {}, check: (o) => expectData(o, (d) => d.upstreams.length > 0) },
    },
    {
      name: 'a missing API key is refused (graphql-ws: closed 4403 at connection_init)',
      env: { GATEWAY_API_KEYS: 'conformance-key-1' },
      request: { query: LISTED },
      expect: { code: 'UNAUTHENTICATED', upstreams: {} },
    },
    {
      name: 'a presented API key is let in',
      env: { GATEWAY_API_KEYS: 'conformance-key-1' },
      request: { query: LISTED, apiKey: 'conformance-key-1' },
      expect: { upstreams: {}, check: (o) => expectData(o, (d) => d.upstreams.length > 0) },
    },
    {
      name: 'an operation over the upstream-request budget is refused before any request',
      env: { GATEWAY_MAX_UPSTREAM_REQUESTS: '2' },
      request: { query: THREE_TITLES },
      expect: {
        code: 'QUERY_TOO_COMPLEX',
        extensions: { limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS', found: 3, upstream: 'omdb' },
        upstreams: {},
      },
    },
    {
      name: 'every answer carries extensions.cost: estimated and actual cost, upstream requests expected and sent (three lookups: 3 requests, 33)',
      // A gateway of its own per transport: the title cache would answer the second transport's lookups.
      fresh: true,
      request: { query: THREE_TITLES },
      expect: {
        upstreams: { omdb: 3 },
        check: (o) => {
          expect(o.results.at(-1)?.extensions?.cost).toEqual({
            estimated: 33,
            actual: 33,
            upstreamRequestsEstimated: 3,
            upstreamRequests: 3,
          });
        },
      },
    },
    {
      name: "a subscription's events carry its cost: its start (a chunk and its delta) and the upstream request it sent",
      carriers: streaming,
      request: { query: CHAT_STREAM, variables: { input: CHAT_INPUT } },
      expect: {
        upstreams: { deepseek: 1 },
        check: (o) => {
          expect(o.results.length).toBeGreaterThan(1);
          expect(o.results.at(-1)?.extensions?.cost).toEqual({
            estimated: 12,
            actual: 12,
            upstreamRequestsEstimated: 1,
            upstreamRequests: 1,
          });
        },
      },
    },
    {
      name: 'a completion on a deprecated model answers with extensions.warnings MODEL_RETIRING, naming its retirement and successor',
      carriers: mutating,
      request: {
        query: 'mutation($input: ChatCompletionInput!) { createChatCompletion(input: $input) { content } }',
        variables: { input: { ...RETIRING_INPUT } },
      },
      expect: {
        upstreams: { moonshot: 1 },
        check: (o) => {
          expect(o.results.at(-1)?.extensions?.warnings).toEqual([RETIRING_WARNING]);
        },
      },
    },
    {
      name: 'a stream on a deprecated model carries the MODEL_RETIRING warning on its first event only',
      carriers: streaming,
      request: { query: CHAT_STREAM, variables: { input: { ...RETIRING_INPUT } } },
      expect: {
        upstreams: { moonshot: 1 },
        check: (o) => {
          expect(o.results.length).toBeGreaterThan(1);
          expect(o.results.map((r) => (r.extensions as Record<string, unknown> | undefined)?.warnings ?? null)).toEqual(
            [[RETIRING_WARNING], ...o.results.slice(1).map(() => null)],
          );
        },
      },
    },
    {
      name: 'COST_MODE=enforce refuses an operation over MAX_OPERATION_COST before any request, naming the cost and the limit',
      env: { COST_MODE: 'enforce', MAX_OPERATION_COST: '30' },
      request: { query: THREE_TITLES },
      expect: {
        code: 'QUERY_TOO_COMPLEX',
        extensions: { limit: 'MAX_OPERATION_COST', max: 30, cost: 33 },
        message: { includes: 'estimated cost is 33' },
        upstreams: {},
      },
    },
    {
      name: 'an operation that could cross the OMDb daily quota is refused before any request',
      env: { OMDB_DAILY_QUOTA: '2' },
      request: { query: THREE_TITLES },
      expect: {
        code: 'UPSTREAM_QUOTA_EXHAUSTED',
        extensions: { upstream: 'omdb' },
        message: { includes: 'this operation can need 3' },
        upstreams: {},
      },
    },
    {
      name: "a browser Origin that is neither the gateway's own nor allowed is refused with 403 before anything runs (graphql-ws: its upgrade)",
      request: { query: LISTED, headers: { origin: 'http://evil.example' } },
      expect: {
        code: 'FORBIDDEN',
        extensions: { reason: 'ORIGIN_NOT_ALLOWED' },
        message: { includes: 'ALLOWED_ORIGINS' },
        upstreams: {},
        check: (o) => void (o.status !== 403 && fail(`expected 403, got ${o.status}`, o)),
      },
    },
    {
      name: 'a browser Origin listed in ALLOWED_ORIGINS runs',
      env: { ALLOWED_ORIGINS: 'https://app.example.com' },
      request: { query: LISTED, headers: { origin: 'https://app.example.com' } },
      expect: { upstreams: {}, check: (o) => expectData(o, (d) => d.upstreams.length > 0) },
    },
    {
      name: '_entities with more representations than MAX_ENTITY_REPRESENTATIONS is refused whole, before any upstream request',
      env: { MAX_ENTITY_REPRESENTATIONS: '5' },
      request: { query: ENTITIES, variables: { r: TITLES_THEN_SERVICES.slice(0, 6) } },
      expect: {
        code: 'QUERY_TOO_COMPLEX',
        extensions: { limit: 'MAX_ENTITY_REPRESENTATIONS', max: 5, found: 6 },
        upstreams: {},
      },
    },
    {
      name: '_entities over the upstream budget is refused whole before any upstream request, naming the router key that lifts it',
      env: { GATEWAY_MAX_UPSTREAM_REQUESTS: '2', OMDB_CACHE_MAX: '0' },
      request: { query: ENTITIES, variables: { r: TITLES_THEN_SERVICES } },
      expect: {
        code: 'QUERY_TOO_COMPLEX',
        extensions: { limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS', upstream: 'omdb', found: 5, max: 2 },
        message: { includes: 'TRUSTED_ROUTER_KEYS' },
        upstreams: {},
        check: (o) => {
          if (o.results[0].data != null) fail('expected no data: nothing of the call is answered', o);
        },
      },
    },
    {
      name: 'a variable nested deeper than 64 levels is refused before any rule reads it, declared or not',
      request: { query: LISTED, variablesJson: nestedVariables(100) },
      expect: {
        code: 'BAD_USER_INPUT',
        extensions: { argument: 'variables' },
        message: { includes: 'nest deeper than 64 levels' },
        upstreams: {},
      },
    },
    {
      // A GET cannot carry it: Node refuses a URL over 16 KiB (431) before the gateway sees the request.
      name: 'a variable nested 100,000 levels deep is refused, not a stack overflow: graphql-ws keeps the connection',
      carriers: mutating,
      request: { query: LISTED, variablesJson: nestedVariables(100_000) },
      expect: {
        code: 'BAD_USER_INPUT',
        extensions: { argument: 'variables' },
        upstreams: {},
        check: (o) =>
          void (
            o.closeCode !== undefined &&
            o.closeCode !== 1000 &&
            fail(`the connection closed with ${o.closeCode}`, o)
          ),
      },
    },
    {
      name: 'a mutation missing a non-null variable is BAD_USER_INPUT before any rule reads its arguments, never a 500 or a rule failure',
      carriers: mutating,
      request: { query: DELETE_DOCUMENT, variables: {} },
      expect: {
        code: 'BAD_USER_INPUT',
        message: { includes: 'Variable "$id" of required type "ID!" was not provided.' },
        upstreams: {},
        check: noServerFault,
      },
    },
    {
      // The cost rule reads every argument: a query's non-null one was a 500 too (nullable ones ran to execution).
      name: 'a query missing a non-null variable is BAD_USER_INPUT on every transport, GET included',
      request: { query: 'query($id: ID!) { admin { serviceAnnouncement { healthOverview(id: $id) { id } } } }' },
      expect: {
        code: 'BAD_USER_INPUT',
        message: { includes: 'Variable "$id" of required type "ID!" was not provided.' },
        upstreams: {},
        check: noServerFault,
      },
    },
    {
      name: 'in production a mutation with a null non-null variable is BAD_USER_INPUT, its message kept',
      env: { NODE_ENV: 'production' },
      carriers: mutating,
      request: { query: DELETE_DOCUMENT, variables: { id: null } },
      expect: {
        code: 'BAD_USER_INPUT',
        message: { includes: 'Variable "$id" of non-null type "ID!" must not be null.' },
        upstreams: {},
        check: noServerFault,
      },
    },
    {
      name: 'a deferred mutation whose input object misses a field is BAD_USER_INPUT before any part or request',
      carriers: mutating,
      request: {
        query: `mutation($input: ChatCompletionInput!) { createChatCompletion(input: $input) { model ... @defer { content } } }`,
        variables: { input: { ...CHAT_INPUT, model: undefined } },
      },
      expect: {
        code: 'BAD_USER_INPUT',
        message: { includes: 'Field "model" of required type "String!" was not provided.' },
        upstreams: {},
        check: noServerFault,
      },
    },
    {
      name: 'a subscription with a missing or mistyped variable is BAD_USER_INPUT before any rule reads its arguments',
      carriers: streaming,
      request: { query: CHAT_STREAM, variables: { input: { ...CHAT_INPUT, messages: 'hello' } } },
      expect: {
        code: 'BAD_USER_INPUT',
        message: { includes: 'Variable "$input" got invalid value' },
        upstreams: {},
        check: noServerFault,
      },
    },
    {
      name: '@stream(initialCount: -1) is BAD_USER_INPUT before anything runs',
      request: { query: '{ searchTitles(query: "star wars") { items @stream(initialCount: -1) { imdbId } } }' },
      expect: { code: 'BAD_USER_INPUT', message: { includes: 'must be 0 or more' }, upstreams: {} },
    },
    {
      name: '@stream(initialCount: $n) with a negative $n is BAD_USER_INPUT before anything runs',
      request: {
        query: 'query ($n: Int) { searchTitles(query: "star wars") { items @stream(initialCount: $n) { imdbId } } }',
        variables: { n: -1 },
      },
      expect: {
        code: 'BAD_USER_INPUT',
        extensions: { argument: 'n' },
        message: { includes: 'must be 0 or more' },
        upstreams: {},
      },
    },
    {
      name: 'an id that would be a path step (healthOverview(id: "..")) is refused before any Graph request',
      request: { query: '{ admin { serviceAnnouncement { healthOverview(id: "..") { id } } } }' },
      expect: {
        code: 'BAD_USER_INPUT',
        extensions: { argument: 'id' },
        message: { includes: 'is not an id' },
        upstreams: {},
      },
    },
    {
      name: "in production an upstream's error text reaches no client: a generic message naming upstream and status",
      env: { NODE_ENV: 'production' },
      carriers: mutating,
      setup: (t) =>
        t.sandbox.faults.push({
          upstream: 'deepseek',
          times: 1,
          status: 400,
          body: { error: { message: UPSTREAM_SECRET, type: 'invalid_request_error' } },
        }),
      request: {
        query: 'mutation($input: ChatCompletionInput!) { createChatCompletion(input: $input) { content } }',
        variables: { input: CHAT_INPUT },
      },
      expect: {
        code: 'BAD_USER_INPUT',
        extensions: { upstream: 'deepseek', status: 400 },
        message: { includes: 'The deepseek service refused the request (HTTP 400)', excludes: 'internal-db-7' },
        upstreams: { deepseek: 1 },
        check: (o, t) => {
          if (JSON.stringify(o.results).includes('internal-db-7'))
            throw new Error('the upstream text reached the client');
          if (!t.logs.lines.some((l) => l.includes('upstream error masked') && l.includes('internal-db-7')))
            throw new Error('the upstream text is not in the log');
        },
      },
    },
    {
      name: '@defer: streaming transports get the initial part without the deferred fields, then them; plain HTTP gets the whole answer; one Graph request either way',
      setup: warmGraph,
      request: { query: HEALTH_DEFERRED },
      expect: {
        upstreams: { graph: 1 },
        check: (o) => {
          const whole = mergedData(o);
          const nodes = whole.admin.serviceAnnouncement.healthOverviews.nodes;
          if (
            nodes.length !== 2 ||
            !nodes.every((n: any) => typeof n.status === 'string' && Array.isArray(n.issues.nodes))
          )
            throw new Error(`not the whole answer: ${JSON.stringify(whole)}`);
          if (o.results.length === 1)
            return void (o.results[0].hasNext !== undefined && fail('a whole answer carries no hasNext', o));
          const first = o.results[0];
          if (
            first.hasNext !== true ||
            first.data.admin.serviceAnnouncement.healthOverviews.nodes.some((n: any) => 'status' in n)
          )
            fail('the first part must come without the deferred fields', o);
          if (o.results.at(-1)!.hasNext !== false || o.end !== 'complete')
            fail('the last part must say hasNext: false and the stream end normally', o);
        },
      },
    },
    {
      name: 'a deferred part counts in the upstream-request budget: over it, the operation is refused before any part or request',
      env: { GATEWAY_MAX_UPSTREAM_REQUESTS: '2' },
      request: {
        query:
          '{ a: title(imdbId: "tt0078346") { title } b: title(imdbId: "tt0372784") { title } ... @defer { c: title(imdbId: "tt0468569") { title } } }',
      },
      expect: {
        code: 'QUERY_TOO_COMPLEX',
        extensions: { limit: 'GATEWAY_MAX_UPSTREAM_REQUESTS', found: 3, upstream: 'omdb' },
        upstreams: {},
      },
    },
    {
      name: "in production an upstream's error text inside a deferred part reaches no client either",
      env: { NODE_ENV: 'production' },
      setup: async (t) => {
        await warmGraph(t);
        t.sandbox.faults.push({
          upstream: 'graph',
          times: 1,
          status: 400,
          match: 'healthOverviews',
          body: { error: { code: 'BadRequest', message: UPSTREAM_SECRET } },
        });
      },
      request: {
        query:
          '{ upstreams { id } ... @defer { admin { serviceAnnouncement { healthOverviews(first: 1) { nodes { id } } } } } }',
      },
      expect: {
        code: 'UPSTREAM_ERROR',
        extensions: { upstream: 'graph', status: 400 },
        message: { includes: 'The graph service failed (HTTP 400)', excludes: 'internal-db-7' },
        upstreams: { graph: 1 },
        check: (o) => {
          if (JSON.stringify(o.results).includes('internal-db-7'))
            throw new Error('the upstream text reached the client');
          if (!o.results[0].data?.upstreams) throw new Error('the fields that did not fail are answered');
        },
      },
    },
    {
      name: "on shutdown a deferred part that outlives SHUTDOWN_GRACE_MS is not awaited: the stream ends at the grace with hasNext: false and its protocol's completion",
      carriers: streaming,
      fresh: true,
      env: { SHUTDOWN_GRACE_MS: '300' },
      setup: (t) => t.sandbox.faults.push({ upstream: 'omdb', times: 6, delayMs: 10_000, match: 'i=tt' }),
      request: { query: '{ searchTitles(query: "star wars") { items { imdbId ... @defer { directors } } } }' },
      afterFirst: (t) => () => void t.gateway.close(),
      expect: {
        upstreams: { omdb: 7 },
        check: async (o, t) => {
          if (o.results[0].data?.searchTitles.items.length !== 6) fail('the first part carries the six hits', o);
          if (o.results.at(-1)!.hasNext !== false || o.end !== 'complete')
            fail("expected a last hasNext: false and the protocol's completion", o);
          if (!(await eventually(() => t.upstreamRequests('omdb').filter((r) => r.aborted).length === 6)))
            throw new Error('the slow lookups were not aborted');
        },
      },
    },
    {
      name: 'a file sent other than as a GraphQL multipart request is refused, saying how to send it, before any request',
      carriers: mutating,
      request: {
        query: 'mutation($file: Upload!) { uploadChatDocument(file: $file, provider: "moonshot") { id } }',
        variables: { file: 'report.pdf' },
      },
      expect: {
        code: 'BAD_USER_INPUT',
        message: { includes: 'Upload value invalid: send the file in a GraphQL multipart request' },
        upstreams: {},
      },
    },
    {
      name: "a completion naming a document that is not the caller's is refused before any request",
      carriers: streaming,
      request: { query: CHAT_STREAM, variables: { input: { ...CHAT_INPUT, documents: ['doc_not_yours'] } } },
      expect: {
        code: 'NOT_FOUND',
        extensions: { argument: 'input.documents[0]' },
        message: { includes: 'names no document "doc_not_yours" among yours' },
        upstreams: {},
      },
    },
    {
      name: 'a chat stream with an unknown model, or a fallback on one, is refused at admission before any request',
      carriers: streaming,
      request: {
        query: CHAT_STREAM,
        variables: { input: { ...CHAT_INPUT, fallbacks: [{ provider: 'glm', model: 'no-such-model' }] } },
      },
      expect: {
        code: 'BAD_USER_INPUT',
        message: { includes: 'input.fallbacks[0] (glm/no-such-model)' },
        upstreams: {},
      },
    },
    {
      name: 'a client that cancels a stream aborts its upstream request at once',
      carriers: streaming,
      sandbox: { chatTokenDelayMs: 30 },
      request: { query: CHAT_STREAM, variables: { input: CHAT_INPUT } },
      afterFirst: () => (control) => control.cancel(),
      expect: {
        upstreams: { deepseek: 1 },
        check: async (_o, t) => {
          if (!(await eventually(() => t.upstreamRequests('deepseek')[0]?.aborted === true)))
            throw new Error('the upstream stream was not aborted');
        },
      },
    },
    {
      name: "on shutdown a running stream finishes within SHUTDOWN_GRACE_MS and ends with its protocol's completion; new operations are refused",
      carriers: streaming,
      fresh: true,
      env: { SHUTDOWN_GRACE_MS: '5000' },
      request: { query: 'subscription { serverTime(intervalMs: 30, count: 8) }' },
      afterFirst: (t) => async () => {
        void t.gateway.close();
        await new Promise((r) => setTimeout(r, 20));
        const refused = await fetch(t.gateway.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: LISTED }),
        });
        shutdownRefusals.push(refused.status);
      },
      expect: {
        upstreams: {},
        check: (o) => {
          if (o.results.length !== 8)
            throw new Error(`expected all 8 events within the grace, got ${o.results.length}`);
          if (o.end !== 'complete') throw new Error(`expected the protocol's completion, got ${o.end}`);
          if (o.closeCode !== undefined && o.closeCode !== 1001 && o.closeCode !== 1000)
            throw new Error(`closed with ${o.closeCode}`);
          if (shutdownRefusals.at(-1) !== 503)
            throw new Error(`a new operation while draining got ${shutdownRefusals.at(-1)}, not 503`);
        },
      },
    },
    {
      name: "on shutdown a stream that outlives SHUTDOWN_GRACE_MS is ended at the grace, still with its protocol's completion",
      carriers: streaming,
      fresh: true,
      env: { SHUTDOWN_GRACE_MS: '300' },
      request: { query: 'subscription { serverTime(intervalMs: 20, count: 10000) }' },
      afterFirst: (t) => () => void t.gateway.close(),
      expect: {
        upstreams: {},
        check: (o) => {
          if (o.results.length >= 10000 || o.results.length < 2)
            throw new Error(`expected the stream cut at the grace, got ${o.results.length} events`);
          if (o.end !== 'complete') throw new Error(`expected the protocol's completion, got ${o.end}`);
        },
      },
    },
  ];
}

/** A client's mistake: no 5xx status, and no rule logged as failed (the log would grow by a stack per request). */
function noServerFault(o: Outcome, t: TestGateway): void {
  if (o.status !== undefined && o.status >= 500) fail(`status ${o.status}`, o);
  const failed = t.logs.lines.filter((l) => l.includes('a pipeline rule failed'));
  if (failed.length) throw new Error(`a rule failed: ${failed[0].slice(0, 300)}`);
}

/** Statuses of operations sent while a gateway drained, in order. */
const shutdownRefusals: number[] = [];

/** The whole data a client assembles from the results: one result, or the parts of incremental delivery. */
function mergedData(o: Outcome): any {
  return mergePayloads(o.results).data;
}

function fail(message: string, o: Outcome): never {
  throw new Error(`${message}: ${JSON.stringify(o.results).slice(0, 400)}`);
}

function expectData(o: Outcome, ok: (data: any) => boolean): void {
  const first = o.results[0];
  if (!first?.data || first.errors?.length || !ok(first.data))
    throw new Error(`expected data, got ${JSON.stringify(o.results[0])?.slice(0, 300)}`);
}

async function eventually(check: () => boolean, timeoutMs = 3000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
