/**
 * A supergraph on loopback for the federation suite: instances of this gateway sharing one sandbox, company subgraphs,
 * both composers, and three routers in-process (Hive Gateway with its JavaScript query planner, Hive Gateway with
 * Hive Router's Rust query planner, Apollo Gateway).
 */
import { composeServices as composeWithApollo } from '@apollo/composition';
import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import { startStandaloneServer } from '@apollo/server/standalone';
import { createGatewayRuntime } from '@graphql-hive/gateway';
import { unifiedGraphHandler } from '@graphql-hive/router-runtime';
import { composeServices as composeWithGuild, composeSchemaContract } from '@theguild/federation-composition';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGateway, type Gateway } from '../../src/app/gateway.js';
import { loadConfig } from '../../src/config/env.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { LogCapture } from '../support/gateway.js';
import { guildSupergraph, servedSubgraph, type Subgraph } from './composition.js';

/** This subgraph's entities as served beside the company subgraphs (SUBGRAPH_TYPE_PREFIX=Ops). */
export const OURS = { Title: 'OpsTitle', ServiceHealth: 'OpsServiceHealth' };
/** An instance beside the companies, without caches between runs (OMDb, responses), so each run's upstream requests can be counted. */
export const COUNTED_ENV = { SUBGRAPH_TYPE_PREFIX: 'Ops', OMDB_CACHE_MAX: '0', RESPONSE_CACHE_MAX_BYTES: '0' };
/** Data upstreams: the identity platform's token request is made once per instance and is left out. */
export const DATA_UPSTREAMS: ReadonlySet<string> = new Set(['graph', 'omdb', 'glm', 'ark', 'deepseek', 'moonshot']);

export type { Subgraph } from './composition.js';

/** One instance of this gateway with its own environment, on the shared sandbox. */
export interface Instance {
  name: string;
  gateway: Gateway;
  logs: LogCapture;
  /** Operations this instance ran (what a router sent it). */
  operations(): Array<Record<string, unknown>>;
}

export async function startInstance(name: string, env: Record<string, string>, sandbox: Sandbox): Promise<Instance> {
  const logs = new LogCapture();
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env });
  const gateway = await startGateway({ config, sandbox, logDestination: logs });
  return { name, gateway, logs, operations: () => logs.json().filter((l) => l.msg === 'operation') };
}

/** The subgraph a router composes from an instance: its SDL as the instance serves it from `_service { sdl }`. */
export function subgraphOf(instance: Instance): Promise<Subgraph> {
  return servedSubgraph(instance.name, instance.gateway.url);
}

export type Composer = 'apollo' | 'guild';

/**
 * One composition: its errors as `CODE` strings (both composers report the same codes for the fixtures here), and the
 * supergraph SDL when there are none. A test that checks both composes once (Apollo's composer is ~0.3 s of CPU).
 */
export function composition(
  composer: Composer,
  subgraphs: readonly Subgraph[],
): { errors: string[]; supergraphSdl?: string } {
  const result = composer === 'apollo' ? composeWithApollo([...subgraphs]) : composeWithGuild([...subgraphs]);
  const errors = (result.errors ?? []).map((e) => String(e.extensions?.code ?? e.message));
  return { errors, supergraphSdl: errors.length ? undefined : result.supergraphSdl };
}

/** Composition errors as `CODE` strings, or none. */
export function compositionErrors(composer: Composer, subgraphs: readonly Subgraph[]): string[] {
  return composition(composer, subgraphs).errors;
}

export function supergraph(composer: Composer, subgraphs: readonly Subgraph[]): string {
  if (composer === 'guild') return guildSupergraph(subgraphs);
  const result = composeWithApollo([...subgraphs]);
  if (result.errors?.length)
    throw new Error(`apollo composition failed: ${result.errors.map((e) => e.message).join('\n')}`);
  return result.supergraphSdl!;
}

/** A contract variant (the Guild's composer): what carries an excluded tag is left out, and what nothing reaches then. */
export function contractSupergraph(
  subgraphs: readonly Subgraph[],
  exclude: string[],
): { supergraphSdl: string; publicSdl: string } {
  const result = composeSchemaContract([...subgraphs], { include: new Set(), exclude: new Set(exclude) }, true);
  if (result.errors?.length)
    throw new Error(`contract composition failed: ${result.errors.map((e) => e.message).join('\n')}`);
  return { supergraphSdl: result.supergraphSdl!, publicSdl: result.publicSdl! };
}

export interface Router {
  name: string;
  url: string;
  stop(): Promise<void>;
}

export type Planner = 'hive-js' | 'hive-rust';

/** Hive Gateway's demand control (its estimate from the supergraph's `@cost` and `@listSize`). */
export type DemandControlOptions = NonNullable<Parameters<typeof createGatewayRuntime>[0]['demandControl']>;
/** How Hive Gateway reaches the subgraphs: its subscriptions transport, and a key of TRUSTED_ROUTER_KEYS it presents. */
export interface HiveOptions {
  deferStream?: boolean;
  /**
   * `ws`: graphql-ws on `/graphql` (what docs/federation.md tells a router operator to set); `http`: Hive's default,
   * GraphQL over SSE by `GET ?query=…`. @default 'ws'
   */
  subscriptions?: 'ws' | 'http';
  /** Sent as `x-api-key` on every request and WebSocket (upgrade and `connectionParams`). */
  routerKey?: string;
  demandControl?: DemandControlOptions;
}

/**
 * Hive Gateway in-process over `supergraphSdl`; subscriptions reach the subgraphs as `options` say (graphql-ws by
 * default), clients subscribe over SSE.
 */
export async function startHiveGateway(
  name: string,
  supergraphSdl: string,
  planner: Planner = 'hive-js',
  options: HiveOptions = {},
): Promise<Router> {
  const key = options.routerKey;
  const headers: Array<[string, string]> = key ? [['x-api-key', key]] : [];
  const ws = {
    kind: 'ws',
    location: '/graphql',
    headers,
    ...(key ? { options: { connectionParams: { 'x-api-key': key } } } : {}),
  };
  const runtime = createGatewayRuntime({
    supergraph: supergraphSdl,
    logging: false,
    deferStream: options.deferStream,
    demandControl: options.demandControl,
    ...(planner === 'hive-rust' ? { unifiedGraphHandler } : {}),
    transportEntries: {
      '*.http': { headers, options: options.subscriptions === 'http' ? {} : { subscriptions: ws } },
    },
  });
  // The runtime is a server adapter: as a request listener it answers (and handles its own errors) itself.
  // oxlint-disable-next-line typescript/no-misused-promises
  const server = createServer(runtime);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    name,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await runtime.dispose();
    },
  };
}

/** Apollo Gateway (Apollo Server 5 with `gateway`) over `supergraphSdl`; it serves queries and mutations. */
export async function startApolloGateway(name: string, supergraphSdl: string): Promise<Router> {
  const server = new ApolloServer({
    gateway: new ApolloGateway({ supergraphSdl }),
    plugins: [ApolloServerPluginInlineTraceDisabled()],
  });
  const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
  return { name, url, stop: () => server.stop() };
}

export interface GraphQLAnswer {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

export async function post(url: string, query: string, variables?: Record<string, unknown>): Promise<GraphQLAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as GraphQLAnswer;
}

/** A subscription over GraphQL over SSE (Hive Gateway's default for clients): every `next` payload until `complete`. */
export async function subscribeOverSse(
  url: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<GraphQLAnswer[]> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(20_000),
  });
  if (!res.ok || !res.body) throw new Error(`subscription refused: ${res.status} ${await res.text()}`);
  const events: GraphQLAnswer[] = [];
  for await (const { event, data } of sseEvents(res.body)) {
    if (event === 'complete') return events;
    if (data) events.push(JSON.parse(data) as GraphQLAnswer);
  }
  return events;
}

/** The events of a GraphQL over SSE response body as they arrive: each one's `event` name and its `data` lines joined. */
export async function* sseEvents(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<{ event: string | undefined; data: string }> {
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      yield {
        event: /^event: ?(.*)$/m.exec(block)?.[1],
        data: block
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n'),
      };
    }
  }
}
