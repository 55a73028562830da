import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Proc } from '../../src/bench/lib/proc.js';
import { supergraph as composeHere } from '../../src/build/supergraph.js';
import { PROVIDERS, STREAM, eventually, user, type Chunk } from '../support/chat.js';
import { batchItems, graphCalls } from '../support/graphRequests.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { nodeArgs } from '../support/process.js';
import { startHiveGateway } from '../support/hiveGateway.js';
import { collect, wsClient } from '../support/ws.js';
import { omdbQueries } from '../support/omdbRequests.js';
import { REVIEWS, reviewsSdlFile, startReviewsSubgraph, WATCHED } from './reviewsSubgraph.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** `npm run supergraph -- …` as a child process (what a user runs). */
function supergraph(args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, [...nodeArgs('build/supergraph.ts'), ...args], {
    cwd: root,
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
}

/**
 * The same run in this process (`supergraph()`, which the command calls), settling as `supergraph()` above does: for
 * the cases that need no process of their own (a spawned run is ≈ 1.2 s of CPU; "behind Hive Gateway" spawns one).
 */
async function supergraphHere(args: string[], env: Record<string, string> = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await composeHere(
    args,
    { ...process.env, ...env },
    {
      log: (line) => stdout.push(`${line}\n`),
      error: (line) => stderr.push(`${line}\n`),
    },
  );
  const result = { code, stdout: stdout.join(''), stderr: stderr.join('') };
  if (code !== 0) throw result;
  return result;
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'supergraph-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run supergraph', () => {
  it('composes one subgraph per --instance, under the configured prefix, and a contract variant with --exclude-tag', async () => {
    const out = join(dir, 'contract.graphql');
    const { stdout } = await supergraphHere(
      [
        '--out',
        out,
        '--instance',
        'enterprise,gateway=http://127.0.0.1:4101/graphql',
        '--instance',
        'titles=http://127.0.0.1:4102/graphql',
        '--instance',
        'chat=http://127.0.0.1:4103/graphql',
        '--exclude-tag',
        'chat',
      ],
      { SUBGRAPH_TYPE_PREFIX: 'Ops' },
    );
    expect(stdout).toContain(
      '(contract: without chat): enterprise_gateway (http://127.0.0.1:4101/graphql), titles (http://127.0.0.1:4102/graphql), chat (http://127.0.0.1:4103/graphql)',
    );
    const sdl = readFileSync(out, 'utf8');
    expect(sdl).toMatch(/type OpsTitle[^{]*@join__type\(graph: TITLES, key: "imdbId"\)/);
    expect(sdl).toMatch(/upstreams: \[OpsUpstream!\]! [^\n]*@join__field\(graph: ENTERPRISE_GATEWAY\)/);
    expect(sdl).toMatch(/chatProviders: \[OpsChatProvider!\]! [^\n]*@join__field\(graph: CHAT\)[^\n]*@inaccessible/);
  }, 60_000);

  it('stops with the configuration error when SUBGRAPH_RENAMES names no type', async () => {
    const failed = await supergraphHere(['--out', join(dir, 'never.graphql')], {
      SUBGRAPH_RENAMES: 'Titel=Movie',
    }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed!.stderr.trim()).toMatch(/^configuration error: SUBGRAPH_RENAMES: Titel is not a type of this graph/);
  }, 60_000);

  it('prints every composition error as one numbered list and exits non-zero', async () => {
    const bad = join(dir, 'clash.graphql');
    writeFileSync(
      bad,
      `extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])
       type Title @key(fields: "imdbId") { imdbId: ID! title: Int }
       type Query { admin: String }`,
    );
    const failed = await supergraphHere(['--out', join(dir, 'never.graphql'), bad]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    const lines = failed!.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^Composition failed with \d+ errors:$/);
    const hint = lines.at(-1)!;
    expect(hint).toMatch(
      /^hint: \d+ of these errors name types both this subgraph and yours define: Title \(also in clash\)/,
    );
    expect(lines.slice(1, -1).every((line, i) => line.startsWith(`  ${i + 1}. `))).toBe(true);
    expect(failed!.stderr).toContain('"Title.title"');
    expect(failed!.stderr).toContain('"Query.admin"');
    expect(() => readFileSync(join(dir, 'never.graphql'))).toThrow();
  }, 60_000);
});

describe('npm run supergraph: what a newcomer meets first', () => {
  it('writes the routing URL with the port PORT says (and HOST), when no --url is given', async () => {
    const out = join(dir, 'port.graphql');
    const { stdout } = await supergraphHere(['--out', out], {
      PORT: '4321',
      HOST: '127.0.0.1',
    });
    expect(stdout).toContain('gateway (http://127.0.0.1:4321/graphql)');
    expect(readFileSync(out, 'utf8')).toContain(
      'GATEWAY @join__graph(name: "gateway", url: "http://127.0.0.1:4321/graphql")',
    );
  }, 60_000);

  it('suggests SUBGRAPH_TYPE_PREFIX when the errors come from a company type named like one of ours, and the suggestion composes', async () => {
    const people = join(dir, 'people.graphql');
    writeFileSync(
      people,
      `extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])
       type Query { jobTitle(id: ID!): Title }
       "A job title."
       type Title @key(fields: "id") { id: ID! name: String! level: Int! }`,
    );
    const failed = await supergraphHere(['--out', join(dir, 'never.graphql'), people]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    const count = Number(/^Composition failed with (\d+) errors:$/m.exec(failed!.stderr)?.[1]);
    expect(count).toBeGreaterThan(20);
    expect(failed!.stderr.trim().split('\n').at(-1)).toBe(
      `hint: ${count} of these errors name types both this subgraph and yours define: Title (also in people). Give this subgraph's types names of their own with SUBGRAPH_TYPE_PREFIX=Ops (every type) or SUBGRAPH_RENAMES=Title=Movie (one type), then compose again (docs/federation.md, "Rename what collides").`,
    );
    const { stdout } = await supergraphHere(['--out', join(dir, 'prefixed.graphql'), people], {
      SUBGRAPH_TYPE_PREFIX: 'Ops',
    });
    expect(stdout).toContain('wrote ');
    // An error that names none of the shared types gets no hint.
    const unrelated = join(dir, 'unrelated.graphql');
    writeFileSync(
      unrelated,
      `extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])
       type Query { admin: String }`,
    );
    const other = await supergraphHere(['--out', join(dir, 'never.graphql'), unrelated]).then(
      () => undefined,
      (error: { stderr: string }) => error,
    );
    expect(other!.stderr).not.toContain('hint:');
  }, 90_000);
});

describe('behind Hive Gateway', () => {
  let gw: TestGateway;
  let reviews: Awaited<ReturnType<typeof startReviewsSubgraph>>;
  let hive: Proc;
  let hiveUrl: string;
  let file: string;
  let composed: string;

  // The file's one `npm run supergraph` as a user runs it (a child process, ~1.2 s of CPU; the other cases call
  // supergraph() in-process): its output is checked, then served.
  beforeAll(async () => {
    gw = await startTestGateway();
    reviews = await startReviewsSubgraph();
    file = join(dir, 'supergraph.graphql');
    ({ stdout: composed } = await supergraph([
      '--out',
      file,
      '--url',
      gw.gateway.url,
      `${reviewsSdlFile}=${reviews.url}`,
    ]));
    // Subscriptions to this subgraph over graphql-ws, on the same /graphql path as queries.
    writeFileSync(
      join(dir, 'gateway.config.mjs'),
      `export const gatewayConfig = {
        supergraph: ${JSON.stringify(file)},
        transportEntries: { gateway: { options: { subscriptions: { kind: 'ws', location: '/graphql' } } } },
      };\n`,
    );
    ({ proc: hive, url: hiveUrl } = await startHiveGateway(dir));
  }, 120_000);
  afterAll(async () => {
    await hive?.stop();
    await reviews?.stop();
    await gw?.close();
  });
  beforeEach(() => {
    gw.clearUpstreamRequests();
    reviews.received.length = 0;
  });

  it('composes this subgraph with the given SDL files into supergraph.graphql, naming each subgraph after its file', () => {
    expect(composed).toContain(`gateway (${gw.gateway.url}), reviews (${reviews.url})`);
    const sdl = readFileSync(file, 'utf8');
    expect(sdl).toContain(`GATEWAY @join__graph(name: "gateway", url: "${gw.gateway.url}")`);
    expect(sdl).toContain(`REVIEWS @join__graph(name: "reviews", url: "${reviews.url}")`);
    expect(sdl).toMatch(
      /type Title[^{]*@join__type\(graph: GATEWAY, key: "imdbId"\)\s+@join__type\(graph: REVIEWS, key: "imdbId"\)/,
    );
    expect(sdl).toMatch(/reviews: \[Review!\]! @join__field\(graph: REVIEWS\)/);
  });

  async function viaHive(query: string): Promise<{ data?: any; errors?: unknown[] }> {
    const res = await fetch(hiveUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return res.json() as never;
  }

  it('answers a query from this subgraph extended by the other, with one upstream request per domain', async () => {
    const r = await viaHive(`{
      title(imdbId: "tt0078346") { title year reviews { rating text } }
      admin { serviceAnnouncement { healthOverviews(first: 3, orderBy: [{ field: SERVICE }]) { nodes { id service runbookUrl } } } }
    }`);
    expect(r.errors).toBeUndefined();
    expect(r.data.title).toEqual({
      title: 'Superman',
      year: '1978',
      reviews: [
        { rating: 5, text: 'Still flies.' },
        { rating: 3, text: 'Sequel please.' },
      ],
    });
    const services = r.data.admin.serviceAnnouncement.healthOverviews.nodes;
    expect(services).toHaveLength(3);
    for (const s of services) expect(s.runbookUrl).toBe(`https://runbooks.example/${s.id.toLowerCase()}`);

    expect(omdbQueries(gw.upstreamRequests())).toEqual(['i=tt0078346']);
    expect(graphCalls(gw)).toEqual([
      'GET /admin/serviceAnnouncement/healthOverviews?$select=id,service&$top=3&$orderby=service',
    ]);
    // The other subgraph is asked once, for the title and the three services by reference.
    expect(reviews.received).toHaveLength(1);
    expect(Object.values(reviews.received[0].variables ?? {}).flat()).toEqual([
      { __typename: 'Title', imdbId: 'tt0078346' },
      ...services.map((s: { id: string }) => ({
        __typename: 'ServiceHealth',
        id: s.id,
      })),
    ]);
  });

  it("resolves the other subgraph's references through this one's loaders: one OMDb request per distinct uncached title, one $batch for the services", async () => {
    // One of the four titles is in the shared cache already: it costs no request.
    await gw.query('{ title(imdbId: "tt0078346") { title } }');
    gw.clearUpstreamRequests();
    const r = await viaHive(`{
      recentReviews { rating title { title year } }
      watchedServices { id service status }
    }`);
    expect(r.data.recentReviews.map((review: { title: { title: string } }) => review.title.title)).toEqual([
      'Superman',
      'The Matrix',
      'Superman',
      'The Dark Knight',
    ]);
    expect(r.data.recentReviews.map((review: { rating: number }) => review.rating)).toEqual(
      REVIEWS.map((review) => review.rating),
    );
    const watched = r.data.watchedServices as Array<{
      id: string;
      service: string;
    } | null>;
    expect(watched.map((s) => s?.id ?? null)).toEqual(WATCHED.map((id) => (id === 'NoSuchService' ? null : id)));
    expect(watched[0]!.service).toBe('Exchange Online');

    expect(omdbQueries(gw.upstreamRequests()).sort()).toEqual(['i=tt0133093', 'i=tt0468569']);
    const calls = gw.upstreamRequests('graph');
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /graph/v1.0/$batch']);
    expect(batchItems(calls[0])).toEqual(
      WATCHED.map((id) => `GET /admin/serviceAnnouncement/healthOverviews/${id}?$select=id,service,status`),
    );
  });

  it('streams chatCompletionStream to a graphql-ws client through Hive Gateway, every token in order', async () => {
    const { id, model } = PROVIDERS[0];
    const client = wsClient(hiveUrl.replace('http', 'ws'));
    const input = {
      provider: id,
      model,
      messages: [user('What does a GraphQL gateway do?')],
    };
    const { results, error } = await collect<{ chatCompletionStream: Chunk }>(client, STREAM, { input });
    await client.dispose();
    expect(error).toBeUndefined();
    const chunks = results.map((r) => r.data!.chatCompletionStream);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.at(-1)!.finishReason).toBe('STOP');
    expect(chunks.at(-1)!.usage!.completionTokens).toBeGreaterThan(0);

    // Hive Gateway reached this subgraph over graphql-ws, not over HTTP.
    const subscriptions = () => gw.logs.json().filter((l) => l.msg === 'operation' && l.type === 'subscription');
    expect(await eventually(() => subscriptions().length === 1, 5_000)).toBe(true);
    expect(subscriptions()[0]).toMatchObject({
      transport: 'ws',
      outcome: 'ok',
    });

    // The same request straight to this gateway gives the same tokens in the same order (the sandbox is deterministic).
    const direct = wsClient(gw.gateway.wsUrl);
    const straight = await collect<{ chatCompletionStream: Chunk }>(direct, STREAM, { input });
    await direct.dispose();
    const text = (list: Array<{ data?: { chatCompletionStream: Chunk } | null }>) =>
      list.map((r) => r.data!.chatCompletionStream.delta.content ?? '').join('');
    expect(text(results)).toBe(text(straight.results));
    expect(text(results).length).toBeGreaterThan(10);
    expect(gw.upstreamRequests(id).map((r) => r.aborted)).toEqual([false, false]);
  }, 60_000);

  it('aborts the upstream stream when the client unsubscribes through Hive Gateway', async () => {
    await fetch(`${gw.sandbox.origin}/_sandbox/config`, {
      method: 'POST',
      body: JSON.stringify({ chatTokenDelayMs: 50 }),
    });
    try {
      const { id, model } = PROVIDERS[2];
      const client = wsClient(hiveUrl.replace('http', 'ws'));
      const received: Chunk[] = [];
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('fewer than 3 chunks within 20 s')), 20_000);
        const stop = client.subscribe<{ chatCompletionStream: Chunk }>(
          {
            query: STREAM,
            variables: {
              input: {
                provider: id,
                model,
                messages: [user('Talk at length about federation.')],
              },
            },
          },
          {
            next: (r) => {
              received.push(r.data!.chatCompletionStream);
              if (received.length === 3) {
                clearTimeout(timer);
                stop();
                resolve();
              }
            },
            error: reject,
            complete: () => reject(new Error('the stream completed before the client left')),
          },
        );
      });
      expect(await eventually(() => gw.upstreamRequests(id)[0]?.aborted === true, 10_000)).toBe(true);
      await client.dispose();
      const [request] = gw.upstreamRequests(id);
      expect(request.aborted).toBe(true);
      expect(gw.upstreamRequests(id)).toHaveLength(1);
    } finally {
      await fetch(`${gw.sandbox.origin}/_sandbox/config`, {
        method: 'POST',
        body: JSON.stringify({ chatTokenDelayMs: 0 }),
      });
    }
  }, 60_000);
});
