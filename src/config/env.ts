import { isIP } from 'node:net';
import proxyAddr from 'proxy-addr';
import { DEFAULT_LIMITS, LIMIT_VARIABLES, type OperationLimits } from './limits.js';
import {
  BadValue,
  BUILT_IN_CHAT_PROVIDERS,
  GATEWAY_DOMAINS,
  type FieldOverride,
  PROVIDER_VARIABLES,
  VARIABLES,
  positive,
  url,
  type GatewayDomain,
  type OperatorModelFacts,
  type ProviderVariable,
  type Values,
  type ValueType,
  type Variable,
  type VariableName,
} from './variables.js';

export {
  BUILT_IN_CHAT_PROVIDERS,
  GATEWAY_DOMAINS,
  type FieldOverride,
  type GatewayDomain,
  type OperatorModelFacts,
} from './variables.js';

/**
 * Start-up configuration, parsed once from the environment. Each variable is declared once, with its meaning and
 * default, in `VARIABLES` (variables.ts), which also writes the docs; the fields below link to it.
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
  /** {@link VARIABLES.GRAPH_POLL_INTERVAL_MS} */
  pollIntervalMs: number;
}

/** Polling Microsoft Graph more often than this gains little (its data changes in minutes) and invites throttling. */
export const MIN_LIVE_POLL_INTERVAL_MS = 5_000;

/** How /mcp knows its callers ({@link VARIABLES.MCP_AUTH}); `jwt` carries what a token is checked against. */
export type McpAuthConfig =
  | { mode: 'none' | 'api-key' }
  | {
      mode: 'jwt';
      /** {@link VARIABLES.MCP_JWT_JWKS_URL} */
      jwksUrl: string;
      /** {@link VARIABLES.MCP_JWT_ISSUER} */
      issuer: string;
      /** {@link VARIABLES.MCP_JWT_AUDIENCE} */
      audience: string;
    };

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
  /** `<ID>_MODELS`: models the operator adds or corrects, with their facts. */
  modelFacts?: Record<string, OperatorModelFacts>;
}

/** One `provider/model` target of a fallback list or a named route. */
export interface ChatTarget {
  provider: string;
  model: string;
}

/** Fair-share caps; past one the client gets RATE_LIMITED (HTTP 429, WebSocket close 4429). */
export interface FairShareLimits {
  /** {@link VARIABLES.MAX_CONNECTIONS} */
  maxConnections: number;
  /** {@link VARIABLES.CLIENT_MAX_CONNECTIONS} */
  clientMaxConnections: number;
  /** {@link VARIABLES.CLIENT_MAX_SUBSCRIPTIONS} */
  clientMaxSubscriptions: number;
  /** {@link VARIABLES.CLIENT_MAX_CHAT_STREAMS} */
  clientMaxChatStreams: number;
  /** {@link VARIABLES.MAX_SUBSCRIPTIONS} */
  maxSubscriptions: number;
}

/** Demand control: the cost of each operation and what one client may spend (docs/security.md, "Demand control"). */
export interface DemandControlConfig {
  /** {@link VARIABLES.COST_MODE} */
  mode: 'measure' | 'enforce';
  /** {@link VARIABLES.MAX_OPERATION_COST} */
  maxOperationCost: number;
  /** {@link VARIABLES.CLIENT_COST_PER_MINUTE}; 0: unlimited. */
  clientCostPerMinute: number;
  /** {@link VARIABLES.CLIENT_COST_PER_DAY}; 0: unlimited. */
  clientCostPerDay: number;
}

/** Host and Origin checks, and how the real client is found behind proxies and routers (docs/security.md). */
export interface TrustConfig {
  /**
   * {@link VARIABLES.ALLOWED_HOSTS}, lower case: names, `.domain` for a domain and its subdomains; `*` turns the check
   * off. Unset: {@link defaultAllowedHosts}.
   */
  allowedHosts: string[];
  /** {@link VARIABLES.ALLOWED_ORIGINS} together with CORS_ORIGINS; `*` turns the check off. The same origin always passes. */
  allowedOrigins: string[];
  /** {@link VARIABLES.TRUSTED_PROXIES}, as proxy-addr reads them (addresses, CIDRs, `loopback`, `linklocal`, `uniquelocal`). */
  trustedProxies: string[];
  /** {@link VARIABLES.TRUSTED_ROUTER_KEYS} */
  routerKeys: string[];
  /** {@link VARIABLES.ROUTER_CLIENT_HEADER}, lower case. */
  routerClientHeader?: string;
  /** {@link VARIABLES.SUBSCRIPTION_CALLBACK_HOSTS} (`host` or `host:port`, as a URL's parse writes them); unset: none. */
  subscriptionCallbackHosts?: string[];
}

/**
 * ALLOWED_HOSTS when unset: the loopback names, and `HOST` when it is a name. (An IP address always passes: a DNS
 * rebinding attack needs a name it controls, and load balancers probe by address.)
 */
export function defaultAllowedHosts(host: string): string[] {
  const names = ['localhost', '.localhost'];
  const name = host.toLowerCase().replace(/\.$/, '');
  if (!isIP(name) && !names.includes(name)) names.push(name);
  return names;
}

/** A host name, or `.` and a domain (it and its subdomains), or an address; no scheme, port or path. */
const HOST_PATTERN = /^\.?(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.?$/;

function checkHosts(hosts: readonly string[], problems: ConfigProblem[]): string[] {
  const out: string[] = [];
  for (const entry of hosts) {
    const host = entry.toLowerCase();
    if (host === '*' || HOST_PATTERN.test(host) || isIP(host.replace(/^\[|\]$/g, '')))
      out.push(host.replace(/(.)\.$/, '$1'));
    else
      problems.push({
        variable: 'ALLOWED_HOSTS',
        message: `${JSON.stringify(entry)} must be a host name such as api.example.com (no scheme, port or path), .example.com for a domain and its subdomains, or *`,
      });
  }
  return out;
}

/** An origin as a browser sends it (scheme and host, no path), or `*`. */
const isOrigin = (origin: string) => origin === '*' || (/^https?:\/\/[^/\s]+$/.test(origin) && URL.canParse(origin));

/** Shared state in Redis (or Valkey); unset, every replica keeps its own (docs/operations.md). */
export interface RedisConfig {
  /** {@link VARIABLES.REDIS_URL} */
  url: string;
  /** {@link VARIABLES.REDIS_KEY_PREFIX} */
  keyPrefix: string;
  /** {@link VARIABLES.REDIS_COMMAND_TIMEOUT_MS} */
  commandTimeoutMs: number;
}

export interface GatewayConfig {
  port: number;
  host: string;
  /** {@link VARIABLES.GATEWAY_SANDBOX_PORT} */
  sandboxPort: number;
  /** {@link VARIABLES.SANDBOX_TOKEN_DELAY_MS} */
  sandboxTokenDelayMs: number;
  /** {@link VARIABLES.SANDBOX_ANSWER_LENGTH}; undefined: `long` when the log goes to a terminal. */
  sandboxAnswerLength?: 'short' | 'long';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** {@link VARIABLES.LOG_FORMAT} */
  logFormat?: 'json' | 'pretty';
  /** {@link VARIABLES.OTEL_EXPORTER_OTLP_ENDPOINT} */
  otlpEndpoint?: string;
  production: boolean;
  introspection: boolean;
  /** {@link VARIABLES.ERROR_STACK_TRACES} */
  errorStackTraces: boolean;
  /** Milliseconds the server waits for in-flight operations on SIGTERM before closing them. @default 10000 */
  shutdownGraceMs: number;
  graph: GraphConfig;
  omdb: OmdbConfig;
  chat: ChatProviderConfig[];
  /** {@link VARIABLES.CHAT_ROUTES} */
  chatRoutes: Record<string, ChatTarget[]>;
  /** Longest a chat request waits in the client-side `*_RPM` limiter before UPSTREAM_RATE_LIMITED. @default 2000 */
  chatRateLimitWaitMs: number;
  /** {@link VARIABLES.CHAT_MODELS_REFRESH_MS} */
  chatModelsRefreshMs: number;
  /** {@link VARIABLES.CHAT_CACHED_TOKEN_WEIGHT} */
  chatCachedTokenWeight: number;
  /** {@link VARIABLES.CHAT_MODEL_CATALOGUE_FILE} */
  chatModelCatalogueFile?: string;
  /** {@link VARIABLES.UPSTREAM_TIMEOUT_MS} */
  upstreamTimeoutMs: number;
  /** Chat documents (`uploadChatDocument`): the largest file and the text the gateway keeps. */
  chatDocuments: {
    /** {@link VARIABLES.CHAT_DOCUMENT_MAX_BYTES} */
    maxBytes: number;
    /** {@link VARIABLES.CHAT_DOCUMENT_STORE_MAX_BYTES} */
    storeMaxBytes: number;
    /** {@link VARIABLES.CHAT_DOCUMENT_CACHE_MAX_BYTES} */
    cacheMaxBytes: number;
    /** {@link VARIABLES.CHAT_DOCUMENT_CLIENT_MAX_BYTES} */
    clientMaxBytes: number;
    /** {@link VARIABLES.CHAT_DOCUMENT_TTL_S}, in milliseconds. */
    ttlMs: number;
    /** {@link VARIABLES.CHAT_DOCUMENT_MAX_EXTRACTED_BYTES} */
    maxExtractedBytes: number;
    /** {@link VARIABLES.CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS} */
    extractTimeoutMs: number;
  };
  /** {@link VARIABLES.RESPONSE_CACHE_MAX_BYTES} */
  responseCacheMaxBytes: number;
  /** {@link VARIABLES.CHAT_TIMEOUT_MS} */
  chatTimeoutMs: number;
  /** {@link VARIABLES.CHAT_STREAM_IDLE_TIMEOUT_MS} */
  chatStreamIdleTimeoutMs: number;
  /** {@link VARIABLES.UPSTREAM_MAX_RESPONSE_BYTES} */
  upstreamMaxResponseBytes: number;
  /** {@link VARIABLES.UPSTREAM_MAX_BUFFERED_BYTES} */
  upstreamMaxBufferedBytes: number;
  /** {@link VARIABLES.CHAT_PROVIDER_MAX_CONNECTIONS} */
  chatProviderMaxConnections: number;
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
    /** {@link VARIABLES.GATEWAY_WS_KEEP_ALIVE_MS} */
    keepAliveMs: number;
  };
  /** Bounds of every streaming transport alike: graphql-ws, GraphQL over SSE (both modes) and multipart. */
  streams: {
    /** {@link VARIABLES.STREAM_MAX_BUFFERED_BYTES} */
    maxBufferedBytes: number;
    /** {@link VARIABLES.STREAM_STALL_TIMEOUT_MS} */
    stallTimeoutMs: number;
  };
  /** How many sockets and streams one client (its API key, else its address) and everyone together may hold. */
  fairShare: FairShareLimits;
  demandControl: DemandControlConfig;
  /** Deprecated names that are set, each with what to do instead: one warning each at start-up. */
  deprecated: ConfigProblem[];
  /** Slow-request bounds of the HTTP server (a client that sends its headers or body byte by byte). */
  http: {
    /** {@link VARIABLES.HTTP_HEADERS_TIMEOUT_MS} */
    headersTimeoutMs: number;
    /** {@link VARIABLES.HTTP_REQUEST_TIMEOUT_MS} */
    requestTimeoutMs: number;
  };
  /** {@link VARIABLES.GATEWAY_API_KEYS} */
  apiKeys: string[];
  /** {@link VARIABLES.CORS_ORIGINS} */
  corsOrigins: string[];
  /** Who may reach the gateway, and who a client is behind a proxy or a router. */
  trust: TrustConfig;
  /** {@link VARIABLES.PERSISTED_OPERATIONS_FILE} */
  persistedOperationsFile?: string;
  /** {@link VARIABLES.REDIS_URL} */
  redis?: RedisConfig;
  /** {@link VARIABLES.GATEWAY_REPLICAS} */
  replicas: number;
  /** The /mcp endpoint's tools (trusted operations), also what chat `graphTools` may name. */
  mcp: {
    /** {@link VARIABLES.MCP_OPERATIONS} */
    operationsDir?: string;
    /** {@link VARIABLES.MCP_ALLOW_MUTATIONS} */
    allowMutations: boolean;
    /** {@link VARIABLES.MCP_ALLOW_FREEFORM} */
    allowFreeform: boolean;
    /** {@link VARIABLES.MCP_INTROSPECTION} */
    introspection: boolean;
    /** {@link VARIABLES.MCP_AUTH} */
    auth: McpAuthConfig;
  };
  /** Chat `graphTools`: how far the gateway follows a model's calls of trusted operations. */
  graphTools: {
    /** {@link VARIABLES.CHAT_GRAPH_TOOL_MAX_STEPS} */
    maxSteps: number;
    /** {@link VARIABLES.CHAT_GRAPH_TOOL_MAX_CALLS} */
    maxCalls: number;
  };
  /** Every secret value configured, so logs and errors can redact them. */
  secrets: string[];
  /** {@link VARIABLES.GATEWAY_DOMAINS} */
  domains: GatewayDomain[];
  /** The subgraph as a router sees it: its types' names and the fields it takes over. */
  subgraph: SubgraphOptions;
}

/** How the subgraph presents itself to a router (src/schema/renames.ts, src/schema/routerDirectives.ts). */
export interface SubgraphOptions {
  /** SUBGRAPH_TYPE_PREFIX: put before every domain type's name (`Ops`). @default none */
  typePrefix?: string;
  /** SUBGRAPH_RENAMES: single types' names, old to new. @default none */
  renames?: Readonly<Record<string, string>>;
  /** SUBGRAPH_OVERRIDES: fields taken over from other subgraphs. @default none */
  overrides?: readonly FieldOverride[];
}

/** One bad variable: its name and what is wrong with its value, with the fix. */
export interface ConfigProblem {
  variable: string;
  /** Without the variable's name, e.g. `must be true or false, got "yes"`. */
  message: string;
}

/** Every bad variable at once; the message is one `NAME: problem` line per variable. */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(variable: string, problem: string);
  constructor(problems: readonly ConfigProblem[]);
  constructor(first: string | readonly ConfigProblem[], problem = '') {
    const problems = typeof first === 'string' ? [{ variable: first, message: problem }] : first;
    super(problems.map((p) => `${p.variable}: ${p.message}`).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }

  /** The first bad variable. */
  get variable(): string {
    return this.problems[0]?.variable ?? '';
  }
}

const set = (v: string | undefined): v is string => v !== undefined && v !== '';

/** Parses `raw` as `variable` says, or records why not (the value is left out when it may be a secret). */
function parseVariable<T>(name: string, variable: Variable<T>, raw: string, problems: ConfigProblem[]): T | undefined {
  try {
    return variable.type.parse(raw);
  } catch (error) {
    if (!(error instanceof BadValue)) throw error;
    problems.push({
      variable: name,
      message: variable.secret ? error.message : `${error.message}, got ${JSON.stringify(raw)}`,
    });
    return undefined;
  }
}

/** Every variable of {@link VARIABLES}, parsed (a bad value is recorded and its default used, so checking goes on). */
export function readVariables(env: NodeJS.ProcessEnv, problems: ConfigProblem[]): Values {
  const values: Record<string, unknown> = {};
  for (const [name, variable] of Object.entries(VARIABLES) as [VariableName, Variable][]) {
    const raw = env[name];
    const parsed = set(raw) ? parseVariable(name, variable, raw, problems) : undefined;
    values[name] = parsed ?? (variable.default === undefined ? undefined : variable.type.parse(variable.default));
  }
  return values as Values;
}

/** `<prefix>_<suffix>` of a chat provider, parsed; undefined when unset or bad (then recorded). */
function providerVariable<K extends ProviderVariable>(
  env: NodeJS.ProcessEnv,
  prefix: string,
  suffix: K,
  problems: ConfigProblem[],
) {
  const name = `${prefix}_${suffix}`;
  const raw = env[name];
  type T = (typeof PROVIDER_VARIABLES)[K] extends { type: ValueType<infer V> } ? V : never;
  return set(raw)
    ? (parseVariable(name, PROVIDER_VARIABLES[suffix] as Variable<T>, raw, problems) as T | undefined)
    : undefined;
}

/** Runs one check that throws {@link ConfigError}, recording its problems instead; `fallback` stands in for its value. */
function attempt<T>(problems: ConfigProblem[], fallback: T, check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
    return fallback;
  }
}

function parseEndpoints(
  variable: string,
  value: string | undefined,
  shape = 'model=endpoint-id, e.g. doubao-pro=ep-20240101-abcde',
): Record<string, string> {
  const out: Record<string, string> = {};
  if (!value?.trim()) return out;
  for (const entry of value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
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
  for (const [model, tokens] of Object.entries(
    parseEndpoints(variable, value, 'model=tokens, e.g. ep-20240101-abcde=32768'),
  )) {
    const problems: ConfigProblem[] = [];
    const n = parseVariable(variable, { type: positive, description: '' }, tokens, problems);
    if (n === undefined) throw new ConfigError(variable, `the window of ${model} ${problems[0].message}`);
    out[model] = n;
  }
  return out;
}

/** CHAT_ROUTES: `name=provider/model,provider/model;name2=…`, each provider one that is configured. */
function parseRoutes(value: string | undefined, providers: readonly string[]): Record<string, ChatTarget[]> {
  const routes: Record<string, ChatTarget[]> = {};
  for (const entry of (value ?? '')
    .split(';')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z0-9_-]+)=(.+)$/.exec(entry);
    if (!m)
      throw new ConfigError(
        'CHAT_ROUTES',
        `entry ${JSON.stringify(entry)} must be name=provider/model,provider/model, e.g. fast=glm/glm-4-flash,deepseek/deepseek-flash`,
      );
    const [, name, list] = m;
    routes[name] = list
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean)
      .map((target) => {
        const slash = target.indexOf('/');
        const provider = target.slice(0, slash);
        if (slash <= 0 || slash === target.length - 1)
          throw new ConfigError(
            'CHAT_ROUTES',
            `target ${JSON.stringify(target)} of route ${name} must be provider/model, e.g. glm/glm-4-flash`,
          );
        if (!providers.includes(provider))
          throw new ConfigError(
            'CHAT_ROUTES',
            `route ${name} names provider ${JSON.stringify(provider)}; configured providers are ${providers.join(', ')}`,
          );
        return { provider, model: target.slice(slash + 1) };
      });
  }
  return routes;
}

/** The per-provider variables every chat provider has, built in or configured. */
function providerLimits(
  env: NodeJS.ProcessEnv,
  prefix: string,
  problems: ConfigProblem[],
): Pick<ChatProviderConfig, 'dailyTokenBudget' | 'contextWindows' | 'modelFacts'> {
  const variable = `${prefix}_CONTEXT_WINDOWS`;
  return {
    dailyTokenBudget: providerVariable(env, prefix, 'DAILY_TOKEN_BUDGET', problems),
    contextWindows: attempt(problems, {}, () => parseWindows(variable, env[variable] || undefined)),
    modelFacts: providerVariable(env, prefix, 'MODELS', problems),
  };
}

/**
 * CHAT_PROVIDERS adds OpenAI-compatible providers by configuration alone:
 * `id=baseUrl|model1 model2` entries separated by `;`, keys in `<ID>_API_KEY`, limits in `<ID>_RPM`.
 */
function parseExtraProviders(env: NodeJS.ProcessEnv, problems: ConfigProblem[]): ChatProviderConfig[] {
  const raw = env.CHAT_PROVIDERS?.trim();
  if (!raw) return [];
  const providers: ChatProviderConfig[] = [];
  for (const entry of raw
    .split(';')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^([a-z][a-z0-9_-]*)=([^|\s]+)\|(.+)$/.exec(entry);
    if (!m) {
      problems.push({
        variable: 'CHAT_PROVIDERS',
        message: `entry ${JSON.stringify(entry)} must be id=https://base.url/v1|model-a model-b`,
      });
      continue;
    }
    const [, id, base, models] = m;
    if (BUILT_IN_CHAT_PROVIDERS.some((p) => p.id === id)) {
      problems.push({
        variable: 'CHAT_PROVIDERS',
        message: `provider id ${JSON.stringify(id)} is built in; pick another id`,
      });
      continue;
    }
    const prefix = id.toUpperCase().replace(/-/g, '_');
    providers.push({
      id,
      mode: 'live' as const,
      baseUrl: parseVariable(`CHAT_PROVIDERS`, { type: url, description: '' }, base, problems) ?? base,
      apiKey: providerVariable(env, prefix, 'API_KEY', problems),
      rpm: providerVariable(env, prefix, 'RPM', problems),
      endpoints: {},
      models: models.split(/[\s,]+/).filter(Boolean),
      ...providerLimits(env, prefix, problems),
    });
  }
  return providers;
}

function parseRedis(values: Values): (RedisConfig & { password?: string }) | undefined {
  const raw = values.REDIS_URL;
  if (!raw) return undefined;
  const u = URL.canParse(raw) ? new URL(raw) : undefined;
  if ((u?.protocol !== 'redis:' && u?.protocol !== 'rediss:') || !u.hostname) {
    // The value may hold a password: name the shape, not the value.
    throw new ConfigError('REDIS_URL', 'must be redis://[user:password@]host:port[/db] or rediss://… for TLS');
  }
  const db = u.pathname.replace(/^\//, '');
  if (db && !/^\d+$/.test(db))
    throw new ConfigError('REDIS_URL', `the path must be a database number such as /0, got /${db}`);
  return {
    url: raw,
    keyPrefix: values.REDIS_KEY_PREFIX,
    commandTimeoutMs: values.REDIS_COMMAND_TIMEOUT_MS,
    password: u.password ? decodeURIComponent(u.password) : undefined,
  };
}

/**
 * MCP_AUTH and what each mode needs: `api-key` the gateway's keys, `jwt` all three MCP_JWT_* variables. Those set
 * without `jwt` are refused too: an operator who set them believes /mcp checks tokens.
 */
function mcpAuthConfig(
  values: Values,
  apiKeys: readonly string[],
  problems: ConfigProblem[],
): McpAuthConfig | undefined {
  const mode = values.MCP_AUTH ?? (apiKeys.length ? 'api-key' : 'none');
  const jwt = {
    MCP_JWT_JWKS_URL: values.MCP_JWT_JWKS_URL,
    MCP_JWT_ISSUER: values.MCP_JWT_ISSUER,
    MCP_JWT_AUDIENCE: values.MCP_JWT_AUDIENCE,
  };
  if (mode !== 'jwt') {
    const stray = Object.entries(jwt).find(([, value]) => value !== undefined);
    if (stray)
      problems.push({
        variable: stray[0],
        message: `is read only with MCP_AUTH=jwt, and MCP_AUTH is ${mode}: set MCP_AUTH=jwt or unset ${stray[0]}`,
      });
  }
  if (mode === 'api-key' && !apiKeys.length)
    problems.push({
      variable: 'MCP_AUTH',
      message: 'is api-key, but GATEWAY_API_KEYS is not set: set the keys, or use jwt or none',
    });
  if (mode !== 'jwt') return { mode };
  const missing = Object.entries(jwt).filter(([, value]) => !value);
  for (const [variable] of missing) problems.push({ variable, message: 'is required with MCP_AUTH=jwt' });
  if (missing.length) return undefined;
  return { mode, jwksUrl: jwt.MCP_JWT_JWKS_URL!, issuer: jwt.MCP_JWT_ISSUER!, audience: jwt.MCP_JWT_AUDIENCE! };
}

/** GRAPH_POLL_INTERVAL_MS: below the minimum only when Graph is the sandbox (in-process, or on a loopback address). */
function checkPollInterval(graph: GraphConfig): void {
  const host = new URL(graph.baseUrl).hostname;
  const sandbox = graph.mode === 'sandbox' || host === 'localhost' || host === '[::1]' || host.startsWith('127.');
  if (graph.pollIntervalMs < MIN_LIVE_POLL_INTERVAL_MS && !sandbox) {
    throw new ConfigError(
      'GRAPH_POLL_INTERVAL_MS',
      `must be at least ${MIN_LIVE_POLL_INTERVAL_MS} against Microsoft Graph (${graph.baseUrl}), got ${graph.pollIntervalMs}; lower values are for the sandbox only`,
    );
  }
}

/**
 * MAX_OPERATION_COST, the one cost limit (over the gateway's own estimate); GATEWAY_MAX_COST, once graphql-armor's
 * second cost model, is read as its older name, with a warning saying which of the two is used.
 */
function operationCostLimit(
  values: Values,
  isSet: (name: string) => boolean,
): { max: number; deprecated: ConfigProblem[] } {
  const old = values.GATEWAY_MAX_COST;
  if (old === undefined) return { max: values.MAX_OPERATION_COST, deprecated: [] };
  const both = isSet('MAX_OPERATION_COST');
  const max = both ? values.MAX_OPERATION_COST : old;
  const message = both
    ? `is deprecated and ignored: MAX_OPERATION_COST (${max}) is set too and wins; remove GATEWAY_MAX_COST (${old})`
    : `is deprecated: read as MAX_OPERATION_COST=${max}, the one cost limit (over the gateway's own estimate, extensions.cost; it refuses with COST_MODE=enforce); rename it to MAX_OPERATION_COST`;
  return { max, deprecated: [{ variable: 'GATEWAY_MAX_COST', message }] };
}

/** Parses and validates the environment; throws one {@link ConfigError} listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const problems: ConfigProblem[] = [];
  const values = readVariables(env, problems);
  const isSet = (name: string) => set(env[name]);
  const production = values.NODE_ENV === 'production';

  const graph: GraphConfig = {
    mode: [
      'GRAPH_BASE_URL',
      'GRAPH_TENANT_ID',
      'GRAPH_CLIENT_ID',
      'GRAPH_CLIENT_SECRET',
      'GRAPH_AUTHORITY_URL',
      'GRAPH_API_VERSION',
    ].some(isSet)
      ? 'live'
      : 'sandbox',
    baseUrl: values.GRAPH_BASE_URL,
    apiVersion: values.GRAPH_API_VERSION,
    authorityUrl: values.GRAPH_AUTHORITY_URL,
    tenantId: values.GRAPH_TENANT_ID,
    clientId: values.GRAPH_CLIENT_ID,
    clientSecret: values.GRAPH_CLIENT_SECRET,
    pollIntervalMs: values.GRAPH_POLL_INTERVAL_MS,
  };
  attempt(problems, undefined, () => checkPollInterval(graph));
  // Application permissions need all three; any one alone is a configuration set half-way (delegated permissions need
  // none of them: the caller's own token is forwarded).
  const application = {
    GRAPH_TENANT_ID: graph.tenantId,
    GRAPH_CLIENT_ID: graph.clientId,
    GRAPH_CLIENT_SECRET: graph.clientSecret,
  };
  const given = Object.entries(application)
    .filter(([, v]) => v)
    .map(([k]) => k);
  if (given.length > 0 && given.length < 3) {
    for (const [variable] of Object.entries(application).filter(([, v]) => !v)) {
      problems.push({
        variable,
        message: `is required with ${given.join(' and ')}: application permissions need GRAPH_TENANT_ID, GRAPH_CLIENT_ID and GRAPH_CLIENT_SECRET; for delegated permissions (each caller's own token) set none of them and only GRAPH_BASE_URL`,
      });
    }
  }

  if (isSet('OMDB_BASE_URL') && !values.OMDB_API_KEY) {
    problems.push({
      variable: 'OMDB_API_KEY',
      message:
        'is required with OMDB_BASE_URL: OMDb refuses requests without a key; unset OMDB_BASE_URL to use the sandbox',
    });
  }
  const omdb: OmdbConfig = {
    mode: ['OMDB_BASE_URL', 'OMDB_API_KEY'].some(isSet) ? 'live' : 'sandbox',
    baseUrl: values.OMDB_BASE_URL,
    apiKey: values.OMDB_API_KEY,
    dailyQuota: values.OMDB_DAILY_QUOTA,
    cacheTtlMs: values.OMDB_CACHE_TTL_MS,
    cacheMax: values.OMDB_CACHE_MAX,
  };

  const chat: ChatProviderConfig[] = BUILT_IN_CHAT_PROVIDERS.map((p) => ({
    id: p.id,
    mode: [`${p.prefix}_BASE_URL`, `${p.prefix}_API_KEY`, ...(p.id === 'ark' ? ['ARK_ENDPOINTS'] : [])].some(isSet)
      ? ('live' as const)
      : ('sandbox' as const),
    baseUrl: providerVariable(env, p.prefix, 'BASE_URL', problems) ?? p.baseUrl,
    apiKey: providerVariable(env, p.prefix, 'API_KEY', problems),
    rpm: providerVariable(env, p.prefix, 'RPM', problems) ?? p.rpm,
    endpoints: p.id === 'ark' ? attempt(problems, {}, () => parseEndpoints('ARK_ENDPOINTS', values.ARK_ENDPOINTS)) : {},
    ...providerLimits(env, p.prefix, problems),
  }));
  for (const [i, p] of BUILT_IN_CHAT_PROVIDERS.entries()) {
    const c = chat[i];
    // A built-in provider made live without its key would only ever be refused upstream.
    if (c.mode === 'live' && !c.apiKey) {
      const why = [`${p.prefix}_BASE_URL`, ...(p.id === 'ark' ? ['ARK_ENDPOINTS'] : [])].filter(isSet).join(' and ');
      problems.push({
        variable: `${p.prefix}_API_KEY`,
        message: `is required with ${why}: the ${p.id} service refuses requests without a key; unset ${why} to use the sandbox`,
      });
    }
  }
  chat.push(...parseExtraProviders(env, problems));
  const chatRoutes = attempt(problems, {}, () =>
    parseRoutes(
      values.CHAT_ROUTES,
      chat.map((c) => c.id),
    ),
  );

  if (values.UPSTREAM_MAX_BUFFERED_BYTES < values.UPSTREAM_MAX_RESPONSE_BYTES) {
    problems.push({
      variable: 'UPSTREAM_MAX_BUFFERED_BYTES',
      message: `must be at least UPSTREAM_MAX_RESPONSE_BYTES (${values.UPSTREAM_MAX_RESPONSE_BYTES}), got ${values.UPSTREAM_MAX_BUFFERED_BYTES}`,
    });
  }
  const limits = Object.fromEntries(
    (Object.keys(DEFAULT_LIMITS) as (keyof OperationLimits)[]).map((k) => [
      k,
      values[LIMIT_VARIABLES[k] as VariableName],
    ]),
  ) as unknown as OperationLimits;
  const maxOperationCost = operationCostLimit(values, isSet);
  const apiKeys = values.GATEWAY_API_KEYS ?? [];
  const http = { headersTimeoutMs: values.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: values.HTTP_REQUEST_TIMEOUT_MS };
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    problems.push({
      variable: 'HTTP_HEADERS_TIMEOUT_MS',
      message: `must not exceed HTTP_REQUEST_TIMEOUT_MS (${http.requestTimeoutMs}), got ${http.headersTimeoutMs}`,
    });
  }
  const shortKey = apiKeys.find((k) => k.length < 16);
  if (shortKey)
    problems.push({
      variable: 'GATEWAY_API_KEYS',
      message: `each key must be at least 16 characters; one has ${shortKey.length}`,
    });
  const corsOrigins = values.CORS_ORIGINS ?? [];
  for (const origin of corsOrigins) {
    if (!isOrigin(origin))
      problems.push({
        variable: 'CORS_ORIGINS',
        message: `${JSON.stringify(origin)} must be an origin such as https://app.example.com (scheme and host, no path) or *`,
      });
  }
  const allowedOrigins = values.ALLOWED_ORIGINS ?? [];
  for (const origin of allowedOrigins) {
    if (!isOrigin(origin))
      problems.push({
        variable: 'ALLOWED_ORIGINS',
        message: `${JSON.stringify(origin)} must be an origin such as https://app.example.com (scheme and host, no path) or *`,
      });
  }
  const allowedHosts = values.ALLOWED_HOSTS
    ? checkHosts(values.ALLOWED_HOSTS, problems)
    : defaultAllowedHosts(values.HOST);
  const trustedProxies = values.TRUSTED_PROXIES ?? [];
  for (const proxy of trustedProxies) {
    try {
      proxyAddr.compile(proxy);
    } catch {
      problems.push({
        variable: 'TRUSTED_PROXIES',
        message: `${JSON.stringify(proxy)} must be an address (10.0.0.7), a CIDR (10.0.0.0/8, fd00::/8) or one of loopback, linklocal, uniquelocal`,
      });
    }
  }
  const routerKeys = values.TRUSTED_ROUTER_KEYS ?? [];
  const shortRouterKey = routerKeys.find((k) => k.length < 16);
  if (shortRouterKey)
    problems.push({
      variable: 'TRUSTED_ROUTER_KEYS',
      message: `each key must be at least 16 characters; one has ${shortRouterKey.length}`,
    });
  if (production && values.ERROR_STACK_TRACES) {
    problems.push({
      variable: 'ERROR_STACK_TRACES',
      message:
        "must not be true with NODE_ENV=production: stack traces show every caller the gateway's code paths (the log has them); unset it",
    });
  }
  const redis = attempt(problems, undefined, () => parseRedis(values));
  const mcpAuth = mcpAuthConfig(values, apiKeys, problems);
  if (problems.length) throw new ConfigError(problems);

  const mcp = {
    operationsDir: values.MCP_OPERATIONS,
    allowMutations: values.MCP_ALLOW_MUTATIONS,
    allowFreeform: values.MCP_ALLOW_FREEFORM,
    introspection: values.MCP_INTROSPECTION,
    auth: mcpAuth!,
  };
  const graphTools = { maxSteps: values.CHAT_GRAPH_TOOL_MAX_STEPS, maxCalls: values.CHAT_GRAPH_TOOL_MAX_CALLS };
  const secrets = [
    redis?.password,
    graph.clientSecret,
    omdb.apiKey,
    ...chat.map((c) => c.apiKey),
    ...apiKeys,
    ...routerKeys,
  ].filter((s): s is string => !!s && s.length >= 4);
  return {
    port: values.PORT,
    host: values.HOST,
    sandboxPort: values.GATEWAY_SANDBOX_PORT,
    sandboxTokenDelayMs: values.SANDBOX_TOKEN_DELAY_MS,
    sandboxAnswerLength: values.SANDBOX_ANSWER_LENGTH,
    logLevel: values.LOG_LEVEL,
    logFormat: values.LOG_FORMAT,
    otlpEndpoint: values.OTEL_EXPORTER_OTLP_ENDPOINT,
    production,
    introspection: values.INTROSPECTION ?? !production,
    errorStackTraces: values.ERROR_STACK_TRACES,
    shutdownGraceMs: values.SHUTDOWN_GRACE_MS,
    limits,
    websocket: {
      maxOperations: values.GATEWAY_WS_MAX_OPERATIONS,
      maxMessageBytes: values.GATEWAY_WS_MAX_MESSAGE_BYTES,
      connectionInitTimeoutMs: values.GATEWAY_WS_CONNECTION_INIT_TIMEOUT_MS,
      keepAliveMs: values.GATEWAY_WS_KEEP_ALIVE_MS,
    },
    streams: {
      // WS_MAX_BUFFERED_BYTES is the older name of the same bound; the new name wins when both are set.
      maxBufferedBytes: values.STREAM_MAX_BUFFERED_BYTES ?? values.WS_MAX_BUFFERED_BYTES ?? 8 * 1024 * 1024,
      stallTimeoutMs: values.STREAM_STALL_TIMEOUT_MS,
    },
    fairShare: {
      maxConnections: values.MAX_CONNECTIONS,
      clientMaxConnections: values.CLIENT_MAX_CONNECTIONS,
      clientMaxSubscriptions: values.CLIENT_MAX_SUBSCRIPTIONS,
      clientMaxChatStreams: values.CLIENT_MAX_CHAT_STREAMS,
      maxSubscriptions: values.MAX_SUBSCRIPTIONS,
    },
    demandControl: {
      mode: values.COST_MODE,
      maxOperationCost: maxOperationCost.max,
      clientCostPerMinute: values.CLIENT_COST_PER_MINUTE,
      clientCostPerDay: values.CLIENT_COST_PER_DAY,
    },
    deprecated: maxOperationCost.deprecated,
    http,
    apiKeys,
    corsOrigins,
    trust: {
      allowedHosts,
      // A page CORS lets call the gateway is a page the Origin check lets in.
      allowedOrigins: [...new Set([...allowedOrigins, ...corsOrigins])],
      trustedProxies,
      routerKeys,
      routerClientHeader: values.ROUTER_CLIENT_HEADER,
      subscriptionCallbackHosts: values.SUBSCRIPTION_CALLBACK_HOSTS,
    },
    persistedOperationsFile: values.PERSISTED_OPERATIONS_FILE,
    graph,
    omdb,
    chat,
    chatRoutes,
    chatRateLimitWaitMs: values.CHAT_RATE_LIMIT_WAIT_MS,
    chatModelsRefreshMs: values.CHAT_MODELS_REFRESH_MS,
    chatCachedTokenWeight: values.CHAT_CACHED_TOKEN_WEIGHT,
    chatModelCatalogueFile: values.CHAT_MODEL_CATALOGUE_FILE,
    upstreamTimeoutMs: values.UPSTREAM_TIMEOUT_MS,
    chatDocuments: {
      maxBytes: values.CHAT_DOCUMENT_MAX_BYTES,
      storeMaxBytes: values.CHAT_DOCUMENT_STORE_MAX_BYTES,
      cacheMaxBytes: values.CHAT_DOCUMENT_CACHE_MAX_BYTES,
      clientMaxBytes: Math.min(
        values.CHAT_DOCUMENT_CLIENT_MAX_BYTES ?? Math.floor(values.CHAT_DOCUMENT_STORE_MAX_BYTES / 4),
        values.CHAT_DOCUMENT_STORE_MAX_BYTES,
      ),
      ttlMs: values.CHAT_DOCUMENT_TTL_S * 1000,
      maxExtractedBytes: values.CHAT_DOCUMENT_MAX_EXTRACTED_BYTES,
      extractTimeoutMs: values.CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS,
    },
    responseCacheMaxBytes: values.RESPONSE_CACHE_MAX_BYTES,
    chatTimeoutMs: values.CHAT_TIMEOUT_MS,
    redis: redis && { url: redis.url, keyPrefix: redis.keyPrefix, commandTimeoutMs: redis.commandTimeoutMs },
    replicas: values.GATEWAY_REPLICAS,
    chatStreamIdleTimeoutMs: values.CHAT_STREAM_IDLE_TIMEOUT_MS,
    upstreamMaxResponseBytes: values.UPSTREAM_MAX_RESPONSE_BYTES,
    mcp,
    graphTools,
    upstreamMaxBufferedBytes: values.UPSTREAM_MAX_BUFFERED_BYTES,
    chatProviderMaxConnections: values.CHAT_PROVIDER_MAX_CONNECTIONS,
    secrets,
    domains: values.GATEWAY_DOMAINS ?? [...GATEWAY_DOMAINS],
    subgraph: {
      typePrefix: values.SUBGRAPH_TYPE_PREFIX,
      renames: values.SUBGRAPH_RENAMES ?? {},
      overrides: values.SUBGRAPH_OVERRIDES ?? [],
    },
  };
}
