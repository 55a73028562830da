import { z } from 'zod';
import { DEFAULT_LIMITS, LIMIT_VARIABLES, type OperationLimits } from '../server/limits.js';

/**
 * Start-up configuration, parsed once from the environment (README.md lists every variable).
 * An upstream counts as live when any of its variables is set; otherwise the in-process sandbox serves it.
 */
export type UpstreamMode = 'live' | 'sandbox';

export interface GraphConfig {
  mode: UpstreamMode;
  /** Base URL without the version segment, e.g. `https://graph.microsoft.com`. */
  baseUrl: string;
  /** @default 'v1.0' */
  apiVersion: 'v1.0' | 'beta';
  authorityUrl: string;
  tenantId?: string;
  clientId?: string;
  clientSecret?: string;
  /**
   * GRAPH_POLL_INTERVAL_MS: how often live service-health subscriptions poll Graph (once per interval for all
   * subscribers). At least {@link MIN_LIVE_POLL_INTERVAL_MS} against Microsoft Graph; lower only against the sandbox.
   * @default 60000
   */
  pollIntervalMs: number;
}

/** Polling Microsoft Graph more often than this gains little (its data changes in minutes) and invites throttling. */
export const MIN_LIVE_POLL_INTERVAL_MS = 5_000;

export interface OmdbConfig {
  mode: UpstreamMode;
  baseUrl: string;
  apiKey?: string;
  /** @default 1000 */
  dailyQuota: number;
  /** Shared lookup cache time to live. @default 3600000 (1 h) */
  cacheTtlMs: number;
  /** Shared lookup cache entries. @default 5000 */
  cacheMax: number;
}

export interface ChatProviderConfig {
  id: string;
  mode: UpstreamMode;
  baseUrl: string;
  apiKey?: string;
  /** Client-side requests per minute; undefined = no limiter. */
  rpm?: number;
  /** Ark: model name → inference endpoint id. */
  endpoints: Record<string, string>;
  /** Extra providers from CHAT_PROVIDERS only: their model names. */
  models?: string[];
  /** `<ID>_DAILY_TOKEN_BUDGET`: tokens per UTC day; undefined = no budget. */
  dailyTokenBudget?: number;
  /** `<ID>_CONTEXT_WINDOWS`: model → context window in tokens, for models the gateway has no table for. */
  contextWindows: Record<string, number>;
}

/** One `provider/model` target of a fallback list or a named route. */
export interface ChatTarget {
  provider: string;
  model: string;
}

/** Shared state in Redis (or Valkey); unset, every replica keeps its own (README "Run several replicas"). */
export interface RedisConfig {
  /** REDIS_URL: `redis://[user:password@]host:port/db`, or `rediss://…` for TLS. */
  url: string;
  /** REDIS_KEY_PREFIX: put before every key and channel. @default 'gateway:' */
  keyPrefix: string;
  /** REDIS_COMMAND_TIMEOUT_MS: longest one command may take before the replica falls back. @default 500 */
  commandTimeoutMs: number;
}

export interface GatewayConfig {
  port: number;
  host: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** LOG_FORMAT: `json` lines, or `pretty` for people. @default pretty when stdout is a terminal, else json */
  logFormat?: 'json' | 'pretty';
  /** OTEL_EXPORTER_OTLP_ENDPOINT: OTLP/HTTP base URL traces are exported to; unset, tracing is off. */
  otlpEndpoint?: string;
  production: boolean;
  introspection: boolean;
  /** Milliseconds the server waits for in-flight operations on SIGTERM before closing them. @default 10000 */
  shutdownGraceMs: number;
  graph: GraphConfig;
  omdb: OmdbConfig;
  chat: ChatProviderConfig[];
  /** CHAT_ROUTES: named target lists, used as `provider: "route:<name>"`. */
  chatRoutes: Record<string, ChatTarget[]>;
  /** Longest a chat request waits in the client-side `*_RPM` limiter before UPSTREAM_RATE_LIMITED. @default 2000 */
  chatRateLimitWaitMs: number;
  /**
   * UPSTREAM_TIMEOUT_MS: longest one buffered upstream call (a Graph or OMDb request, a whole chat completion) may
   * take, retries and their waits included, before UPSTREAM_TIMEOUT. Streams are bounded by their idle time instead.
   * @default 30000
   */
  upstreamTimeoutMs: number;
  /**
   * RESPONSE_CACHE_MAX_BYTES: bytes of whole responses the response cache keeps (in Redis with `REDIS_URL`, shared);
   * 0 turns it off. @default 67108864
   */
  responseCacheMaxBytes: number;
  /**
   * CHAT_TIMEOUT_MS: the same bound for a whole (non-streamed) chat completion, which a reasoning model may take
   * minutes to write. @default 300000
   */
  chatTimeoutMs: number;
  /**
   * CHAT_STREAM_IDLE_TIMEOUT_MS: longest a chat stream may stay silent (no byte, keep-alive comments included) while
   * the gateway is reading it, before the subscription ends with UPSTREAM_TIMEOUT. Time a stream spends paused
   * because its subscriber reads slowly does not count. @default 60000
   */
  chatStreamIdleTimeoutMs: number;
  /**
   * UPSTREAM_MAX_RESPONSE_BYTES: largest upstream body the gateway buffers (after decompression), and largest single
   * event of a stream; past it the request is aborted and the field fails with UPSTREAM_ERROR. @default 16777216
   */
  upstreamMaxResponseBytes: number;
  /** Operation limits (GATEWAY_MAX_*), checked before execution. */
  limits: OperationLimits;
  /** GraphQL-over-WebSocket limits. */
  websocket: {
    /** Concurrent operations per connection. @default 50 */
    maxOperations: number;
    /** Largest message accepted. @default 4194304 (4 MiB: chat messages may carry base64 images) */
    maxMessageBytes: number;
    /** Time a client has to send `connection_init`. @default 3000 */
    connectionInitTimeoutMs: number;
    /**
     * WS_MAX_BUFFERED_BYTES: unsent bytes one connection may hold. Above a quarter of it the connection's
     * subscriptions stop reading their upstreams until it drains; a connection still above it when the next message
     * is due is closed with 4413. @default 8388608
     */
    maxBufferedBytes: number;
    /**
     * GATEWAY_WS_KEEP_ALIVE_MS: a ping this often; a connection whose pong is not back one interval later is cut
     * (a client that stopped reading answers no ping either). @default 12000
     */
    keepAliveMs: number;
  };
  /** GATEWAY_API_KEYS: when set, every GraphQL request must carry one of them in `x-api-key`. */
  apiKeys: string[];
  /** CORS_ORIGINS: origins allowed to call from a browser (`*` for any). Empty: no CORS headers. */
  corsOrigins: string[];
  /** PERSISTED_OPERATIONS_FILE: when set, only the operations in this manifest are accepted. */
  persistedOperationsFile?: string;
  /** REDIS_URL and friends; undefined: shared state stays in this process. */
  redis?: RedisConfig;
  /**
   * GATEWAY_REPLICAS: how many replicas share the limits. While Redis fails, each replica keeps to
   * `limit / GATEWAY_REPLICAS` of the OMDb quota and of every `*_RPM`. @default 1
   */
  replicas: number;
  /** The /mcp endpoint's tools (trusted operations), also what chat `graphTools` may name. */
  mcp: {
    /** MCP_OPERATIONS: the folder of `.graphql` files whose named operations are the tools. @default operations/mcp */
    operationsDir?: string;
    /** MCP_ALLOW_MUTATIONS: offer the folder's mutations too. @default false */
    allowMutations: boolean;
    /** MCP_ALLOW_FREEFORM: add the `execute_graphql` tool, which runs any query. @default false */
    allowFreeform: boolean;
  };
  /** Chat `graphTools`: how far the gateway follows a model's calls of trusted operations. */
  graphTools: {
    /** CHAT_GRAPH_TOOL_MAX_STEPS: provider requests per completion with graph tools (per target). @default 4 */
    maxSteps: number;
    /** CHAT_GRAPH_TOOL_MAX_CALLS: graph tool calls run per completion, all steps together. @default 8 */
    maxCalls: number;
  };
  /** Every secret value configured, so logs and errors can redact them. */
  secrets: string[];
  /** GATEWAY_DOMAINS: the domains this gateway serves (their root fields, types and upstreams). @default all */
  domains: GatewayDomain[];
}

/** The graph's domains, each with its own SDL, resolvers and upstreams (schema/README.md lists their root fields). */
export const GATEWAY_DOMAINS = ['enterprise', 'chat', 'titles'] as const;
export type GatewayDomain = (typeof GATEWAY_DOMAINS)[number];

/** A bad variable: the message names it and says what is wrong. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

const url = (variable: string) =>
  z.string().transform((value, ctx) => {
    try {
      const u = new URL(value);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
      return value.replace(/\/+$/, '');
    } catch {
      ctx.addIssue({ code: 'custom', message: `${variable} must be an absolute http(s) URL, got ${JSON.stringify(value)}` });
      return z.NEVER;
    }
  });

const nonNegativeInt = (variable: string) =>
  z.string().transform((value, ctx) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
      ctx.addIssue({ code: 'custom', message: `${variable} must be a whole number >= 0, got ${JSON.stringify(value)}` });
      return z.NEVER;
    }
    return n;
  });

const positiveInt = (variable: string) =>
  nonNegativeInt(variable).refine((n) => n > 0, { message: `${variable} must be greater than 0` });

/** Built-in chat providers: id, env prefix, default base URL. */
export const BUILT_IN_CHAT_PROVIDERS = [
  { id: 'glm', prefix: 'GLM', baseUrl: 'https://open.bigmodel.cn/api/paas/v4', rpm: undefined },
  { id: 'ark', prefix: 'ARK', baseUrl: 'https://ark.cn-beijing.volces.com/api/v3', rpm: undefined },
  { id: 'deepseek', prefix: 'DEEPSEEK', baseUrl: 'https://api.deepseek.com/v1', rpm: 60 },
  { id: 'moonshot', prefix: 'MOONSHOT', baseUrl: 'https://api.moonshot.cn/v1', rpm: undefined },
] as const;

function parseWith<T>(schema: z.ZodType<T>, variable: string, value: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new ConfigError(variable, r.error.issues[0]?.message.replace(`${variable} `, '') ?? 'invalid');
  return r.data;
}

function parseEndpoints(variable: string, value: string | undefined, shape = 'model=endpoint-id, e.g. doubao-pro=ep-20240101-abcde'): Record<string, string> {
  const out: Record<string, string> = {};
  if (!value?.trim()) return out;
  for (const entry of value.split(',').map((e) => e.trim()).filter(Boolean)) {
    const eq = entry.indexOf('=');
    if (eq <= 0 || eq === entry.length - 1) {
      throw new ConfigError(variable, `entry ${JSON.stringify(entry)} must be ${shape}`);
    }
    out[entry.slice(0, eq).trim()] = entry.slice(eq + 1).trim();
  }
  return out;
}

/** `model=tokens,…`: context windows of models the gateway has no table for (config-added providers, raw `ep-` ids). */
function parseWindows(variable: string, value: string | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [model, tokens] of Object.entries(parseEndpoints(variable, value, 'model=tokens, e.g. ep-20240101-abcde=32768'))) {
    out[model] = parseWith(positiveInt(variable), variable, tokens);
  }
  return out;
}

/** CHAT_ROUTES: `name=provider/model,provider/model;name2=…`, each provider one that is configured. */
function parseRoutes(value: string | undefined, providers: readonly string[]): Record<string, ChatTarget[]> {
  const routes: Record<string, ChatTarget[]> = {};
  for (const entry of (value ?? '').split(';').map((e) => e.trim()).filter(Boolean)) {
    const m = /^([A-Za-z0-9_-]+)=(.+)$/.exec(entry);
    if (!m) throw new ConfigError('CHAT_ROUTES', `entry ${JSON.stringify(entry)} must be name=provider/model,provider/model, e.g. fast=glm/glm-4-flash,deepseek/deepseek-chat`);
    const [, name, list] = m;
    routes[name] = list.split(',').map((t) => t.trim()).filter(Boolean).map((target) => {
      const slash = target.indexOf('/');
      const provider = target.slice(0, slash);
      if (slash <= 0 || slash === target.length - 1) throw new ConfigError('CHAT_ROUTES', `target ${JSON.stringify(target)} of route ${name} must be provider/model, e.g. glm/glm-4-flash`);
      if (!providers.includes(provider)) throw new ConfigError('CHAT_ROUTES', `route ${name} names provider ${JSON.stringify(provider)}; configured providers are ${providers.join(', ')}`);
      return { provider, model: target.slice(slash + 1) };
    });
  }
  return routes;
}

/** The per-provider variables every chat provider has, built in or configured. */
function providerLimits(env: NodeJS.ProcessEnv, prefix: string): Pick<ChatProviderConfig, 'dailyTokenBudget' | 'contextWindows'> {
  const budget = env[`${prefix}_DAILY_TOKEN_BUDGET`];
  return {
    dailyTokenBudget: budget ? parseWith(nonNegativeInt(`${prefix}_DAILY_TOKEN_BUDGET`), `${prefix}_DAILY_TOKEN_BUDGET`, budget) : undefined,
    contextWindows: parseWindows(`${prefix}_CONTEXT_WINDOWS`, env[`${prefix}_CONTEXT_WINDOWS`] || undefined),
  };
}

/**
 * CHAT_PROVIDERS adds OpenAI-compatible providers by configuration alone:
 * `id=baseUrl|model1 model2` entries separated by `;`, keys in `<ID>_API_KEY`, limits in `<ID>_RPM`.
 */
function parseExtraProviders(env: NodeJS.ProcessEnv): ChatProviderConfig[] {
  const raw = env.CHAT_PROVIDERS?.trim();
  if (!raw) return [];
  return raw
    .split(';')
    .map((e) => e.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^([a-z][a-z0-9_-]*)=([^|\s]+)\|(.+)$/.exec(entry);
      if (!m) {
        throw new ConfigError('CHAT_PROVIDERS', `entry ${JSON.stringify(entry)} must be id=https://base.url/v1|model-a model-b`);
      }
      const [, id, base, models] = m;
      if (BUILT_IN_CHAT_PROVIDERS.some((p) => p.id === id)) {
        throw new ConfigError('CHAT_PROVIDERS', `provider id ${JSON.stringify(id)} is built in; pick another id`);
      }
      const prefix = id.toUpperCase().replace(/-/g, '_');
      const rpmRaw = env[`${prefix}_RPM`];
      return {
        id,
        mode: 'live' as const,
        baseUrl: parseWith(url('CHAT_PROVIDERS'), 'CHAT_PROVIDERS', base),
        apiKey: env[`${prefix}_API_KEY`] || undefined,
        rpm: rpmRaw ? parseWith(positiveInt(`${prefix}_RPM`), `${prefix}_RPM`, rpmRaw) : undefined,
        endpoints: {},
        models: models.split(/[\s,]+/).filter(Boolean),
        ...providerLimits(env, prefix),
      };
    });
}

function parseRedis(get: (name: string) => string | undefined): (RedisConfig & { password?: string }) | undefined {
  const raw = get('REDIS_URL');
  if (!raw) return undefined;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    u = new URL('invalid:');
  }
  if ((u.protocol !== 'redis:' && u.protocol !== 'rediss:') || !u.hostname) {
    // The value may hold a password: name the shape, not the value.
    throw new ConfigError('REDIS_URL', 'must be redis://[user:password@]host:port[/db] or rediss://… for TLS');
  }
  const db = u.pathname.replace(/^\//, '');
  if (db && !/^\d+$/.test(db)) throw new ConfigError('REDIS_URL', `the path must be a database number such as /0, got /${db}`);
  const timeout = get('REDIS_COMMAND_TIMEOUT_MS');
  return {
    url: raw,
    keyPrefix: get('REDIS_KEY_PREFIX') ?? 'gateway:',
    commandTimeoutMs: timeout ? parseWith(positiveInt('REDIS_COMMAND_TIMEOUT_MS'), 'REDIS_COMMAND_TIMEOUT_MS', timeout) : 500,
    password: u.password ? decodeURIComponent(u.password) : undefined,
  };
}

const set = (v: string | undefined): v is string => v !== undefined && v !== '';

/** GRAPH_POLL_INTERVAL_MS: below the minimum only when Graph is the sandbox (in-process, or on a loopback address). */
function pollInterval(raw: string | undefined, graph: GraphConfig): number {
  if (!raw) return graph.pollIntervalMs;
  const ms = parseWith(positiveInt('GRAPH_POLL_INTERVAL_MS'), 'GRAPH_POLL_INTERVAL_MS', raw);
  const host = new URL(graph.baseUrl).hostname;
  const sandbox = graph.mode === 'sandbox' || host === 'localhost' || host === '[::1]' || /^127\./.test(host);
  if (ms < MIN_LIVE_POLL_INTERVAL_MS && !sandbox) {
    throw new ConfigError(
      'GRAPH_POLL_INTERVAL_MS',
      `must be at least ${MIN_LIVE_POLL_INTERVAL_MS} against Microsoft Graph (${graph.baseUrl}), got ${ms}; lower values are for the sandbox only`,
    );
  }
  return ms;
}

/** Parses and validates the environment; throws {@link ConfigError} naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const get = (name: string) => (set(env[name]) ? env[name] : undefined);
  const port = get('PORT') ? parseWith(nonNegativeInt('PORT'), 'PORT', get('PORT')!) : 4000;
  if (port > 65535) throw new ConfigError('PORT', `must be a port number 0..65535, got ${port}`);
  const host = get('HOST') ?? '127.0.0.1';

  const logLevel = (get('LOG_LEVEL') ?? 'info') as GatewayConfig['logLevel'];
  const levels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
  if (!levels.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${levels.join(', ')}, got ${JSON.stringify(logLevel)}`);
  const logFormat = get('LOG_FORMAT') as GatewayConfig['logFormat'];
  if (logFormat && logFormat !== 'json' && logFormat !== 'pretty') throw new ConfigError('LOG_FORMAT', `must be json or pretty, got ${JSON.stringify(logFormat)}`);
  const otlpEndpoint = get('OTEL_EXPORTER_OTLP_ENDPOINT') ? parseWith(url('OTEL_EXPORTER_OTLP_ENDPOINT'), 'OTEL_EXPORTER_OTLP_ENDPOINT', get('OTEL_EXPORTER_OTLP_ENDPOINT')!) : undefined;
  const production = env.NODE_ENV === 'production';
  const introspectionRaw = get('INTROSPECTION');
  if (introspectionRaw && !['true', 'false'].includes(introspectionRaw)) {
    throw new ConfigError('INTROSPECTION', `must be true or false, got ${JSON.stringify(introspectionRaw)}`);
  }

  const graphVars = ['GRAPH_BASE_URL', 'GRAPH_TENANT_ID', 'GRAPH_CLIENT_ID', 'GRAPH_CLIENT_SECRET', 'GRAPH_AUTHORITY_URL', 'GRAPH_API_VERSION'];
  const apiVersion = get('GRAPH_API_VERSION') ?? 'v1.0';
  if (apiVersion !== 'v1.0' && apiVersion !== 'beta') {
    throw new ConfigError('GRAPH_API_VERSION', `must be v1.0 or beta, got ${JSON.stringify(apiVersion)}`);
  }
  const graph: GraphConfig = {
    mode: graphVars.some((v) => get(v)) ? 'live' : 'sandbox',
    baseUrl: parseWith(url('GRAPH_BASE_URL'), 'GRAPH_BASE_URL', get('GRAPH_BASE_URL') ?? 'https://graph.microsoft.com'),
    apiVersion,
    authorityUrl: parseWith(url('GRAPH_AUTHORITY_URL'), 'GRAPH_AUTHORITY_URL', get('GRAPH_AUTHORITY_URL') ?? 'https://login.microsoftonline.com'),
    tenantId: get('GRAPH_TENANT_ID'),
    clientId: get('GRAPH_CLIENT_ID'),
    clientSecret: get('GRAPH_CLIENT_SECRET'),
    pollIntervalMs: 60_000,
  };
  graph.pollIntervalMs = pollInterval(get('GRAPH_POLL_INTERVAL_MS'), graph);
  if (graph.clientSecret && (!graph.tenantId || !graph.clientId)) {
    throw new ConfigError(!graph.tenantId ? 'GRAPH_TENANT_ID' : 'GRAPH_CLIENT_ID', 'is required with GRAPH_CLIENT_SECRET (application permissions)');
  }

  const omdbVars = ['OMDB_BASE_URL', 'OMDB_API_KEY'];
  const omdb: OmdbConfig = {
    mode: omdbVars.some((v) => get(v)) ? 'live' : 'sandbox',
    baseUrl: parseWith(url('OMDB_BASE_URL'), 'OMDB_BASE_URL', get('OMDB_BASE_URL') ?? 'http://www.omdbapi.com'),
    apiKey: get('OMDB_API_KEY'),
    dailyQuota: get('OMDB_DAILY_QUOTA') ? parseWith(nonNegativeInt('OMDB_DAILY_QUOTA'), 'OMDB_DAILY_QUOTA', get('OMDB_DAILY_QUOTA')!) : 1000,
    cacheTtlMs: get('OMDB_CACHE_TTL_MS') ? parseWith(nonNegativeInt('OMDB_CACHE_TTL_MS'), 'OMDB_CACHE_TTL_MS', get('OMDB_CACHE_TTL_MS')!) : 3_600_000,
    cacheMax: get('OMDB_CACHE_MAX') ? parseWith(nonNegativeInt('OMDB_CACHE_MAX'), 'OMDB_CACHE_MAX', get('OMDB_CACHE_MAX')!) : 5000,
  };

  const chat: ChatProviderConfig[] = BUILT_IN_CHAT_PROVIDERS.map((p) => {
    const vars = [`${p.prefix}_BASE_URL`, `${p.prefix}_API_KEY`, ...(p.id === 'ark' ? ['ARK_ENDPOINTS'] : [])];
    const rpmVar = `${p.prefix}_RPM`;
    return {
      id: p.id,
      mode: vars.some((v) => get(v)) ? ('live' as const) : ('sandbox' as const),
      baseUrl: parseWith(url(`${p.prefix}_BASE_URL`), `${p.prefix}_BASE_URL`, get(`${p.prefix}_BASE_URL`) ?? p.baseUrl),
      apiKey: get(`${p.prefix}_API_KEY`),
      rpm: get(rpmVar) ? parseWith(positiveInt(rpmVar), rpmVar, get(rpmVar)!) : p.rpm,
      endpoints: p.id === 'ark' ? parseEndpoints('ARK_ENDPOINTS', get('ARK_ENDPOINTS')) : {},
      ...providerLimits(env, p.prefix),
    };
  });
  chat.push(...parseExtraProviders(env));
  const chatRoutes = parseRoutes(get('CHAT_ROUTES'), chat.map((c) => c.id));

  const chatRateLimitWaitMs = get('CHAT_RATE_LIMIT_WAIT_MS') ? parseWith(nonNegativeInt('CHAT_RATE_LIMIT_WAIT_MS'), 'CHAT_RATE_LIMIT_WAIT_MS', get('CHAT_RATE_LIMIT_WAIT_MS')!) : 2_000;
  const shutdownGraceMs = get('SHUTDOWN_GRACE_MS') ? parseWith(nonNegativeInt('SHUTDOWN_GRACE_MS'), 'SHUTDOWN_GRACE_MS', get('SHUTDOWN_GRACE_MS')!) : 10_000;

  const int = (variable: string, fallback: number, positive = true) => {
    const raw = get(variable);
    if (!raw) return fallback;
    return positive ? parseWith(positiveInt(variable), variable, raw) : parseWith(nonNegativeInt(variable), variable, raw);
  };
  const upstreamTimeoutMs = int('UPSTREAM_TIMEOUT_MS', 30_000);
  const responseCacheMaxBytes = int('RESPONSE_CACHE_MAX_BYTES', 64 * 1024 * 1024, false);
  const limits = Object.fromEntries(
    (Object.keys(DEFAULT_LIMITS) as (keyof OperationLimits)[]).map((k) => [k, int(LIMIT_VARIABLES[k], DEFAULT_LIMITS[k])]),
  ) as unknown as OperationLimits;
  const websocket = {
    maxOperations: int('GATEWAY_WS_MAX_OPERATIONS', 50),
    maxMessageBytes: int('GATEWAY_WS_MAX_MESSAGE_BYTES', 4 * 1024 * 1024),
    connectionInitTimeoutMs: int('GATEWAY_WS_CONNECTION_INIT_TIMEOUT_MS', 3000),
    maxBufferedBytes: int('WS_MAX_BUFFERED_BYTES', 8 * 1024 * 1024),
    keepAliveMs: int('GATEWAY_WS_KEEP_ALIVE_MS', 12_000),
  };
  const list = (v: string | undefined) => (v ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  const apiKeys = list(get('GATEWAY_API_KEYS'));
  const shortKey = apiKeys.find((k) => k.length < 16);
  if (shortKey) throw new ConfigError('GATEWAY_API_KEYS', `each key must be at least 16 characters; one has ${shortKey.length}`);
  const corsOrigins = list(get('CORS_ORIGINS'));
  for (const origin of corsOrigins) {
    if (origin === '*') continue;
    const ok = /^https?:\/\/[^/\s]+$/.test(origin) && URL.canParse(origin);
    if (!ok) throw new ConfigError('CORS_ORIGINS', `${JSON.stringify(origin)} must be an origin such as https://app.example.com (scheme and host, no path) or *`);
  }

  const domains = list(get('GATEWAY_DOMAINS'));
  const unknownDomain = domains.find((d) => !(GATEWAY_DOMAINS as readonly string[]).includes(d));
  if (unknownDomain !== undefined) throw new ConfigError('GATEWAY_DOMAINS', `${JSON.stringify(unknownDomain)} is not a domain; list some of ${GATEWAY_DOMAINS.join(', ')}, separated by commas (unset: all)`);
  const flag = (variable: string) => {
    const raw = get(variable);
    if (raw && !['true', 'false'].includes(raw)) throw new ConfigError(variable, `must be true or false, got ${JSON.stringify(raw)}`);
    return raw === 'true';
  };
  const mcp = { operationsDir: get('MCP_OPERATIONS'), allowMutations: flag('MCP_ALLOW_MUTATIONS'), allowFreeform: flag('MCP_ALLOW_FREEFORM') };
  const graphTools = { maxSteps: int('CHAT_GRAPH_TOOL_MAX_STEPS', 4), maxCalls: int('CHAT_GRAPH_TOOL_MAX_CALLS', 8) };

  const redis = parseRedis(get);
  const secrets = [redis?.password, graph.clientSecret, omdb.apiKey, ...chat.map((c) => c.apiKey), ...apiKeys].filter((s): s is string => !!s && s.length >= 4);
  return {
    port,
    host,
    logLevel,
    logFormat,
    otlpEndpoint,
    production,
    introspection: introspectionRaw ? introspectionRaw === 'true' : !production,
    shutdownGraceMs,
    limits,
    websocket,
    apiKeys,
    corsOrigins,
    persistedOperationsFile: get('PERSISTED_OPERATIONS_FILE'),
    graph,
    omdb,
    chat,
    chatRoutes,
    chatRateLimitWaitMs,
    upstreamTimeoutMs,
    responseCacheMaxBytes,
    chatTimeoutMs: int('CHAT_TIMEOUT_MS', 300_000),
    redis: redis && { url: redis.url, keyPrefix: redis.keyPrefix, commandTimeoutMs: redis.commandTimeoutMs },
    replicas: int('GATEWAY_REPLICAS', 1),
    chatStreamIdleTimeoutMs: int('CHAT_STREAM_IDLE_TIMEOUT_MS', 60_000),
    upstreamMaxResponseBytes: int('UPSTREAM_MAX_RESPONSE_BYTES', 16 * 1024 * 1024),
    mcp,
    graphTools,
    secrets,
    domains: domains.length ? GATEWAY_DOMAINS.filter((d) => domains.includes(d)) : [...GATEWAY_DOMAINS],
  };
}
