/**
 * One upstream failing never blanks another's data (schema/README.md, "Nullability follows failure domains"). For
 * each upstream (Graph, OMDb, a chat provider) and each way it fails (5xx, timeout, refused gateway credentials,
 * quota or throttling), one operation over every domain: the other domains' fields are present and correct, the
 * failing upstream's field is null, and each error names that upstream with the field's path. The failing upstream is
 * a second sandbox configured as live (so its credentials can be wrong); the gateway's own sandbox serves the rest.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import type { Fault } from '../../src/sandbox/types.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const IMDB_ID = 'tt0078346';
const TITLE = { imdbId: IMDB_ID, title: 'Superman' };

/** Every domain in one query: the gateway's own fields, chat's (configuration and counters), a title, service health. */
const EVERY_DOMAIN = `query EveryDomain($imdbId: ID!) {
  upstreams { id }
  chatProviders { id }
  chatUsage { provider }
  title(imdbId: $imdbId) { imdbId title }
  admin { serviceAnnouncement { healthOverviews(first: 3) { nodes { id } } } }
}`;

/** Chat's provider calls are mutations: one beside a Graph write (Mutation has no titles field). */
const CHAT_AND_GRAPH = `mutation ChatAndGraph($input: ChatCompletionInput!) {
  createChatCompletion(input: $input) { provider content }
  updateServiceHealth(id: "Exchange", input: { status: SERVICE_DEGRADATION }) { id status }
}`;
const CHAT_INPUT = { provider: 'deepseek', model: 'deepseek-flash', messages: [{ role: 'USER', content: 'Hi' }] };

type Upstream = 'graph' | 'omdb' | 'deepseek';
type Kind = '5xx' | 'timeout' | 'refused credentials' | 'quota exhausted';
const KINDS: Kind[] = ['5xx', 'timeout', 'refused credentials', 'quota exhausted'];

const WRONG = 'wrong-credential-0123456789';

function liveEnv(upstream: Upstream, live: Sandbox, credential: string): Record<string, string> {
  if (upstream === 'graph') {
    return {
      GRAPH_BASE_URL: live.baseUrls.graph,
      GRAPH_AUTHORITY_URL: live.baseUrls.login,
      GRAPH_TENANT_ID: 'sandbox',
      GRAPH_CLIENT_ID: 'sandbox',
      GRAPH_CLIENT_SECRET: credential,
    };
  }
  if (upstream === 'omdb') return { OMDB_BASE_URL: live.baseUrls.omdb, OMDB_API_KEY: credential };
  return { DEEPSEEK_BASE_URL: live.baseUrls.deepseek, DEEPSEEK_API_KEY: credential };
}

/** The failure, injected into the live sandbox; returns the credential to configure. */
function inject(upstream: Upstream, kind: Kind, live: Sandbox): string {
  const fault = (f: Partial<Fault>) => live.faults.push({ upstream, times: 100, ...f });
  if (kind === '5xx') fault({ status: 503 });
  if (kind === 'timeout') fault({ delayMs: 6000 });
  if (kind === 'refused credentials') return WRONG;
  if (kind === 'quota exhausted') {
    // Graph has no quota: its throttling (429 on every attempt) is the nearest; OMDb's daily limit; DeepSeek's balance.
    if (upstream === 'graph') fault({ status: 429, retryAfter: 0 });
    if (upstream === 'omdb') live.settings.omdbDailyQuota = 0;
    if (upstream === 'deepseek') fault({ status: 402 });
  }
  return 'sandbox';
}

const EXPECTED_CODE: Record<Kind, Record<Upstream, string>> = {
  '5xx': { graph: 'UPSTREAM_ERROR', omdb: 'UPSTREAM_ERROR', deepseek: 'UPSTREAM_ERROR' },
  timeout: { graph: 'UPSTREAM_TIMEOUT', omdb: 'UPSTREAM_TIMEOUT', deepseek: 'UPSTREAM_TIMEOUT' },
  'refused credentials': { graph: 'UPSTREAM_ERROR', omdb: 'UPSTREAM_ERROR', deepseek: 'UPSTREAM_ERROR' },
  'quota exhausted': {
    graph: 'UPSTREAM_RATE_LIMITED',
    omdb: 'UPSTREAM_QUOTA_EXHAUSTED',
    deepseek: 'UPSTREAM_QUOTA_EXHAUSTED',
  },
};

const PATH: Record<Upstream, string[]> = {
  graph: ['admin', 'serviceAnnouncement', 'healthOverviews'],
  omdb: ['title'],
  deepseek: ['createChatCompletion'],
};

/** One row per cell, written to test-results/failure-domains.json for the record. */
const matrix: Array<Record<string, unknown>> = [];

let live: Sandbox;
let t: TestGateway | undefined;
beforeAll(async () => {
  live = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
});
afterEach(async () => {
  await t?.close();
  t = undefined;
  live.faults.clear();
  live.record.clear();
  live.settings.omdbDailyQuota = 1000;
});
afterAll(async () => {
  await live.close();
  mkdirSync('test-results', { recursive: true });
  writeFileSync('test-results/failure-domains.json', JSON.stringify(matrix, null, 2));
});

describe.each(['graph', 'omdb', 'deepseek'] as const)('while %s fails', (upstream) => {
  it.each(KINDS)(`by %s, every other domain answers and the error names ${upstream} with its path`, async (kind) => {
    const credential = inject(upstream, kind, live);
    // The timeouts apply to the healthy upstreams too: 1.5 s, which none of them takes even on a loaded machine, and
    // well below the failing upstream's 6 s delay.
    const timeouts: Record<string, string> =
      kind === 'timeout' ? { UPSTREAM_TIMEOUT_MS: '1500', CHAT_TIMEOUT_MS: '1500' } : {};
    t = await startTestGateway({ ...liveEnv(upstream, live, credential), ...timeouts });

    const query = await t.query(EVERY_DOMAIN, { imdbId: IMDB_ID });
    const data = query.body.data;
    expect(data, JSON.stringify(query.body.errors)).toBeTruthy();
    expect(data.upstreams.map((u: { id: string }) => u.id)).toEqual([
      'graph',
      'omdb',
      'glm',
      'ark',
      'deepseek',
      'moonshot',
    ]);
    expect(data.chatProviders.map((p: { id: string }) => p.id)).toEqual(['glm', 'ark', 'deepseek', 'moonshot']);
    expect(data.chatUsage).toEqual([]);
    if (upstream === 'omdb') expect(data.title).toBeNull();
    else expect(data.title).toEqual(TITLE);
    if (upstream === 'graph') expect(data.admin.serviceAnnouncement.healthOverviews).toBeNull();
    else expect(data.admin.serviceAnnouncement.healthOverviews.nodes).toHaveLength(3);

    let mutation: typeof query | undefined;
    if (upstream === 'deepseek') {
      expect(query.body.errors).toBeUndefined();
      mutation = await t.query(CHAT_AND_GRAPH, { input: CHAT_INPUT });
      expect(mutation.body.data.createChatCompletion).toBeNull();
      expect(mutation.body.data.updateServiceHealth).toEqual({ id: 'Exchange', status: 'SERVICE_DEGRADATION' });
    }
    const errors = (mutation ?? query).body.errors ?? [];
    expect(errors).toHaveLength(1);
    expect(errors[0].path).toEqual(PATH[upstream]);
    expect(errors[0].extensions).toMatchObject({ code: EXPECTED_CODE[kind][upstream], upstream });
    if (kind === 'refused credentials') expect(errors[0].extensions!.reason).toBe('GATEWAY_CREDENTIALS_REJECTED');
    else expect(errors[0].extensions!.reason).toBeUndefined();

    // The other upstreams: exactly the requests their fields need (the gateway's own sandbox records them).
    const own = (name: string) => t!.upstreamRequests(name).length;
    expect(own('omdb')).toBe(upstream === 'omdb' ? 0 : 1);
    expect(own('graph')).toBe(upstream === 'graph' ? 0 : upstream === 'deepseek' ? 2 : 1);
    expect(own('deepseek')).toBe(0);
    const failing = live.record.list().filter((r) => r.upstream === upstream || r.upstream === 'login');
    matrix.push({
      upstream,
      kind,
      failingField: PATH[upstream].join('.'),
      code: errors[0].extensions!.code,
      reason: errors[0].extensions!.reason ?? null,
      status: errors[0].extensions!.status ?? null,
      message: errors[0].message,
      requestsToFailingUpstream: failing.map((r) => `${r.upstream} ${r.method} ${r.status ?? 'no answer'}`),
      otherDomains:
        upstream === 'deepseek'
          ? 'query: every field, no error; mutation: updateServiceHealth answered'
          : upstream === 'graph'
            ? 'title, upstreams, chatProviders, chatUsage answered'
            : 'admin…healthOverviews, upstreams, chatProviders, chatUsage answered',
    });
  });
});
