/**
 * GATEWAY_DOMAINS serves only the listed domains: their root fields and types, standalone and as a subgraph, and only
 * their upstreams in `/readyz` and the start-up log. The `gateway` domain (`upstreams`, `serverTime`) is one of them:
 * an instance serving it lists every domain's upstreams, since in a split deployment it answers for the whole graph.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/env.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const CHAT = ['glm', 'ark', 'deepseek', 'moonshot'];
const EVERY_UPSTREAM = ['graph', 'omdb', ...CHAT];

describe('GATEWAY_DOMAINS=chat', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ GATEWAY_DOMAINS: 'chat' });
  });
  afterAll(() => t.close());

  it("serves the chat fields only: not the gateway domain's upstreams or serverTime", async () => {
    const r = await t.query('{ chatProviders { id } chatUsage { provider } }');
    expect(r.body.errors).toBeUndefined();
    for (const query of ['{ upstreams { id } }', 'subscription { serverTime(count: 1) }']) {
      expect((await t.query(query)).body.errors![0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        reason: 'GRAPHQL_VALIDATION_FAILED',
      });
    }
    const completion = await t.query(
      'mutation { createChatCompletion(input: { provider: "glm", model: "glm-4-flash", messages: [{ role: USER, content: "Hi" }] }) { provider } }',
    );
    expect(completion.body.data).toEqual({ createChatCompletion: { provider: 'glm' } });
    expect(t.upstreamRequests().map((q) => q.upstream)).toEqual(['glm']);
  });

  it('has no enterprise or titles root field, type or upstream, as a subgraph either', async () => {
    t.clearUpstreamRequests();
    for (const query of [
      '{ admin { __typename } }',
      '{ title(imdbId: "tt0078346") { title } }',
      '{ searchTitles(query: "batman") { totalResults } }',
    ]) {
      const r = await t.query(query);
      expect(r.body.errors![0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        reason: 'GRAPHQL_VALIDATION_FAILED',
      });
    }
    const sdl: string = (await t.query('{ _service { sdl } }')).body.data._service.sdl;
    expect(sdl).toContain('chatProviders');
    expect(sdl).not.toMatch(/ServiceHealth|\bTitle\b|PageInfo|updateAdmin/);
    const ready = await (await fetch(`${t.gateway.origin}/readyz`)).json();
    expect(ready.upstreams.map((u: { id: string }) => u.id)).toEqual(CHAT);
    const logged = t.logs
      .json()
      .filter((l) => typeof l.upstream === 'string' && String(l.msg).startsWith('upstream '))
      .map((l) => l.upstream);
    expect(logged).toEqual(CHAT);
    expect(t.upstreamRequests()).toEqual([]);
  });
});

describe('GATEWAY_DOMAINS=titles,enterprise,gateway', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ GATEWAY_DOMAINS: 'titles,enterprise,gateway' });
  });
  afterAll(() => t.close());

  it('serves titles and service health, without chat, and keeps the enterprise mutations', async () => {
    const r = await t.query(
      '{ upstreams { id mode } title(imdbId: "tt0078346") { title } admin { serviceAnnouncement { healthOverviews(first: 1) { nodes { id } } } } }',
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.title).toEqual({ title: 'Superman' });
    expect((await t.query('{ chatProviders { id } }')).body.errors![0].extensions!.reason).toBe(
      'GRAPHQL_VALIDATION_FAILED',
    );
    const types = await t.query('{ __schema { mutationType { fields { name } } } }');
    expect(types.body.data.__schema.mutationType.fields.map((f: { name: string }) => f.name)).toContain(
      'updateServiceHealth',
    );
    expect(types.body.data.__schema.mutationType.fields.map((f: { name: string }) => f.name)).not.toContain(
      'createChatCompletion',
    );
  });

  it("lists every domain's upstreams in `upstreams` (it answers for the graph), and only its own in /readyz and the log", async () => {
    const r = await t.query('{ upstreams { id mode } }');
    expect(r.body.data.upstreams).toEqual(EVERY_UPSTREAM.map((id) => ({ id, mode: 'SANDBOX' })));
    const ready = await (await fetch(`${t.gateway.origin}/readyz`)).json();
    expect(ready.upstreams.map((u: { id: string }) => u.id)).toEqual(['graph', 'omdb']);
    const logged = t.logs
      .json()
      .filter((l) => typeof l.upstream === 'string' && String(l.msg).startsWith('upstream '))
      .map((l) => l.upstream);
    expect(logged).toEqual(['graph', 'omdb']);
  });
});

describe('GATEWAY_DOMAINS=titles', () => {
  it("has no Mutation or Subscription type: titles has neither, and the gateway domain's serverTime is not served", async () => {
    const t = await startTestGateway({ GATEWAY_DOMAINS: 'titles' });
    try {
      const r = await t.query(
        '{ __schema { queryType { fields { name } } mutationType { name } subscriptionType { name } } }',
      );
      expect(r.body.data.__schema).toEqual({
        queryType: {
          fields: [{ name: 'title' }, { name: 'searchTitles' }, { name: '_entities' }, { name: '_service' }],
        },
        mutationType: null,
        subscriptionType: null,
      });
    } finally {
      await t.close();
    }
  });
});

describe('a bad GATEWAY_DOMAINS', () => {
  it.each(['enterprise,movies', 'Chat'])('%s stops start-up naming the value and the choices', (value) => {
    const bad = value.split(',').find((d) => !['enterprise', 'chat', 'titles', 'gateway'].includes(d));
    expect(() => loadConfig({ GATEWAY_DOMAINS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ GATEWAY_DOMAINS: value })).toThrow(
      `GATEWAY_DOMAINS: "${bad}" is not a domain; list some of enterprise, chat, titles, gateway`,
    );
  });

  it('defaults to every domain, gateway included, when unset or empty', () => {
    expect(loadConfig({}).domains).toEqual(['enterprise', 'chat', 'titles', 'gateway']);
    expect(loadConfig({ GATEWAY_DOMAINS: ' ' }).domains).toEqual(['enterprise', 'chat', 'titles', 'gateway']);
  });
});
