import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { interleaved } from '../lib/load.js';
import { spawnHiveGateway } from '../lib/hiveGateway.js';
import { freePort, root, spawnProc, waitReady } from '../lib/proc.js';
import type { Results, Sizes } from '../lib/results.js';
import { runtimeNode, runtimePath } from '../lib/runtimes.js';
import { sandboxGraphToken, type GraphQLProc, type SandboxProc } from '../lib/stack.js';
import { requestOperations, SERVICE_IDS, singleHealthQuery, singleTitleQuery, TITLE_IDS } from '../operations.js';
import { sandboxOpenApi } from '../peer/openapi.js';
import { medianCost } from './requests.js';
import { forgetRecord, graphqlTarget } from './throughput.js';

/** How much faster (req/s) Hive Gateway with this gateway as its subgraph must be than Hive Gateway + Mesh. */
export const PEER_FACTOR = 1.5;

export const SCENARIO_PEER = '3. Peer: Hive Gateway + GraphQL Mesh (OpenAPI)';
const PEER = 'Hive Gateway 2.15 + Mesh OpenAPI';

/** The same work in the peer's schema, which mirrors the REST shapes (raw OMDb/Graph field names and values). */
const peerQueries: Record<string, string> = {
  [requestOperations[0].name]: `{ healthOverviews(_DOLLAR_top: 10) { value { id service status
    issues(top: 5) { value { id title status classification startDateTime } } } } }`,
  [requestOperations[1].name]: `{
${Array.from({ length: 20 }, (_, i) => `  h${i}: healthOverview(id: "${SERVICE_IDS[i % 10]}") { id ${i < 10 ? 'service' : 'status'} }`).join('\n')}
}`,
  [requestOperations[2].name]: `{
${Array.from({ length: 10 }, (_, i) => `  t${i}: title(i: "${TITLE_IDS[i % 3]}") { imdbID Title ${i % 2 ? 'Year' : 'Runtime'} }`).join('\n')}
}`,
  [requestOperations[3].name]:
    `{ searchTitles(s: "batman") { totalResults Search { imdbID Title Year details { Plot imdbRating } } } }`,
};
const peerSingleHealth = `{ healthOverview(id: "Exchange") { id service status } }`;
const peerSingleTitle = `{ title(i: "tt0133093") { imdbID Title Year Runtime Genre imdbRating } }`;

/**
 * Addresses the supergraphs are composed with, replaced by each pass's own: composition reads no network and its
 * output depends on the address only where it is written out, so the two compositions (mesh-compose and
 * dist/build/supergraph.js, 10–35 s of wall time at load 8–16) run once per benchmark run instead of once per runtime.
 */
const SANDBOX_PLACEHOLDER = 'http://sandbox.bench.invalid';
/**
 * The Graph token the Mesh peer presents (src/bench/peer/mesh.config.ts), replaced by one the pass's sandbox issued by
 * client credentials, as the gateway and every baseline present: the sandbox's `Bearer sandbox` shortcut is a cheaper
 * check no real Graph offers, which favoured the peer on every Graph lookup.
 */
const PEER_TOKEN_PLACEHOLDER = 'peer-graph-token.bench.invalid';
const GATEWAY_PLACEHOLDER = 'http://gateway.bench.invalid/graphql';

interface Composed {
  /** The Mesh peer's supergraph over the sandbox's OpenAPI description, for SANDBOX_PLACEHOLDER. */
  peer: string;
  /** This gateway's subgraph alone as a supergraph, routed to GATEWAY_PLACEHOLDER. */
  hive: string;
}

let composed: Promise<Composed> | undefined;

/**
 * mesh-compose's output is kept under dist/ by a hash of everything it reads (the OpenAPI description, the compiled
 * mesh config, package-lock.json for the versions of Mesh), so the benchmark's smoke test and repeated runs skip its
 * ≈ 4 s of CPU. This gateway's own supergraph is composed every run: it depends on the environment's configuration.
 */
const PEER_CACHE = join(root, 'dist/bench/peer/composed');

async function composePeer(dir: string): Promise<string> {
  const config = join(root, 'dist/bench/peer/mesh.config.js');
  const specText = JSON.stringify(sandboxOpenApi(SANDBOX_PLACEHOLDER), null, 2);
  const key = createHash('sha256')
    .update(specText)
    .update(readFileSync(config))
    .update(readFileSync(join(root, 'package-lock.json')))
    .digest('hex')
    .slice(0, 16);
  const cached = join(PEER_CACHE, `${key}.graphql`);
  if (existsSync(cached)) return readFileSync(cached, 'utf8');
  const spec = join(dir, 'sandbox.openapi.json');
  writeFileSync(spec, specText);
  const out = join(dir, 'peer.graphql');
  await promisify(execFile)(join(root, 'node_modules/.bin/mesh-compose'), ['-c', config, '-o', out], {
    cwd: dir,
    env: { ...process.env, PEER_OPENAPI_FILE: spec },
    timeout: 120_000,
  });
  const text = readFileSync(out, 'utf8');
  mkdirSync(PEER_CACHE, { recursive: true });
  // Written whole, then renamed: a run beside this one reads either no file or all of it.
  writeFileSync(`${cached}.${process.pid}`, text);
  renameSync(`${cached}.${process.pid}`, cached);
  return text;
}

/** Both supergraphs, composed at the first call of the run (on the machine's Node: composition is not measured). */
function composeOnce(): Promise<Composed> {
  composed ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-compose-'));
    try {
      const hiveFile = join(dir, 'hive.graphql');
      const [peer] = await Promise.all([
        composePeer(dir),
        promisify(execFile)(
          process.execPath,
          [join(root, 'dist/build/supergraph.js'), '--out', hiveFile, '--url', GATEWAY_PLACEHOLDER],
          { cwd: root, timeout: 120_000 },
        ),
      ]);
      const texts = { peer, hive: readFileSync(hiveFile, 'utf8') };
      for (const [name, placeholder] of [
        ['peer', SANDBOX_PLACEHOLDER],
        ['hive', GATEWAY_PLACEHOLDER],
      ] as const)
        if (!texts[name].includes(placeholder)) throw new Error(`the ${name} supergraph does not name ${placeholder}`);
      if (!texts.peer.includes(PEER_TOKEN_PLACEHOLDER))
        throw new Error(`the peer supergraph does not carry ${PEER_TOKEN_PLACEHOLDER} as its Graph token`);
      return texts;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  return composed;
}

/** `hive-gateway supergraph` over `text` with each `from` replaced by its `to` (NODE_ENV=production, LOG_LEVEL=warn). */
async function serveSupergraph(name: string, text: string, replace: Array<[from: string, to: string]>) {
  const dir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const supergraph = join(dir, 'supergraph.graphql');
  writeFileSync(
    supergraph,
    replace.reduce((out, [from, to]) => out.replaceAll(from, to), text),
  );
  const { proc, url } = await spawnHiveGateway(name, dir, {
    supergraph,
    env: { NODE_ENV: 'production', PATH: runtimePath() },
  }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    url,
    pid: proc.pid,
    async stop() {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const HIVE_OVER_GATEWAY = 'Hive Gateway 2.15 with this gateway as its only subgraph';
const HIVE_OVER_REPLAY = "Hive Gateway 2.15 over a replay of this gateway's answers (a subgraph that costs nothing)";

type Served = Awaited<ReturnType<typeof serveSupergraph>>;

/** The Mesh peer, Hive Gateway over this gateway, and Hive Gateway over a replay of this gateway's answers. */
export type Peers = [peer: Served, hive: Served, ceiling: Served & { pids: number[] }];

/**
 * `node dist/bench/peer/replay.js` in front of `gatewayUrl`: each request body answered from memory with this gateway's
 * first answer to it (src/bench/peer/replay.ts), in its own process so that its little CPU is told apart.
 */
async function startReplay(gatewayUrl: string) {
  const port = await freePort();
  const proc = spawnProc('replay', runtimeNode(), ['dist/bench/peer/replay.js'], {
    UPSTREAM_URL: gatewayUrl,
    PORT: String(port),
  });
  await waitReady(proc, `http://127.0.0.1:${port}/healthz`);
  return { proc, url: `http://127.0.0.1:${port}/graphql` };
}

/**
 * The Mesh peer for this pass's sandbox, and this gateway as a subgraph behind Hive Gateway as a federation user runs
 * it: the supergraph of this subgraph alone (`dist/build/supergraph.js`, what `npm run supergraph` runs). Both served
 * by `hive-gateway supergraph` on the pass's runtime.
 */
export async function startPeers(sandboxOrigin: string, gatewayUrl: string): Promise<Peers> {
  const [{ peer, hive }, token, replay] = await Promise.all([
    composeOnce(),
    sandboxGraphToken(sandboxOrigin),
    startReplay(gatewayUrl),
  ]);
  const [overPeer, overGateway, overReplay] = await Promise.all([
    serveSupergraph('peer', peer, [
      [SANDBOX_PLACEHOLDER, sandboxOrigin],
      [PEER_TOKEN_PLACEHOLDER, token],
    ]),
    serveSupergraph('hive-over-gateway', hive, [[GATEWAY_PLACEHOLDER, gatewayUrl]]),
    serveSupergraph('hive-over-replay', hive, [[GATEWAY_PLACEHOLDER, replay.url]]),
  ]);
  const ceiling = {
    ...overReplay,
    /** Hive Gateway's pid; the replay's CPU is charged beside it. */
    pids: [overReplay.pid, replay.proc.pid],
    async stop() {
      await Promise.all([overReplay.stop(), replay.proc.stop()]);
    },
  };
  return [overPeer, overGateway, ceiling];
}

export async function runPeer(
  results: Results,
  sb: SandboxProc,
  gateway: GraphQLProc,
  sizes: Sizes,
  log: (s: string) => void,
  started?: Peers | Error,
): Promise<void> {
  if (started instanceof Error) throw started;
  const gatewayUrl = gateway.url;
  // `started`: the coordinator started them beside the pass's other processes, where their start-up (≈ 3 s of CPU
  // each) overlaps the others'; they sat idle since.
  const [peer, hive, ceiling] = started ?? (await startPeers(sb.origin, gatewayUrl));
  log('peers composed and listening');
  try {
    for (const op of requestOperations) {
      const ours = await medianCost(sb, gatewayUrl, op.query, sizes.rounds);
      const theirs = await medianCost(sb, peer.url, peerQueries[op.name], sizes.rounds);
      const name = `${SCENARIO_PEER}: ${op.name}`;
      results.add({
        name,
        metric: 'upstream HTTP requests',
        unit: 'requests',
        gateway: ours.requests,
        baseline: theirs.requests,
        baselineName: PEER,
      });
      results.add({
        name,
        metric: 'upstream bytes (request URL+body, response body)',
        unit: 'bytes',
        gateway: ours.bytes,
        baseline: theirs.bytes,
        baselineName: PEER,
      });
    }
    const cases = [
      { label: 'single healthOverview', ours: singleHealthQuery, theirs: peerSingleHealth },
      { label: 'single title (cache off)', ours: singleTitleQuery, theirs: peerSingleTitle },
      {
        label: `${requestOperations[0].name} (cache off)`,
        ours: requestOperations[0].query,
        theirs: peerQueries[requestOperations[0].name],
      },
    ];
    for (const c of cases) {
      const f = await interleaved(
        {
          gateway: graphqlTarget(gatewayUrl, c.ours, [gateway.proc.pid, sb.proc.pid]),
          peer: graphqlTarget(peer.url, c.theirs, [peer.pid, sb.proc.pid]),
          // The same query through Hive Gateway; its CPU includes this gateway's, which serves it as the subgraph.
          hive: graphqlTarget(hive.url, c.ours, [hive.pid, gateway.proc.pid, sb.proc.pid]),
          // The same again, through Hive Gateway over answers replayed from memory: what Hive costs by itself.
          ceiling: graphqlTarget(ceiling.url, c.ours, ceiling.pids),
        },
        sizes.rounds,
        sizes.loadSeconds,
        sizes.connections,
        forgetRecord(sb),
        sizes.warmUp,
      );
      await sb.control('DELETE', 'requests');
      const name = `${SCENARIO_PEER}: ${c.label}`;
      results.add({
        name,
        metric: 'throughput',
        unit: 'req/s',
        gateway: f.gateway.rps,
        baseline: f.peer.rps,
        baselineName: PEER,
      });
      results.add({
        name,
        metric: 'latency p50',
        unit: 'ms',
        gateway: f.gateway.p50,
        baseline: f.peer.p50,
        baselineName: PEER,
      });
      results.add({
        name,
        metric: 'latency p99',
        unit: 'ms',
        gateway: f.gateway.p99,
        baseline: f.peer.p99,
        baselineName: PEER,
      });
      results.add({
        name,
        metric: 'server CPU per operation (serving process + sandbox)',
        unit: 'µs',
        gateway: f.gateway.cpuUs,
        baseline: f.peer.cpuUs,
        baselineName: PEER,
      });
      const via = `via ${HIVE_OVER_GATEWAY}`;
      // The goal: this gateway behind Hive Gateway beats Hive Gateway + Mesh by at least PEER_FACTOR on every scenario.
      results.add({
        name,
        metric: `throughput ${via}`,
        unit: 'req/s',
        gateway: f.hive.rps,
        baseline: f.peer.rps,
        baselineName: PEER,
        goal: `ratio >= ${PEER_FACTOR}`,
        met: f.hive.rps >= PEER_FACTOR * f.peer.rps,
      });
      results.add({
        name,
        metric: `latency p50 ${via}`,
        unit: 'ms',
        gateway: f.hive.p50,
        baseline: f.peer.p50,
        baselineName: PEER,
      });
      results.add({
        name,
        metric: `server CPU per operation ${via} (Hive + this gateway + sandbox)`,
        unit: 'µs',
        gateway: f.hive.cpuUs,
        baseline: f.peer.cpuUs,
        baselineName: PEER,
      });
      results.add({
        name,
        metric: `throughput via ${HIVE_OVER_REPLAY}: the ceiling of the row above`,
        unit: 'req/s',
        gateway: f.ceiling.rps,
        baseline: f.peer.rps,
        baselineName: PEER,
      });
      results.add({
        name,
        metric: `server CPU per operation via ${HIVE_OVER_REPLAY} (Hive + the replay)`,
        unit: 'µs',
        gateway: f.ceiling.cpuUs,
        baseline: f.peer.cpuUs,
        baselineName: PEER,
      });
      // Hive Gateway is one thread: its own CPU per operation bounds its rate, whatever the subgraph costs.
      const peerProcess = f.peer.cpuUsByPid[0];
      for (const [over, figures] of [
        ['this gateway', f.hive],
        ["the replay of this gateway's answers", f.ceiling],
      ] as const)
        results.add({
          name,
          metric: `Hive Gateway's own CPU per operation (its process alone), over ${over}`,
          unit: 'µs',
          gateway: figures.cpuUsByPid[0],
          baseline: peerProcess,
          baselineName: `${PEER} (its process alone)`,
        });
      results.add({
        name,
        metric: 'throughput: through Hive Gateway vs direct',
        unit: 'req/s',
        gateway: f.hive.rps,
        baseline: f.gateway.rps,
        baselineName: 'this gateway, direct',
      });
      if (f.gateway.failures || f.peer.failures || f.hive.failures || f.ceiling.failures) {
        results.note(
          SCENARIO_PEER,
          `${c.label}: failures during load: gateway ${f.gateway.failures}, peer ${f.peer.failures}, via Hive ${f.hive.failures}, via Hive over the replay ${f.ceiling.failures}.`,
        );
      }
    }
  } finally {
    await Promise.all([peer.stop(), hive.stop(), ceiling.stop()]);
  }
  results.note(
    SCENARIO_PEER,
    `The peer is \`mesh-compose\` (@graphql-mesh/compose-cli) over an OpenAPI 3 description of the sandbox's Graph service-health and OMDb endpoints (src/bench/peer/openapi.ts), with a service's issues and a search item's details joined by \`@resolveTo\` (src/bench/peer/mesh.config.ts), served by \`hive-gateway supergraph\` with NODE_ENV=production and LOG_LEVEL=warn. Same sandbox, same gateway process (cache off) as scenarios 1–2.`,
  );
  results.note(
    SCENARIO_PEER,
    `"via ${HIVE_OVER_GATEWAY}": the supergraph composed from this gateway's subgraph schema alone by dist/build/supergraph.js (\`npm run supergraph\`), served by \`hive-gateway supergraph\` (NODE_ENV=production, LOG_LEVEL=warn) in front of the same gateway process; the same query text as the gateway's rows, interleaved with them and the Mesh peer in each round. Hive Gateway deduplicates identical in-flight subgraph requests by default, so under 10 connections sending one query text it may execute fewer operations on this gateway than it answers (its rate can then exceed the gateway's direct one).`,
  );
  results.note(
    SCENARIO_PEER,
    `"via ${HIVE_OVER_REPLAY}": the same supergraph and query text, with Hive Gateway's subgraph URL pointed at src/bench/peer/replay.ts, a bare node:http process that answers each request body with the status, content type and body this gateway answered it with the first time (forwarded once, then from memory). Hive Gateway does all of its own work and fetches an answer of the same bytes from a subgraph that costs nothing, so its rate is about the most any subgraph can reach behind it on this machine. Hive Gateway runs on one thread, so its own CPU per operation bounds its rate whatever the subgraph costs: "Hive Gateway's own CPU per operation" over this gateway and over the replay, against the Mesh peer's process (Hive Gateway and Mesh in one), says how far a subgraph can carry the goal row. Where Hive Gateway alone costs more than 1/${PEER_FACTOR} of the Mesh peer's process (the single lookups), the goal is out of any subgraph's reach. Hive Gateway shares identical subgraph requests in flight, so a subgraph that answers sooner is asked more often: the replay's rate can read below this gateway's.`,
  );
  results.note(
    SCENARIO_PEER,
    'Where the peer does less or different work: its schema is the REST shape (raw field names, PascalCase enum strings, OMDb "N/A" and numbers as strings, no connections or cursors); it sends no `$select`/`$expand` (whole entities, and the nested query is one request per service for issues), no `$batch` for aliased lookups, and no shared cache. It presents a Graph token the sandbox issued by client credentials, as the gateway does. It does not serve the chat subscription, so it has no streaming figures.',
  );
}
