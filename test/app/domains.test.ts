/**
 * GATEWAY_DOMAINS serves only the listed domains: their root fields and types, standalone and as a subgraph, and only
 * their upstreams in `upstreams`, `/readyz` and the start-up log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/env.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const CHAT = ['glm', 'ark', 'deepseek', 'moonshot'];

describe('GATEWAY_DOMAINS=chat', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ GATEWAY_DOMAINS: 'chat' });
  });
  afterAll(() => t.close());

  it('serves the chat fields and the gateway\'s own, listing only the chat upstreams', async () => {
    const r = await t.query('{ upstreams { id } chatProviders { id } chatUsage { provider } }');
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.upstreams.map((u: { id: string }) => u.id)).toEqual(CHAT);
    const completion = await t.query('mutation { createChatCompletion(input: { provider: "glm", model: "glm-4-flash", messages: [{ role: USER, content: "Hi" }] }) { provider } }');
    expect(completion.body.data).toEqual({ createChatCompletion: { provider: 'glm' } });
    expect(t.upstreamRequests().map((q) => q.upstream)).toEqual(['glm']);
  });

  it('has no enterprise or titles root field, type or upstream, as a subgraph either', async () => {
    t.clearUpstreamRequests();
    for (const query of ['{ admin { __typename } }', '{ title(imdbId: "tt0078346") { title } }', '{ searchTitles(query: "batman") { totalResults } }']) {
      const r = await t.query(query);
      expect(r.body.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'GRAPHQL_VALIDATION_FAILED' });
    }
    const sdl: string = (await t.query('{ _service { sdl } }')).body.data._service.sdl;
    expect(sdl).toContain('chatProviders');
    expect(sdl).not.toMatch(/ServiceHealth|\bTitle\b|PageInfo|updateAdmin/);
    const ready = await (await fetch(`${t.gateway.origin}/readyz`)).json();
    expect(ready.upstreams.map((u: { id: string }) => u.id)).toEqual(CHAT);
    const logged = t.logs.json().filter((l) => typeof l.upstream === 'string' && String(l.msg).startsWith('upstream ')).map((l) => l.upstream);
    expect(logged).toEqual(CHAT);
    expect(t.upstreamRequests()).toEqual([]);
  });
});

describe('GATEWAY_DOMAINS=titles,enterprise', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ GATEWAY_DOMAINS: 'titles,enterprise' });
  });
  afterAll(() => t.close());

  it('serves titles and service health, without chat, and keeps the enterprise mutations', async () => {
    const r = await t.query('{ upstreams { id } title(imdbId: "tt0078346") { title } admin { serviceAnnouncement { healthOverviews(first: 1) { nodes { id } } } } }');
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.upstreams.map((u: { id: string }) => u.id)).toEqual(['graph', 'omdb']);
    expect(r.body.data.title).toEqual({ title: 'Superman' });
    expect((await t.query('{ chatProviders { id } }')).body.errors![0].extensions!.reason).toBe('GRAPHQL_VALIDATION_FAILED');
    const types = await t.query('{ __schema { mutationType { fields { name } } } }');
    expect(types.body.data.__schema.mutationType.fields.map((f: { name: string }) => f.name)).toContain('updateServiceHealth');
    expect(types.body.data.__schema.mutationType.fields.map((f: { name: string }) => f.name)).not.toContain('createChatCompletion');
  });
});

describe('GATEWAY_DOMAINS=titles', () => {
  it('has no Mutation type: neither titles nor the gateway itself has mutations', async () => {
    const t = await startTestGateway({ GATEWAY_DOMAINS: 'titles' });
    try {
      const r = await t.query('{ __schema { mutationType { name } subscriptionType { fields { name } } } }');
      expect(r.body.data.__schema).toEqual({ mutationType: null, subscriptionType: { fields: [{ name: 'serverTime' }] } });
    } finally {
      await t.close();
    }
  });
});

describe('a bad GATEWAY_DOMAINS', () => {
  it.each(['enterprise,movies', 'Chat'])('%s stops start-up naming the value and the choices', (value) => {
    const bad = value.split(',').find((d) => !['enterprise', 'chat', 'titles'].includes(d));
    expect(() => loadConfig({ GATEWAY_DOMAINS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ GATEWAY_DOMAINS: value })).toThrow(`GATEWAY_DOMAINS: "${bad}" is not a domain; list some of enterprise, chat, titles`);
  });

  it('defaults to every domain when unset or empty', () => {
    expect(loadConfig({}).domains).toEqual(['enterprise', 'chat', 'titles']);
    expect(loadConfig({ GATEWAY_DOMAINS: ' ' }).domains).toEqual(['enterprise', 'chat', 'titles']);
  });
});
