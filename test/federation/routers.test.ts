/**
 * This subgraph next to two company subgraphs (`people`: a job `Title`, Relay `PageInfo`, its own `OrderDirection`;
 * `support`: its own `ChatMessage`) under SUBGRAPH_TYPE_PREFIX=Ops, as one instance and as three (enterprise with the
 * gateway domain, titles, chat), through Hive Gateway (JavaScript and Rust query planners) and Apollo Gateway: every
 * router answers every query alike, and the split deployment sends exactly the upstream requests the single instance
 * sends. A tag-based contract without chat, subscriptions through the router, and `@inaccessible` fields too.
 */
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { people, EMPLOYEES } from './company/people.js';
import { startCompanySubgraph, type RunningSubgraph } from './company/subgraph.js';
import { support, TICKETS } from './company/support.js';
import {
  contractSupergraph,
  post,
  startApolloGateway,
  startHiveGateway,
  startInstance,
  subgraphOf,
  subscribeOverSse,
  supergraph,
  type GraphQLAnswer,
  type Instance,
  type Router,
  type Subgraph,
  COUNTED_ENV as ENV,
  DATA_UPSTREAMS,
  OURS,
} from './routing.js';

/** Each query of the comparison with the upstream requests it costs, the same through one instance or three. */
const QUERIES: Array<{
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  upstream: Record<string, number>;
}> = [
  {
    name: 'every domain of this subgraph in one query',
    query: `{
      upstreams { id mode }
      title(imdbId: "tt0133093") { __typename title year ratings { source value } }
      admin { serviceAnnouncement { healthOverviews(first: 3, orderBy: [{ field: SERVICE }]) { nodes { __typename id service status } pageInfo { __typename hasNextPage endCursor } } } }
      chatProviders { __typename id variant models }
    }`,
    upstream: { graph: 1, omdb: 1 },
  },
  {
    name: "a company connection whose nodes reference this subgraph's titles",
    query: `{ employees(first: 5, order: DESC) { order pageInfo { hasNextPage startCursor } edges { node { name title { __typename name } favoriteMovie { __typename imdbId title year } } } } }`,
    upstream: { omdb: 4 },
  },
  {
    name: "company tickets that reference this subgraph's services, which the company extends in turn",
    query: `{ tickets { id subject messages { __typename author text } service { __typename id service status openTickets { id } } } }`,
    upstream: { graph: 1 },
  },
  {
    name: 'fragments on served types, a renamed input type in a variable, a company field on a service',
    query: `query ($order: [OpsServiceHealthOrder!]) {
      admin { serviceAnnouncement {
        healthOverviews(first: 2, orderBy: $order) { nodes { ...Service openTickets { subject } } }
        issues(first: 2, orderBy: [{ field: START_DATE_TIME, direction: DESC }]) { nodes { ... on OpsServiceHealthIssue { id title status } } }
      } }
    }
    fragment Service on OpsServiceHealth { id service status }`,
    variables: { order: [{ field: 'SERVICE', direction: 'DESC' }] },
    upstream: { graph: 2 },
  },
  {
    name: 'a title search whose items are looked up one by one',
    query: `{ searchTitles(query: "batman") { totalResults items { imdbId title directors } } }`,
    upstream: { omdb: 11 },
  },
  {
    name: 'a chat completion (a mutation)',
    query: `mutation { createChatCompletion(input: { provider: "glm", model: "glm-4-flash", messages: [{ role: USER, content: "What does a router do?" }] }) { __typename provider model content choices { message { __typename role content } finishReason } usage { totalTokens } } }`,
    upstream: { glm: 1 },
  },
  {
    name: 'the company alone',
    query: `{ jobTitle(id: "jt2") { __typename name level holders { name } } supportChat(ticket: "T-1") { __typename author text } }`,
    upstream: {},
  },
];

let sandbox: Sandbox;
let single: Instance;
let split: Instance[];
let companies: RunningSubgraph[];
/** The company subgraphs as a router composes them. */
let company: Subgraph[];
let routers: Router[];

function upstreamCounts(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of sandbox.record.list())
    if (DATA_UPSTREAMS.has(r.upstream)) counts[r.upstream] = (counts[r.upstream] ?? 0) + 1;
  return counts;
}

beforeAll(async () => {
  sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
  const definitions = [people(OURS), support(OURS)];
  companies = await Promise.all(definitions.map(startCompanySubgraph));
  company = companies.map((c, i) => ({ name: c.name, url: c.url, typeDefs: parse(definitions[i].sdl) }));
  single = await startInstance('ops', ENV, sandbox);
  split = await Promise.all([
    startInstance('ops_enterprise', { ...ENV, GATEWAY_DOMAINS: 'enterprise,gateway' }, sandbox),
    startInstance('ops_titles', { ...ENV, GATEWAY_DOMAINS: 'titles' }, sandbox),
    startInstance('ops_chat', { ...ENV, GATEWAY_DOMAINS: 'chat' }, sandbox),
  ]);
  const one = [await subgraphOf(single), ...company];
  const three = [...(await Promise.all(split.map(subgraphOf))), ...company];
  routers = await Promise.all([
    startHiveGateway('Hive Gateway, one instance', supergraph('guild', one)),
    startHiveGateway('Hive Gateway (Rust planner), one instance', supergraph('guild', one), 'hive-rust'),
    startApolloGateway('Apollo Gateway, one instance', supergraph('apollo', one)),
    startHiveGateway('Hive Gateway, three instances', supergraph('guild', three)),
    startHiveGateway('Hive Gateway (Rust planner), three instances', supergraph('guild', three), 'hive-rust'),
    startApolloGateway('Apollo Gateway, three instances', supergraph('apollo', three)),
  ]);
  // The Graph token, once per instance, before anything is counted.
  for (const i of [single, split[0]])
    await post(i.gateway.url, '{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { id } } } }');
}, 120_000);

afterAll(async () => {
  await Promise.all((routers ?? []).map((r) => r.stop()));
  await Promise.all([single, ...(split ?? [])].filter(Boolean).map((i) => i.gateway.close()));
  await Promise.all((companies ?? []).map((c) => c.stop()));
  await sandbox?.close();
});

describe.each(QUERIES)('$name', ({ query, variables, upstream }) => {
  it('is answered alike by every router, over one instance or three, with the same upstream requests', async () => {
    const answers: GraphQLAnswer[] = [];
    for (const router of routers) {
      sandbox.record.clear();
      const answer = await post(router.url, query, variables);
      expect(answer.errors, router.name).toBeUndefined();
      expect(upstreamCounts(), router.name).toEqual(upstream);
      answers.push(answer);
    }
    for (const [i, answer] of answers.entries()) expect(answer, routers[i].name).toEqual(answers[0]);
  });
});

describe('what the answers hold', () => {
  it("names this subgraph's types as served and the company's as its own, side by side", async () => {
    const { data } = await post(routers[3].url, QUERIES[1].query);
    const edges = (data as any).employees.edges as Array<{ node: any }>;
    expect(edges.map((e) => e.node.name)).toEqual(
      EMPLOYEES.map((e) => e.name)
        .sort()
        .reverse(),
    );
    expect(edges[0].node).toEqual({
      name: 'Margaret',
      title: { __typename: 'Title', name: 'Staff Engineer' },
      favoriteMovie: { __typename: 'OpsTitle', imdbId: 'tt0372784', title: 'Batman Begins', year: '2005' },
    });
    const tickets = (await post(routers[3].url, QUERIES[2].query)).data!.tickets as any[];
    expect(tickets.map((t) => t.service.id)).toEqual(TICKETS.map((t) => t.serviceId));
    expect(tickets[0].service).toMatchObject({
      __typename: 'OpsServiceHealth',
      service: 'Exchange Online',
      openTickets: [{ id: 'T-1' }, { id: 'T-3' }],
    });
    expect(tickets[0].messages[0]).toEqual({
      __typename: 'ChatMessage',
      author: 'customer',
      text: 'My mail has been in the outbox since 9.',
    });
  });

  it("sends each instance one operation with its own domains' fields; references between them travel through the router", async () => {
    const router = routers[3];
    const ran = async (query: string) => {
      const before = split.map((i) => i.operations().length);
      await post(router.url, query);
      return () => split.map((i, k) => i.operations().length - before[k]);
    };
    await expect.poll(await ran(QUERIES[0].query)).toEqual([1, 1, 1]);
    // The tickets' services: one _entities call to the enterprise instance; the favourite movies: one to titles.
    await expect.poll(await ran(QUERIES[2].query)).toEqual([1, 0, 0]);
    await expect.poll(await ran(QUERIES[1].query)).toEqual([0, 1, 0]);
  });

  it('keeps @inaccessible fields inside: a router refuses Upstream.baseUrl and ChatModel.upstreamModel, the instance still serves them', async () => {
    for (const router of routers) {
      const r = await post(router.url, '{ upstreams { baseUrl } }');
      expect(r.errors?.[0]?.message, router.name).toMatch(/baseUrl/);
      expect(r.data ?? undefined, router.name).toBeUndefined();
      const m = await post(router.url, '{ chatProviders { modelDetails { upstreamModel } } }');
      expect(m.errors?.[0]?.message, router.name).toMatch(/upstreamModel/);
    }
    const direct = await post(single.gateway.url, '{ upstreams { id baseUrl } }');
    expect((direct.data as any).upstreams[0]).toEqual({ id: 'graph', baseUrl: `${sandbox.baseUrls.graph}/v1.0` });
  });
});

describe('subscriptions through Hive Gateway over three instances', () => {
  it('routes serverTime to the instance serving the gateway domain and chatCompletionStream to the chat instance, over graphql-ws', async () => {
    const router = routers[3];
    const before = split.map((i) => i.operations().filter((l) => l.type === 'subscription').length);
    const clock = await subscribeOverSse(router.url, 'subscription { serverTime(intervalMs: 10, count: 3) }');
    expect(clock.map((e) => typeof (e.data as any)?.serverTime)).toEqual(['string', 'string', 'string']);

    sandbox.record.clear();
    const input = {
      provider: 'glm',
      model: 'glm-4-flash',
      messages: [{ role: 'USER', content: 'What does a GraphQL gateway do?' }],
    };
    const stream =
      'subscription ($input: OpsChatCompletionInput!) { chatCompletionStream(input: $input) { delta { content } finishReason } }';
    const chunks = await subscribeOverSse(router.url, stream, { input });
    expect(chunks.at(-1)!.data).toMatchObject({ chatCompletionStream: { finishReason: 'STOP' } });
    expect(upstreamCounts()).toEqual({ glm: 1 });
    // The same tokens as the single instance streams directly (the sandbox is deterministic).
    const direct = await subscribeOverSse(routers[0].url, stream, { input });
    const text = (events: GraphQLAnswer[]) =>
      events.map((e) => (e.data as any).chatCompletionStream.delta.content ?? '').join('');
    expect(text(chunks)).toBe(text(direct));
    expect(text(chunks).length).toBeGreaterThan(10);

    const after = split.map((i) => i.operations().filter((l) => l.type === 'subscription'));
    expect(after.map((list, i) => list.length - before[i])).toEqual([1, 0, 1]);
    expect(after.flat().every((l) => l.transport === 'ws')).toBe(true);
  });
});

describe("a contract without the chat domain (tags, the Guild's composer)", () => {
  let contract: Router;
  let publicSdl: string;
  beforeAll(async () => {
    const variant = contractSupergraph([...(await Promise.all(split.map(subgraphOf))), ...company], ['chat']);
    publicSdl = variant.publicSdl;
    contract = await startHiveGateway('Hive Gateway, contract without chat', variant.supergraphSdl);
  });
  afterAll(() => contract?.stop());

  it("has no chat root field or type of this subgraph, and keeps the company's own ChatMessage", () => {
    expect(publicSdl).not.toMatch(/chatProviders|chatUsage|createChatCompletion|chatCompletionStream|OpsChat/);
    expect(publicSdl).toMatch(/type ChatMessage\b/);
    expect(publicSdl).toMatch(/admin: OpsAdmin!/);
  });

  it('refuses the chat fields and answers the rest as the full supergraph does, with the same upstream requests', async () => {
    const refused = await post(contract.url, '{ chatProviders { id } }');
    expect(refused.errors?.[0]?.message).toMatch(/chatProviders/);
    const withoutChat = QUERIES[0].query.replace(/chatProviders \{[^}]*\}/, '');
    sandbox.record.clear();
    const answer = await post(contract.url, withoutChat);
    expect(answer.errors).toBeUndefined();
    expect(upstreamCounts()).toEqual({ graph: 1, omdb: 1 });
    expect(answer).toEqual(await post(routers[3].url, withoutChat));
    for (const q of QUERIES.slice(1, 5))
      expect((await post(contract.url, q.query, q.variables)).errors, q.name).toBeUndefined();
  });
});

describe("a router's subscriptions at scale, with the settings docs/federation.md gives a router operator", () => {
  let instance: Instance;
  let hive: Router;
  let upgrades = 0;
  beforeAll(async () => {
    instance = await startInstance(
      'ops',
      { ...ENV, GATEWAY_WS_MAX_OPERATIONS: '1000', CLIENT_MAX_SUBSCRIPTIONS: '1000' },
      sandbox,
    );
    instance.gateway.server.on('upgrade', () => upgrades++);
    hive = await startHiveGateway(
      'Hive Gateway, one instance',
      supergraph('guild', [await subgraphOf(instance), ...company]),
    );
  });
  afterAll(async () => {
    await hive?.stop();
    await instance?.gateway.close();
  });

  it('carries 300 subscriptions that Hive Gateway multiplexes over one graphql-ws connection: every one receives all its events', async () => {
    const streams = await Promise.all(
      Array.from({ length: 300 }, () =>
        subscribeOverSse(hive.url, 'subscription { serverTime(intervalMs: 20, count: 3) }'),
      ),
    );
    expect(
      streams.filter(
        (events) => events.length === 3 && events.every((e) => typeof (e.data as any)?.serverTime === 'string'),
      ),
    ).toHaveLength(300);
    expect(upgrades).toBe(1);
    await expect
      .poll(() => instance.operations().filter((l) => l.type === 'subscription' && l.outcome === 'ok').length)
      .toBe(300);
  });
});

describe('@defer through Hive Gateway (deferStream: true)', () => {
  let hive: Router;
  beforeAll(async () => {
    hive = await startHiveGateway(
      'Hive Gateway with deferStream, three instances',
      supergraph('guild', [...(await Promise.all(split.map(subgraphOf))), ...company]),
      'hive-js',
      { deferStream: true },
    );
  });
  afterAll(() => hive?.stop());

  it('answers the fields outside @defer first and the deferred ones after, each subgraph asked once', async () => {
    sandbox.record.clear();
    const res = await fetch(hive.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
      body: JSON.stringify({
        query:
          '{ title(imdbId: "tt0133093") { title ... @defer { directors } } tickets { id ... @defer { service { status } } } }',
      }),
    });
    expect(res.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    const parts = (await res.text())
      .split(/\r?\n---/)
      .flatMap((p) => (/\{.*\}/s.exec(p) ? [JSON.parse(/\{.*\}/s.exec(p)![0])] : []));
    expect(parts[0]).toEqual({
      data: { title: { title: 'The Matrix' }, tickets: TICKETS.map((t) => ({ id: t.id })) },
      hasNext: true,
    });
    const incremental = parts.slice(1).flatMap((p) => p.incremental ?? []);
    expect(incremental).toContainEqual({ data: { directors: ['Lana Wachowski', 'Lilly Wachowski'] }, path: ['title'] });
    expect(incremental.filter((i: { path: unknown[] }) => i.path[0] === 'tickets')).toHaveLength(3);
    expect(parts.at(-1).hasNext).toBe(false);
    expect(upstreamCounts()).toEqual({ graph: 1, omdb: 1 });
  });
});
