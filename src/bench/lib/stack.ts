import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, listeningPort, root, spawnProc, waitReady, type Proc } from './proc.js';
import { runtimeNode } from './runtimes.js';
import { sandboxTokenRequest } from '../operations.js';

/**
 * The V8 flags `npm start` (and the Dockerfile's CMD) run the gateway with, read from package.json so that the
 * benchmark measures the process as deployed. They bound memory (bench/PROFILE.md, "Memory"): a 4 MB young
 * generation instead of up to 32 MB per semi-space (Node 24), scavenged on the main thread alone (a scavenge of it
 * copies ≈ 90 KB, less than waking the GC's helper threads costs), WebAssembly (undici's llhttp) compiled by Liftoff
 * only, since TurboFan's tier-up of it during the first burst leaves its memory resident (1,000-stream peak 150–153 MB
 * against 139–147), and an old generation that grows by 20 % per GC.
 */
export function gatewayNodeFlags(): string[] {
  // For trying other flags without editing package.json: BENCH_GATEWAY_NODE_FLAGS="--max-semi-space-size=8 …".
  const override = process.env.BENCH_GATEWAY_NODE_FLAGS;
  if (override !== undefined) return override.split(' ').filter(Boolean);
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts
    .start;
  const command = /node ((?:--\S+ )*)dist\/(?:bundle\/gateway|main)\.js/.exec(start);
  if (!command) throw new Error(`package.json "start" does not run node … dist/bundle/gateway.js: ${start}`);
  return command[1].split(' ').filter(Boolean);
}

/**
 * What the benchmark starts in `dir`: the bundle `npm start` runs (dist/bundle/gateway.js, what ships), or, for a
 * checkout built before the bundle existed, dist/main.js. `modules` asks for dist/main.js itself: a CPU profile
 * grouped by source file (bench:profile) needs the module files' URLs. `BENCH_GATEWAY_ENTRY` overrides both.
 */
export function gatewayEntry(dir: string, modules = false): string {
  const override = process.env.BENCH_GATEWAY_ENTRY;
  if (override) return override;
  return !modules && existsSync(join(dir, 'dist/bundle/gateway.js')) ? 'dist/bundle/gateway.js' : 'dist/main.js';
}

/** The sandbox as its own process, reached only over loopback HTTP. */
export interface SandboxProc {
  proc: Proc;
  origin: string;
  /** GET/DELETE/POST on the control API. */
  control(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<unknown>;
}

export interface RecordedRequest {
  upstream: string;
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  at: string;
  aborted: boolean;
  status: number | null;
}

/** Milliseconds between the sandbox's chat tokens in every scenario that does not set its own. */
export const BENCH_TOKEN_DELAY_MS = 2;

export async function startSandboxProc(): Promise<SandboxProc> {
  // Started at the benchmark's token pace, not the sandbox's default (a person's reading pace, 40 ms): every scenario
  // resets the sandbox first, and a reset restores the settings it started with. Set by a config call alone, the pace
  // went back to 40 ms at each reset, and the streaming scenario ran its streams 20 times slower than it says.
  // Port 0, read back from the kernel: --tiny starts two sandboxes at once, and a port found free beforehand could go
  // to both.
  const proc = spawnProc('sandbox', runtimeNode(), ['dist/sandbox/main.js'], {
    SANDBOX_PORT: '0',
    SANDBOX_TOKEN_DELAY_MS: String(BENCH_TOKEN_DELAY_MS),
  });
  const origin = `http://127.0.0.1:${await listeningPort(proc)}`;
  await waitReady(proc, `${origin}/_sandbox/config`);
  const control = async (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => {
    const res = await fetch(`${origin}/_sandbox/${path}`, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      // oxlint-disable-next-line unicorn/no-invalid-fetch-options -- GET calls pass no body
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as unknown;
    if (!res.ok) throw new Error(`sandbox ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  // Benchmarks send far more than a day's real OMDb quota; chat limits are opened per scenario.
  await control('POST', 'config', { omdbDailyQuota: 1_000_000_000 });
  return { proc, origin, control };
}

/**
 * A Graph application token from the sandbox's identity platform by client credentials, as the gateway, the floor and
 * naive Apollo get theirs: the direct baseline presents it too, so the sandbox checks the same token for all of them
 * (its `Bearer sandbox` shortcut is a cheaper check no real Graph offers).
 */
export async function sandboxGraphToken(origin: string): Promise<string> {
  const login = sandboxTokenRequest(origin);
  const res = await fetch(login.url, { method: 'POST', headers: login.headers, body: login.body });
  const token = (await res.json()) as { access_token?: string };
  if (!res.ok || !token.access_token) throw new Error(`sandbox login: ${res.status}`);
  return token.access_token;
}

/** Environment that points the gateway (or any client of it) at an external sandbox, every upstream "live". */
export function upstreamEnv(sandboxOrigin: string): Record<string, string> {
  return {
    GRAPH_BASE_URL: `${sandboxOrigin}/graph`,
    GRAPH_TENANT_ID: 'sandbox',
    GRAPH_CLIENT_ID: 'sandbox',
    GRAPH_CLIENT_SECRET: 'sandbox',
    GRAPH_AUTHORITY_URL: `${sandboxOrigin}/login`,
    OMDB_BASE_URL: `${sandboxOrigin}/omdb`,
    OMDB_API_KEY: 'sandbox',
    GLM_BASE_URL: `${sandboxOrigin}/glm/api/paas/v4`,
    GLM_API_KEY: 'sandbox',
    ARK_BASE_URL: `${sandboxOrigin}/ark/api/v3`,
    ARK_API_KEY: 'sandbox',
    DEEPSEEK_BASE_URL: `${sandboxOrigin}/deepseek/v1`,
    DEEPSEEK_API_KEY: 'sandbox',
    MOONSHOT_BASE_URL: `${sandboxOrigin}/moonshot/v1`,
    MOONSHOT_API_KEY: 'sandbox',
  };
}

export interface GraphQLProc {
  proc: Proc;
  /** `http://127.0.0.1:port/graphql` */
  url: string;
  wsUrl: string;
}

/**
 * `node <gatewayNodeFlags> <gatewayEntry>` (the bundle, as `npm start` runs it) against the sandbox, response cache off. Logs at warn: per-operation info lines would be measured too, and a
 * deployment ships them to a collector rather than a pipe nobody reads.
 */
export async function startGatewayProc(
  sandboxOrigin: string,
  extraEnv: Record<string, string> = {},
  nodeArgs: string[] = [],
  cwd = root,
  entry = gatewayEntry(cwd),
): Promise<GraphQLProc> {
  const port = await freePort();
  const proc = spawnProc(
    'gateway',
    runtimeNode(),
    [...gatewayNodeFlags(), ...nodeArgs, entry],
    {
      ...upstreamEnv(sandboxOrigin),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      OMDB_DAILY_QUOTA: '1000000000',
      GLM_RPM: '1000000',
      // The load generator stands for many clients from one address: the per-client fair-share caps would refuse it.
      CLIENT_MAX_CONNECTIONS: '1000000',
      CLIENT_MAX_SUBSCRIPTIONS: '1000000',
      CLIENT_MAX_CHAT_STREAMS: '1000000',
      // Scenarios repeat one operation to measure what executing it costs; the response cache would answer instead.
      RESPONSE_CACHE_MAX_BYTES: '0',
      ...extraEnv,
    },
    cwd,
  );
  await waitReady(proc, `http://127.0.0.1:${port}/readyz`);
  return { proc, url: `http://127.0.0.1:${port}/graphql`, wsUrl: `ws://127.0.0.1:${port}/graphql` };
}

/** The naive Apollo baseline, `node dist/bench/naive/main.js`, against the same sandbox. */
export async function startNaiveProc(sandboxOrigin: string): Promise<GraphQLProc> {
  const port = await freePort();
  const proc = spawnProc('naive', runtimeNode(), ['dist/bench/naive/main.js'], {
    SANDBOX_ORIGIN: sandboxOrigin,
    PORT: String(port),
  });
  await waitReady(proc, `http://127.0.0.1:${port}/healthz`);
  return { proc, url: `http://127.0.0.1:${port}/graphql`, wsUrl: `ws://127.0.0.1:${port}/graphql` };
}

export interface FloorProc {
  proc: Proc;
  /** `http://127.0.0.1:port` */
  origin: string;
}

/** The floor, `node dist/bench/floor/main.js`: a bare node:http + undici proxy doing the same upstream work. */
export async function startFloorProc(sandboxOrigin: string): Promise<FloorProc> {
  const port = await freePort();
  const proc = spawnProc('floor', runtimeNode(), ['dist/bench/floor/main.js'], {
    SANDBOX_ORIGIN: sandboxOrigin,
    PORT: String(port),
  });
  await waitReady(proc, `http://127.0.0.1:${port}/healthz`);
  return { proc, origin: `http://127.0.0.1:${port}` };
}

/** POSTs one GraphQL operation and returns the parsed body; throws on transport errors or GraphQL errors. */
export async function gql(
  url: string,
  query: string,
  variables?: Record<string, unknown>,
  allowErrors = false,
): Promise<{ data?: unknown; errors?: unknown[]; extensions?: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: unknown; errors?: unknown[]; extensions?: Record<string, unknown> };
  if (!allowErrors && (body.errors?.length || !res.ok))
    throw new Error(`${url}: ${res.status} ${JSON.stringify(body.errors ?? body).slice(0, 600)}`);
  return body;
}
