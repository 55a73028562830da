/**
 * Router cache hits through Hive Gateway's response cache (`responseCaching`, @graphql-mesh/plugin-response-cache)
 * over a supergraph of this subgraph and the reviews subgraph: what the supergraph's `@cacheControl` (kept by
 * `@composeDirective`) lets a router cache, per entity type, and what it keeps private. "Before" is the same
 * supergraph composed from this subgraph's SDL without the `@composeDirective` lines, as main served it.
 */
import InMemoryLRUCache from '@graphql-mesh/cache-inmemory-lru';
import { createGatewayRuntime } from '@graphql-hive/gateway';
import { parse, print } from 'graphql';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { reviewsSdlFile, startReviewsSubgraph } from './reviewsSubgraph.js';
import { startInstance, subgraphOf, supergraph, type Instance, type Subgraph } from './routing.js';

const ROUTER_KEY = 'router-key-0123456789abcdef';

interface CachingRouter {
  query(query: string): Promise<{
    data?: unknown;
    errors?: unknown[];
    extensions?: { responseCache?: { hit: boolean; didCache: boolean; ttl?: number } };
  }>;
  stop(): Promise<void>;
}

/** Hive Gateway with its response cache on (one cache for every client: no session), presenting the router key. */
async function startCachingRouter(supergraphSdl: string): Promise<CachingRouter> {
  const runtime = createGatewayRuntime({
    supergraph: supergraphSdl,
    logging: false,
    cache: new InMemoryLRUCache(),
    responseCaching: { session: () => null, includeExtensionMetadata: true },
    propagateHeaders: { fromClientToSubgraphs: () => ({ 'x-api-key': ROUTER_KEY }) },
  });
  // oxlint-disable-next-line typescript/no-misused-promises
  const server = createServer(runtime);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return {
    async query(query) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return (await res.json()) as never;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await runtime.dispose();
    },
  };
}

const TITLES = `{ recentReviews { rating title { imdbId title year } } }`;
const HEALTH = `{ admin { serviceAnnouncement { healthOverview(id: "Exchange") { id status } } } }`;
const MIXED = `{ recentReviews { title { imdbId title } } admin { serviceAnnouncement { healthOverview(id: "Exchange") { id status } } } }`;
const USAGE = `{ chatUsage { provider totalTokens } }`;

let sandbox: Sandbox;
let ours: Instance;
let reviews: Awaited<ReturnType<typeof startReviewsSubgraph>>;
let subgraphs: Subgraph[];

beforeAll(async () => {
  sandbox = await startSandbox({ settings: { chatTokenDelayMs: 0 } });
  ours = await startInstance('gateway', { TRUSTED_ROUTER_KEYS: ROUTER_KEY, RESPONSE_CACHE_MAX_BYTES: '0' }, sandbox);
  reviews = await startReviewsSubgraph();
  const reviewsSubgraph = { name: 'reviews', url: reviews.url, typeDefs: parse(readFileSync(reviewsSdlFile, 'utf8')) };
  subgraphs = [await subgraphOf(ours), reviewsSubgraph];
});
afterAll(async () => {
  await reviews?.stop();
  await ours?.gateway.close();
  await sandbox?.close();
});

/** Operations this subgraph ran for `run` (what the router could not answer from its cache). */
async function reaching(run: () => Promise<unknown>): Promise<number> {
  const before = ours.operations().length;
  await run();
  return ours.operations().length - before;
}

describe("a router's response cache over the supergraph's @cacheControl (Hive Gateway)", () => {
  let router: CachingRouter;
  beforeAll(async () => {
    router = await startCachingRouter(supergraph('guild', subgraphs));
  });
  afterAll(() => router?.stop());

  it('answers 19 of 20 identical title queries from its cache: one _entities call reaches this subgraph', async () => {
    const first = await router.query(TITLES);
    expect(first.errors).toBeUndefined();
    expect(first.extensions?.responseCache).toMatchObject({ hit: false, didCache: true, ttl: 86_400_000 });
    const hits = await reaching(async () => {
      for (let i = 0; i < 19; i++) expect((await router.query(TITLES)).extensions?.responseCache?.hit).toBe(true);
    });
    expect(hits).toBe(0);
    console.info(
      'router cache (Hive Gateway response cache): 20 identical title queries, 1 reached this subgraph, 19 hits',
    );
  });

  it("keeps each entity type's TTL: a day for titles, a minute for health, a minute for an answer holding both", async () => {
    expect((await router.query(HEALTH)).extensions?.responseCache).toMatchObject({ didCache: true, ttl: 60_000 });
    expect((await router.query(MIXED)).extensions?.responseCache).toMatchObject({ didCache: true, ttl: 60_000 });
  });

  it('never caches private data (chat usage) without a session: every query reaches this subgraph', async () => {
    const reached = await reaching(async () => {
      for (let i = 0; i < 5; i++) expect((await router.query(USAGE)).extensions?.responseCache?.didCache).toBe(false);
    });
    expect(reached).toBe(5);
  });
});

describe('the same router over the supergraph main composed (no @composeDirective: the hints lost)', () => {
  let router: CachingRouter;
  beforeAll(async () => {
    const { typeDefs, ...rest } = subgraphs[0];
    const sdl = print(typeDefs).replace(/extend schema @link\(url: "https:\/\/the-guild\.dev\/mesh[^\n]*\n/, '');
    expect(sdl).not.toContain('@composeDirective(name: "@cacheControl")');
    router = await startCachingRouter(supergraph('guild', [{ ...rest, typeDefs: parse(sdl) }, subgraphs[1]]));
  });
  afterAll(() => router?.stop());

  it("read TTLs from this subgraph's Cache-Control alone, and kept chat usage for everyone", async () => {
    expect((await router.query(TITLES)).extensions?.responseCache).toMatchObject({ didCache: true, ttl: 86_400_000 });
    const reached = await reaching(async () => {
      for (let i = 0; i < 5; i++) await router.query(USAGE);
    });
    console.info(`before @composeDirective: 5 chat usage queries through the router, ${reached} reached this subgraph`);
    expect(reached).toBe(1);
  });
});
