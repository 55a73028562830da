import { DEFAULT_LIMITS } from './limits.js';

/**
 * Every environment variable the gateway reads: its type, default and meaning. `loadConfig` (env.ts) parses the
 * environment with these entries, and `npm run config:docs` writes the configuration guide's table (docs/configuration.md) and
 * `.env.example` from them, so the three cannot disagree.
 */

/** What a value may be: the words shown in the docs, and the parser that turns the text into the value. */
export interface ValueType<T> {
  /** Shown in the configuration guide's type column, e.g. `whole number ≥ 0`. */
  readonly name: string;
  /** The value, or throws {@link BadValue} saying what it must be. */
  parse(text: string): T;
}

/** A value that does not fit its type; `message` says what it must be, e.g. `must be true or false`. */
export class BadValue extends Error {}

export interface Variable<T = unknown> {
  type: ValueType<T>;
  /** As written in the environment, parsed like a set value. */
  default?: string;
  /** The default in words, when it is not one literal (e.g. depends on the terminal). */
  defaultText?: string;
  /** One or two sentences for operators (Markdown). */
  description: string;
  /** The value is a secret: never echoed in an error, left empty in `.env.example`. */
  secret?: boolean;
  /** A value worth showing in `.env.example` when there is no default. */
  example?: string;
}

const wholeNumber = (name: string, min: number, max = Number.MAX_SAFE_INTEGER): ValueType<number> => ({
  name,
  parse(text) {
    const n = Number(text);
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n)) throw new BadValue(`must be a whole number >= ${min}`);
    if (n < min) throw new BadValue(`must be greater than ${min - 1}`);
    if (n > max) throw new BadValue(`must be at most ${max}`);
    return n;
  },
});

export const count = wholeNumber('whole number ≥ 0', 0);
export const positive = wholeNumber('whole number ≥ 1', 1);
export const port: ValueType<number> = { name: 'port 0…65535', parse: (text) => portNumber(text) };

function portNumber(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n > 65535) throw new BadValue('must be a port number 0..65535');
  return n;
}

export const url: ValueType<string> = {
  name: 'http(s) URL',
  parse(text) {
    const u = URL.canParse(text) ? new URL(text) : undefined;
    if (u?.protocol !== 'http:' && u?.protocol !== 'https:') throw new BadValue('must be an absolute http(s) URL');
    return text.replace(/\/+$/, '');
  },
};

export const text: ValueType<string> = { name: 'text', parse: (value) => value };

export const list: ValueType<string[]> = {
  name: 'comma-separated list',
  parse: (value) =>
    value
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
};

/**
 * Hosts as `host` or `host:port` (no scheme, path or credentials), each in the form a URL's own parse gives (lower
 * case, IPv6 in brackets, an IPv4 address normalised), so that a URL's host is compared with them as text.
 */
export const hostPorts: ValueType<string[]> = {
  name: 'comma-separated `host` or `host:port`',
  parse(value) {
    return list.parse(value).map((entry) => {
      const port = /^(?:\[[^\]]*\]|[^:]*):(\d{1,5})$/.exec(entry)?.[1];
      const parsed =
        /[/@?#\\\s]/.test(entry) || !URL.canParse(`http://${entry}`) ? undefined : new URL(`http://${entry}`);
      if (
        !parsed ||
        (port !== undefined && Number(port) > 65535) ||
        (entry.includes(':') && !entry.startsWith('[') && port === undefined)
      )
        throw new BadValue(
          `${JSON.stringify(entry)} must be a host name or address, optionally with :port (router.internal, router.internal:4000, 10.0.0.7:4000, [fd00::7]:4000), without scheme, path or credentials`,
        );
      return port === undefined ? parsed.hostname : `${parsed.hostname}:${Number(port)}`;
    });
  },
};

export const boolean: ValueType<boolean> = {
  name: '`true` or `false`',
  parse(value) {
    if (value !== 'true' && value !== 'false') throw new BadValue('must be true or false');
    return value === 'true';
  },
};

/** One of `values`; a value that begins one of them (`prod`) is answered with the likely meant one. */
export function oneOf<const V extends string>(...values: V[]): ValueType<V> {
  return {
    name: values.map((v) => `\`${v}\``).join(', '),
    parse(value) {
      if ((values as string[]).includes(value)) return value as V;
      const meant = values.find((v) => value.length > 1 && v.startsWith(value.toLowerCase()));
      const allowed = values.length === 2 ? values.join(' or ') : `one of ${values.join(', ')}`;
      throw new BadValue(`must be ${allowed}${meant ? ` (did you mean ${meant}?)` : ''}`);
    },
  };
}

/** A path; that the file exists and parses is checked at start (`checkAtStart`). */
/** A number from 0 to 1, e.g. a weight. */
export const fraction: ValueType<number> = {
  name: 'number 0…1',
  parse(text) {
    const n = Number(text);
    if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
      throw new BadValue('must be a number from 0 to 1, e.g. 0.1');
    return n;
  },
};

/** What `<ID>_MODELS` may say of a model (the names the model catalogue uses, src/upstreams/chat/models/types.ts). */
export interface OperatorModelFacts {
  contextWindow?: number;
  maxOutputTokens?: number;
  reasoning?: 'none' | 'optional-off' | 'optional-on' | 'always';
  vision?: boolean;
  tools?: boolean;
  json?: boolean;
}

const REASONING: Readonly<Record<string, OperatorModelFacts['reasoning']>> = {
  none: 'none',
  off: 'optional-off',
  optional_off: 'optional-off',
  'optional-off': 'optional-off',
  on: 'optional-on',
  default: 'optional-on',
  optional_on: 'optional-on',
  'optional-on': 'optional-on',
  always: 'always',
};
const YES_NO: Readonly<Record<string, boolean>> = {
  true: true,
  yes: true,
  '1': true,
  false: false,
  no: false,
  '0': false,
};
const MODEL_KEYS = 'context, output, reasoning, vision, tools, json';

/**
 * `<ID>_MODELS`: `model:key=value;key=value,model2:…`. A comma followed by a bare `key=value` (no `model:`) goes on
 * describing the model before it, so `deepseek-v4-pro:context=1000000,output=384000` reads as one model.
 */
export const modelFacts: ValueType<Record<string, OperatorModelFacts>> = {
  name: 'model list',
  parse(text) {
    const out: Record<string, OperatorModelFacts> = {};
    let current: OperatorModelFacts | undefined;
    for (const part of text
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)) {
      const m =
        /^([A-Za-z0-9][A-Za-z0-9._/:-]*?):([a-z_]+=.*)$/i.exec(part) ?? /^([A-Za-z0-9][A-Za-z0-9._/-]*)$/.exec(part);
      let pairs: string;
      if (m && (m[2] !== undefined || !part.includes('='))) {
        current = out[m[1]] ??= {};
        pairs = m[2] ?? '';
      } else if (current && /^[a-z_]+=/i.test(part)) pairs = part;
      else
        throw new BadValue(
          `entry ${JSON.stringify(part)} must be model:key=value;key=value with keys ${MODEL_KEYS}, e.g. deepseek-v4-pro:context=1000000;output=384000;reasoning=on`,
        );
      for (const pair of pairs
        .split(';')
        .map((p) => p.trim())
        .filter(Boolean)) {
        const eq = pair.indexOf('=');
        const key = pair.slice(0, eq).trim().toLowerCase();
        const value = pair
          .slice(eq + 1)
          .trim()
          .toLowerCase();
        if (key === 'context' || key === 'output') {
          if (!/^\d+$/.test(value) || Number(value) < 1)
            throw new BadValue(
              `${key} of ${JSON.stringify(Object.keys(out).at(-1))} must be a whole number of tokens ≥ 1`,
            );
          current![key === 'context' ? 'contextWindow' : 'maxOutputTokens'] = Number(value);
        } else if (key === 'reasoning') {
          const r = REASONING[value];
          if (!r)
            throw new BadValue(
              'reasoning must be none, off (optional, off by default), on or default (optional, on by default) or always',
            );
          current!.reasoning = r;
        } else if (key === 'vision' || key === 'tools' || key === 'json') {
          const b = YES_NO[value];
          if (b === undefined) throw new BadValue(`${key} must be true or false`);
          current![key] = b;
        } else throw new BadValue(`unknown key ${JSON.stringify(key)}; keys are ${MODEL_KEYS}`);
      }
    }
    return out;
  },
};

export const file: ValueType<string> = { name: 'file path', parse: (value) => value };
/** A host name or address; that it resolves is checked at start (`checkAtStart`). */
export const host: ValueType<string> = { name: 'host name or address', parse: (value) => value };

/** An HTTP header name (RFC 9110 token), lower case. */
export const headerName: ValueType<string> = {
  name: 'header name',
  parse(value) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(value.trim()))
      throw new BadValue('must be an HTTP header name such as x-client-id');
    return value.trim().toLowerCase();
  },
};

/**
 * The graph's domains, each with its own SDL, resolvers and upstreams (schema/README.md lists their root fields);
 * `gateway` holds the fields about the graph itself (`upstreams`, `serverTime`), served by one instance of a split
 * deployment.
 */
export const GATEWAY_DOMAINS = ['enterprise', 'chat', 'titles', 'gateway'] as const;
export type GatewayDomain = (typeof GATEWAY_DOMAINS)[number];

/** A comma-separated subset of {@link GATEWAY_DOMAINS}, in their order. */
const domains: ValueType<GatewayDomain[]> = {
  name: `comma-separated list of ${GATEWAY_DOMAINS.map((d) => `\`${d}\``).join(', ')}`,
  parse(value) {
    const named = list.parse(value);
    const unknown = named.find((d) => !(GATEWAY_DOMAINS as readonly string[]).includes(d));
    if (unknown !== undefined)
      throw new BadValue(
        `${JSON.stringify(unknown)} is not a domain; list some of ${GATEWAY_DOMAINS.join(', ')}, separated by commas (unset: all)`,
      );
    // An empty list is the default, as unset is: every domain.
    return named.length ? GATEWAY_DOMAINS.filter((d) => named.includes(d)) : [...GATEWAY_DOMAINS];
  },
};

/** A GraphQL type name a router may see: a letter first (a leading `_` is the federation machinery's). */
const TYPE_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

const typePrefix: ValueType<string> = {
  name: 'GraphQL name',
  parse(value) {
    if (!TYPE_NAME.test(value))
      throw new BadValue(
        `${JSON.stringify(value)} cannot start a GraphQL type name; use letters, digits and _, a letter first, e.g. Ops`,
      );
    return value;
  },
};

/** `Old=New,…`: each type's name as a router sees it. That `Old` is a type of the graph is checked when the schema is built. */
const typeRenames: ValueType<Record<string, string>> = {
  name: 'comma-separated `Old=New` pairs',
  parse(value) {
    const renames: Record<string, string> = {};
    const targets = new Map<string, string>();
    for (const pair of list.parse(value)) {
      const [from, to, ...rest] = pair.split('=').map((x) => x.trim());
      if (to === undefined || rest.length)
        throw new BadValue(
          `${JSON.stringify(pair)} is not Old=New; write e.g. Title=Movie,OrderDirection=SortDirection`,
        );
      for (const name of [from, to]) {
        if (!TYPE_NAME.test(name))
          throw new BadValue(
            `${JSON.stringify(name)} in ${JSON.stringify(pair)} is not a GraphQL type name; use letters, digits and _, a letter first`,
          );
      }
      if (from in renames) throw new BadValue(`${from} is renamed twice (to ${renames[from]} and to ${to}); keep one`);
      const twice = targets.get(to);
      if (twice !== undefined)
        throw new BadValue(`${twice} and ${from} are both renamed to ${to}; give each its own name`);
      renames[from] = to;
      targets.set(to, from);
    }
    return renames;
  },
};

/** One field taken over from another subgraph by `@override` (SUBGRAPH_OVERRIDES). */
export interface FieldOverride {
  /** The type as the router sees it (after renames). */
  type: string;
  field: string;
  /** The subgraph that resolves the field until now. */
  from: string;
  /** Progressive override: `percent(N)`, or a label the router's configuration turns on. */
  label?: string;
}

/** Apollo's label grammar: `percent(N)` with N a number from 0 to 100, or a name of letters, digits, `_-:.`. */
const OVERRIDE_LABEL = /^(percent\((100|\d{1,2}(\.\d+)?)\)|[A-Za-z][A-Za-z0-9_\-:.]*)$/;

/** `Type.field=subgraph[@label],…`. */
const fieldOverrides: ValueType<FieldOverride[]> = {
  name: 'comma-separated `Type.field=subgraph[@label]`',
  parse(value) {
    return list.parse(value).map((entry) => {
      const match = /^([A-Za-z][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)=([A-Za-z_][A-Za-z0-9_-]*)(?:@(.+))?$/.exec(
        entry.replace(/\s+/g, ''),
      );
      if (!match)
        throw new BadValue(
          `${JSON.stringify(entry)} is not Type.field=subgraph or Type.field=subgraph@label; write e.g. Title.plot=movies@percent(10)`,
        );
      const [, type, field, from, label] = match;
      if (label !== undefined && !OVERRIDE_LABEL.test(label))
        throw new BadValue(
          `${JSON.stringify(label)} in ${JSON.stringify(entry)} is not an override label; use percent(0..100) or a name of letters, digits, _ - : .`,
        );
      return { type, field, from, ...(label === undefined ? {} : { label }) };
    });
  },
};

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The variables, in the order the configuration guide lists them. Adding one: an entry here, then its typed value is
 * `values.NAME` in `loadConfig`; `npm run config:docs` regenerates the docs.
 */
export const VARIABLES = {
  PORT: { type: port, default: '4000', description: 'port the gateway listens on (`0`: any free port)' },
  HOST: {
    type: host,
    default: '127.0.0.1',
    description: 'address the gateway listens on (`0.0.0.0` in a container); a name must resolve at start',
  },
  NODE_ENV: {
    type: oneOf('development', 'production', 'test'),
    default: 'development',
    description:
      '`production`: introspection and field suggestions off (unless `INTROSPECTION=true`), unexpected errors masked, `ERROR_STACK_TRACES` refused. Any other value than these three stops start-up',
  },
  INTROSPECTION: {
    type: boolean,
    defaultText: '`true` unless production',
    description: 'whether introspection queries are answered',
  },
  ERROR_STACK_TRACES: {
    type: boolean,
    default: 'false',
    description:
      "put each error's stack trace in its answer (`extensions.stacktrace`), for debugging the gateway itself; refused with `NODE_ENV=production`. Either way an unexpected error (`INTERNAL_SERVER_ERROR`) is logged with its stack and request id",
  },
  LOG_LEVEL: {
    type: oneOf(...LOG_LEVELS),
    default: 'info',
    description: 'least severe level logged; at `debug` every upstream request is a line carrying its `requestId`',
  },
  LOG_FORMAT: {
    type: oneOf('json', 'pretty'),
    defaultText: '`pretty` on a terminal, else `json`',
    description: '`json`: one JSON object per line; `pretty`: readable lines (pino-pretty)',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    type: url,
    description:
      'OTLP/HTTP base URL, e.g. `http://127.0.0.1:4318`: traces are exported to `…/v1/traces`. Unset: tracing off',
    example: 'http://127.0.0.1:4318',
  },
  SHUTDOWN_GRACE_MS: {
    type: count,
    default: '10000',
    description: 'on SIGTERM/SIGINT, how long in-flight operations may finish before connections are closed',
  },
  GATEWAY_SANDBOX_PORT: {
    type: port,
    default: '0',
    description:
      'port of the built-in sandbox the gateway starts for upstreams without credentials (`0`: any free port; the start-up log prints each sandbox base URL). It listens on `127.0.0.1` only',
  },
  SANDBOX_TOKEN_DELAY_MS: {
    type: wholeNumber('whole number 0…10000', 0, 10_000),
    default: '40',
    description:
      'pause between the tokens of a chat answer from the built-in sandbox (also read by `npm run sandbox`): a pace a person can watch and stop; `0` streams as fast as it can',
  },
  SANDBOX_ANSWER_LENGTH: {
    type: oneOf('short', 'long'),
    defaultText: '`long` when the log goes to a terminal (a person watching `npm start`), else `short`',
    description:
      'how much a chat answer from the built-in sandbox says (also read by `npm run sandbox`): `long` takes about 10 s at the default pace, time to try Stop; `short`, a few seconds, is what tests and scripts read',
  },
  GRAPH_BASE_URL: {
    type: url,
    default: 'https://graph.microsoft.com',
    description:
      'Microsoft Graph (enterprise data); the API version is appended. Setting any `GRAPH_*` variable makes Graph live',
  },
  GRAPH_API_VERSION: { type: oneOf('v1.0', 'beta'), default: 'v1.0', description: 'Graph API version' },
  GRAPH_AUTHORITY_URL: {
    type: url,
    default: 'https://login.microsoftonline.com',
    description: "identity platform issuing the gateway's own Graph token (application permissions)",
  },
  GRAPH_TENANT_ID: {
    type: text,
    description: 'Entra ID tenant, for application permissions (with `GRAPH_CLIENT_ID` and `GRAPH_CLIENT_SECRET`)',
  },
  GRAPH_CLIENT_ID: { type: text, description: 'application (client) id, for application permissions' },
  GRAPH_CLIENT_SECRET: {
    type: text,
    secret: true,
    description: 'client secret, for application permissions; needs `GRAPH_TENANT_ID` and `GRAPH_CLIENT_ID`',
  },
  GRAPH_POLL_INTERVAL_MS: {
    type: positive,
    default: '60000',
    description:
      'how often live service-health subscriptions poll Graph, once for all subscribers; at least `5000` unless Graph is the sandbox (in-process or on a loopback address)',
  },
  OMDB_BASE_URL: {
    type: url,
    default: 'http://www.omdbapi.com',
    description: 'OMDb (titles). Setting `OMDB_BASE_URL` or `OMDB_API_KEY` makes OMDb live',
  },
  OMDB_API_KEY: {
    type: text,
    secret: true,
    description: 'OMDb key; it never appears in a response, error or log line',
  },
  OMDB_DAILY_QUOTA: { type: count, default: '1000', description: 'upstream OMDb requests allowed per UTC day' },
  OMDB_CACHE_TTL_MS: {
    type: count,
    default: '3600000',
    description: 'how long a looked-up title is kept in the shared cache',
  },
  OMDB_CACHE_MAX: { type: count, default: '5000', description: 'most titles the cache keeps' },
  ARK_ENDPOINTS: {
    type: text,
    description: 'Ark models to inference endpoints, `model=endpoint-id,…`; sets Ark live',
    example: 'doubao-pro=ep-20240101-abcde',
  },
  CHAT_PROVIDERS: {
    type: text,
    description:
      'more OpenAI-compatible providers, no code: `id=https://host/v1|model-a model-b;other=…`, keys in `<ID>_API_KEY`, limits in `<ID>_RPM`',
    example: 'local=http://127.0.0.1:8080/v1|llama-3',
  },
  CHAT_ROUTES: {
    type: text,
    description: 'named fallback lists, `name=provider/model,provider/model;name2=…`, used as `provider: "route:name"`',
    example: 'fast=glm/glm-4-flash,deepseek/deepseek-flash',
  },
  CHAT_RATE_LIMIT_WAIT_MS: {
    type: count,
    default: '2000',
    description:
      "how long a chat request may queue for its provider's `*_RPM` limiter (or, for Kimi, until its `X-RateLimit-Reset`) before `UPSTREAM_RATE_LIMITED`",
  },
  CHAT_MODELS_REFRESH_MS: {
    type: count,
    default: '3600000',
    description:
      "live providers: how often each one's `GET /models` is read again (once at start-up in any case; `0` = start-up only). The models it lists are what `chatProviders` offers, with the catalogue's and `<ID>_MODELS`' facts",
  },
  CHAT_MODEL_CATALOGUE_FILE: {
    type: file,
    description:
      'a JSON or YAML file in the model catalogue\'s shape (`{ <provider>: { models: [{ id, contextWindow, maxOutputTokens, reasoning, vision, effort, deprecatedOn, retiresOn, successor, source, … }], retired: [{ id, successor, since }] } }`, docs/chat.md "Models") laid over the built-in catalogue: it must exist and parse at start, and is read again every `CHAT_MODELS_REFRESH_MS` (a bad file is then logged and the last good one kept)',
    example: 'chat-models.yaml',
  },
  CHAT_CACHED_TOKEN_WEIGHT: {
    type: fraction,
    default: '0.1',
    description:
      "how much one cached prompt token (served from the provider's prefix cache, billed lower) counts against `<ID>_DAILY_TOKEN_BUDGET`; `1` counts it in full",
  },
  CHAT_DOCUMENT_MAX_BYTES: {
    type: wholeNumber('whole number 1…2147483647', 1, 2_147_483_647),
    default: '104857600',
    description:
      "largest file `uploadChatDocument` takes (100 MiB, Kimi's own limit); a larger one is refused (HTTP 413) before any byte goes upstream. The upload must also arrive within `HTTP_REQUEST_TIMEOUT_MS`",
  },
  CHAT_DOCUMENT_STORE_MAX_BYTES: {
    type: positive,
    default: '268435456',
    description:
      'bytes of text the gateway keeps for documents it extracted itself (256 MiB; for providers without a files API, shared through Redis when `REDIS_URL` is set); kept until deleted or expired (`CHAT_DOCUMENT_TTL_S`); an upload past it is refused until then',
  },
  CHAT_DOCUMENT_CLIENT_MAX_BYTES: {
    type: positive,
    defaultText: 'a quarter of `CHAT_DOCUMENT_STORE_MAX_BYTES` (64 MiB of the default 256 MiB)',
    description:
      "bytes of that text one client may keep (its share of the store): past it the client's upload is refused (`DOCUMENT_CLIENT_SHARE_FULL`) while every other client's go on; the same fraction of a provider's file limits (Kimi: 1,000 files, 10 GB) bounds the client's files there. A quarter by default: one client can never take more than a quarter of the store, and 64 MiB of text is still far more than any model's context window reads",
  },
  CHAT_DOCUMENT_TTL_S: {
    type: positive,
    default: '604800',
    description:
      'seconds a document lives after its upload (7 days): then it is gone for completions and `chatDocuments`, and a sweep on every replica deletes its text and its file at the provider, so no client holds the store for good',
  },
  CHAT_DOCUMENT_CACHE_MAX_BYTES: {
    type: positive,
    default: '67108864',
    description:
      "bytes of extracted text read from a provider's files API (Kimi) that the gateway caches (64 MiB, shared through Redis when `REDIS_URL` is set), so a conversation over a document reads it from the provider once; past it the least recently stored go first and are read again when next used",
  },
  CHAT_DOCUMENT_MAX_EXTRACTED_BYTES: {
    type: positive,
    default: '268435456',
    description:
      'text and decompressed bytes one document the gateway extracts itself may yield (256 MiB): every stream PDF.js decodes counts, as it decodes it. Past it the upload is refused (`BAD_USER_INPUT`) and its extractor process ends, so a PDF that inflates 1 MB into gigabytes never takes the memory',
  },
  CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS: {
    type: positive,
    default: '30000',
    description:
      'longest the gateway reads one document it extracts itself (PDF or text, its token count included); past it its extractor process is ended and the upload refused (`BAD_USER_INPUT`). Time waiting for an extractor does not count',
  },
  UPSTREAM_TIMEOUT_MS: {
    type: positive,
    default: '30000',
    description: 'total time of one buffered upstream call (Graph, OMDb), retries included',
  },
  CHAT_TIMEOUT_MS: {
    type: positive,
    default: '300000',
    description:
      'the same for a whole non-streamed chat completion (reasoning models can take minutes); streams are bounded by idle time instead',
  },
  CHAT_STREAM_IDLE_TIMEOUT_MS: {
    type: positive,
    default: '60000',
    description:
      'longest a chat stream may send nothing (not even a keep-alive comment) while the gateway reads it, also before its headers; then the subscription ends with `UPSTREAM_TIMEOUT`. Time a stream is paused for a slow subscriber does not count',
  },
  UPSTREAM_MAX_RESPONSE_BYTES: {
    type: positive,
    default: '16777216',
    description:
      'largest upstream body the gateway reads (16 MiB), counted after `Content-Encoding` (gzip, deflate, br) is undone, and largest single event of a stream; past it the request is aborted and the field fails with `UPSTREAM_ERROR` (`upstreamCode: RESPONSE_TOO_LARGE`)',
  },
  GATEWAY_API_KEYS: {
    type: list,
    secret: true,
    description:
      'comma-separated keys (16+ characters); when set, every GraphQL request needs one in `x-api-key` (WebSocket: `connectionParams["x-api-key"]`)',
  },
  UPSTREAM_MAX_BUFFERED_BYTES: {
    type: positive,
    default: '67108864',
    description:
      'bytes of buffered upstream bodies the whole process may hold at once (64 MiB), at least `UPSTREAM_MAX_RESPONSE_BYTES`; a body whose next chunk would cross it fails its field with `UPSTREAM_ERROR` (`upstreamCode: RESPONSE_BUFFER_FULL`), and every body gives its bytes back once parsed or failed',
  },
  CHAT_PROVIDER_MAX_CONNECTIONS: {
    type: positive,
    default: '256',
    description:
      'connections the gateway opens to one chat provider; one client may hold at most all but an eighth of them, and waiting requests are served client by client in turn',
  },
  RESPONSE_CACHE_MAX_BYTES: {
    type: count,
    default: '67108864',
    description:
      'bytes of whole responses the response cache keeps (64 MiB), keyed by document, variables and, for `PRIVATE` data or a request with `Authorization`, the caller; shared through Redis when `REDIS_URL` is set; `0` turns it off',
  },
  CORS_ORIGINS: {
    type: list,
    description: 'origins allowed to call from a browser, e.g. `https://app.example.com`, or `*`',
    example: 'https://app.example.com',
  },
  ALLOWED_HOSTS: {
    type: list,
    defaultText: 'the loopback names (`localhost`, `*.localhost`), `HOST` when it is a name, and any IP address',
    description:
      "host names a request's `Host` may carry, on every endpoint (`/graphql` and its WebSocket, `/mcp`, GraphiQL, `/healthz`, `/readyz`, `/metrics`); any other is answered 403, so no web page reaches the gateway through DNS rebinding. `.example.com` allows the name and every subdomain; an IP address always passes (rebinding needs a name, and load balancers probe by address); `*` turns the check off",
    example: 'api.example.com,.internal.example.com',
  },
  ALLOWED_ORIGINS: {
    type: list,
    defaultText: 'the same origin, and `CORS_ORIGINS`',
    description:
      'origins a browser request (one with an `Origin` header) may come from, on every endpoint and WebSocket upgrade; any other is answered 403. Requests without `Origin` (servers, curl, routers) pass. `*` turns the check off',
    example: 'https://app.example.com',
  },
  TRUSTED_PROXIES: {
    type: list,
    description:
      "addresses or CIDRs of reverse proxies whose `X-Forwarded-For` is believed (also `loopback`, `linklocal`, `uniquelocal`): the client is the nearest address in it that is not one of them. Unset: the client is the socket's peer",
    example: '10.0.0.0/8',
  },
  TRUSTED_ROUTER_KEYS: {
    type: list,
    secret: true,
    description:
      "API keys of federation routers (16+ characters; accepted wherever `GATEWAY_API_KEYS` are): a request with one is an end client's, named by `ROUTER_CLIENT_HEADER`; a router's connections count in no client's `CLIENT_MAX_CONNECTIONS` and its WebSocket is not bound by `GATEWAY_WS_MAX_OPERATIONS` (send the key on the upgrade request too: a burst of upgrades is counted before `connection_init`)",
  },
  ROUTER_CLIENT_HEADER: {
    type: headerName,
    description:
      "the header by which a router (`TRUSTED_ROUTER_KEYS`) names the end client, e.g. one it sets from the `sub` of a token it verified; over graphql-ws read from each operation's `extensions.headers` (Hive Gateway's `propagateHeaders`), else `connectionParams`, else the upgrade request. Unset, or absent from a request: the router is the client",
    example: 'x-client-id',
  },
  SUBSCRIPTION_CALLBACK_HOSTS: {
    type: hostPorts,
    description:
      'hosts (`host` for any port, or `host:port`) a router\'s `callbackUrl` may name for subscriptions over Apollo\'s HTTP callback protocol (docs/federation.md, "Subscriptions over HTTP callbacks"); a URL on any other host, with credentials, or not http(s) is refused before any request is sent. Unset: callback subscriptions are refused',
    example: 'router.internal:4000',
  },
  PERSISTED_OPERATIONS_FILE: {
    type: file,
    description:
      "a persisted-query manifest (Apollo's format or a `{ hash: query }` map): only its operations run; it must exist and parse at start. Unset: automatic persisted queries are on",
    example: 'persisted-operations.json',
  },
  GATEWAY_MAX_DEPTH: {
    type: positive,
    default: String(DEFAULT_LIMITS.maxDepth),
    description:
      'deepest field nesting of an operation (refused as `QUERY_TOO_COMPLEX` naming the limit, as every `GATEWAY_MAX_*`)',
  },
  GATEWAY_MAX_ALIASES: {
    type: positive,
    default: String(DEFAULT_LIMITS.maxAliases),
    description: 'aliases in one operation',
  },
  GATEWAY_MAX_FIELDS: {
    type: positive,
    default: String(DEFAULT_LIMITS.maxFields),
    description: 'fields in one operation, fragments expanded',
  },
  GATEWAY_MAX_TOKENS: {
    type: positive,
    default: String(DEFAULT_LIMITS.maxTokens),
    description: 'lexer tokens in one document',
  },
  GATEWAY_MAX_DIRECTIVES: {
    type: positive,
    default: String(DEFAULT_LIMITS.maxDirectives),
    description: 'directives in one operation',
  },
  GATEWAY_MAX_DOCUMENT_BYTES: {
    type: positive,
    default: String(DEFAULT_LIMITS.maxDocumentBytes),
    description: 'characters of one document',
  },
  GATEWAY_MAX_UPSTREAM_REQUESTS: {
    type: positive,
    default: String(DEFAULT_LIMITS.maxUpstreamRequests),
    description:
      "upstream requests one operation may cause per upstream, by the planners' estimate, checked before execution",
  },
  MAX_ENTITY_REPRESENTATIONS: {
    type: positive,
    default: String(DEFAULT_LIMITS.maxEntityRepresentations),
    description: 'representations one `_entities` call may carry; more are refused whole, before any upstream request',
  },
  GATEWAY_WS_MAX_OPERATIONS: {
    type: positive,
    default: '50',
    description:
      "concurrent operations on one WebSocket connection (not a router's: see `TRUSTED_ROUTER_KEYS`); past it `RATE_LIMITED` naming it, as every cap, counted in `gateway_fair_share_refusals_total{limit}`",
  },
  GATEWAY_WS_MAX_MESSAGE_BYTES: {
    type: positive,
    default: '4194304',
    description: 'largest WebSocket message accepted (4 MiB: chat messages may carry base64 images)',
  },
  GATEWAY_WS_CONNECTION_INIT_TIMEOUT_MS: {
    type: positive,
    default: '3000',
    description: 'time a WebSocket client has to send `connection_init`',
  },
  GATEWAY_WS_KEEP_ALIVE_MS: {
    type: positive,
    default: '12000',
    description:
      'WebSocket ping interval; a connection whose pong is not back one interval later is cut (a client that stopped reading answers no ping either)',
  },
  STREAM_MAX_BUFFERED_BYTES: {
    type: positive,
    defaultText: '`8388608`',
    description:
      'unsent bytes one streaming connection may hold (8 MiB), on every streaming transport alike (graphql-ws, GraphQL over SSE in both modes, multipart). Above a quarter of it (at most 256 KiB) its streams stop reading their upstreams until it drains; past it the client is closed (WebSocket **4413**) and its upstream requests aborted (`gateway_stream_slow_client_closes_total{transport,reason}`)',
  },
  WS_MAX_BUFFERED_BYTES: {
    type: positive,
    description: 'the older name of `STREAM_MAX_BUFFERED_BYTES`, read when that is unset',
  },
  STREAM_STALL_TIMEOUT_MS: {
    type: count,
    default: '30000',
    description:
      'a streaming client that takes no byte for this long while messages wait for it is closed the same way (WebSocket **4408** `Stalled: …`) and its upstream requests aborted; `0` turns it off. Both closes are counted in `gateway_stream_slow_client_closes_total{transport,reason}`, the pauses in `gateway_stream_pauses_total{transport}`',
  },
  MAX_CONNECTIONS: {
    type: positive,
    default: '10000',
    description:
      'sockets open in all; past it a request is answered 429 `RATE_LIMITED` and a WebSocket closed with **4429**',
  },
  CLIENT_MAX_CONNECTIONS: {
    type: positive,
    default: '64',
    description:
      "sockets of one client (its API key when `GATEWAY_API_KEYS` is set, else its address), each counted from its first request's headers; behind a trusted proxy (`TRUSTED_PROXIES`) its requests in flight; past it 429 / **4429**",
  },
  CLIENT_MAX_SUBSCRIPTIONS: {
    type: positive,
    default: '256',
    description:
      "open subscriptions of one client, across graphql-ws, SSE and multipart (and across replicas with `REDIS_URL`, as every `CLIENT_MAX_*`). Past it the subscription is refused at once with `RATE_LIMITED` (`extensions.limit` names the variable, `max` its value, `fix` what lifts it; over graphql-ws as the operation's one result (`next`, `complete`), `429` on SSE and multipart), counted in `gateway_fair_share_refusals_total{limit}`",
  },
  CLIENT_MAX_CHAT_STREAMS: {
    type: positive,
    default: '32',
    description: 'concurrent `chatCompletionStream` subscriptions of one client; past it `RATE_LIMITED`',
  },
  MAX_SUBSCRIPTIONS: {
    type: positive,
    default: '20000',
    description: 'open subscriptions in all; past it `RATE_LIMITED`',
  },
  COST_MODE: {
    type: oneOf('measure', 'enforce'),
    default: 'measure',
    description:
      'demand control: every answer carries `extensions.cost { estimated actual upstreamRequestsEstimated upstreamRequests }` (docs/security.md, "Demand control"); `enforce` also refuses an operation whose estimated cost is over `MAX_OPERATION_COST` with `QUERY_TOO_COMPLEX` before any upstream request; `measure` only reports it',
  },
  MAX_OPERATION_COST: {
    type: positive,
    default: '5000',
    description:
      "the one cost limit: the estimated cost one operation may have when `COST_MODE=enforce` (the gateway's own estimate, `extensions.cost.estimated`: an object 1, an upstream request 10, lists by their size arguments)",
  },
  GATEWAY_MAX_COST: {
    type: positive,
    description:
      "deprecated: the older name of `MAX_OPERATION_COST`, read when that is unset, with a start-up warning (it was graphql-armor's cost of the document, a second model that refused what the estimate admits)",
  },
  CLIENT_COST_PER_MINUTE: {
    type: count,
    default: '0',
    description:
      'cost one client (its subject, else its API key when `GATEWAY_API_KEYS` is set, else its address) may spend in any minute, across replicas with `REDIS_URL`; an operation that does not fit is refused with `RATE_LIMITED`, `Retry-After` and `extensions.retryAfterSeconds`. `0`: unlimited',
  },
  CLIENT_COST_PER_DAY: {
    type: count,
    default: '0',
    description: 'cost one client may spend per UTC day, counted like `CLIENT_COST_PER_MINUTE`. `0`: unlimited',
  },
  HTTP_HEADERS_TIMEOUT_MS: {
    type: positive,
    default: '10000',
    description: "time a client has to send a request's headers (a slow-header client is answered 408 and dropped)",
  },
  HTTP_REQUEST_TIMEOUT_MS: {
    type: positive,
    default: '30000',
    description: 'time a client has to send a whole request, body included; at least `HTTP_HEADERS_TIMEOUT_MS`',
  },
  REDIS_URL: {
    type: text,
    secret: true,
    description:
      'shared state for several replicas: `redis://[user:password@]host:port/db`, `rediss://…` for TLS; Redis or Valkey. Unset: everything stays in the process',
    example: 'redis://127.0.0.1:6379/0',
  },
  REDIS_KEY_PREFIX: {
    type: text,
    default: 'gateway:',
    description: 'put before every key and channel, so several deployments can share one Redis',
  },
  REDIS_COMMAND_TIMEOUT_MS: {
    type: positive,
    default: '500',
    description: 'longest one Redis command may take before the replica applies its failure policy',
  },
  GATEWAY_REPLICAS: {
    type: positive,
    default: '1',
    description:
      "how many replicas share the limits: it sizes the OMDb quota slices and the `*_RPM` leases each replica holds ahead (what it may spend while Redis is unreachable), and the daily token budgets' per-replica share during an outage",
  },
  GATEWAY_DOMAINS: {
    type: domains,
    defaultText: 'all four',
    description:
      "the domains this gateway serves, standalone and as a subgraph: only their root fields, types and upstreams (schema/README.md lists the root names each claims). `gateway` is the graph's own fields (`upstreams`, `serverTime`): when the domains run as several instances behind a router, exactly one of them serves it",
    example: 'enterprise,chat,titles,gateway',
  },
  SUBGRAPH_TYPE_PREFIX: {
    type: typePrefix,
    description:
      "put before the name of every type of the domains as a router sees it (`Ops`: `OpsTitle`, `OpsChatMessage`…), in the SDL, in `__typename` and in entity representations; `PageInfo` (Relay's, shared) and the scalars keep theirs. Unset: the names of schema/",
    example: 'Ops',
  },
  SUBGRAPH_RENAMES: {
    type: typeRenames,
    description:
      'renames single types the same way, `Old=New,…` (e.g. `Title=Movie,OrderDirection=SortDirection`); a type named here is not prefixed. Start-up stops when `Old` is no type of the graph or two types would share a name',
    example: 'Title=Movie,OrderDirection=SortDirection',
  },
  SUBGRAPH_OVERRIDES: {
    type: fieldOverrides,
    description:
      'fields this subgraph takes over from another subgraph with `@override(from:, label:)`, `Type.field=subgraph[@label],…` with the type as the router sees it (e.g. `Movie.plot=movies@percent(10)`: 10 % of requests move here first). Start-up stops when the field is not one of the graph; docs/federation.md shows the steps',
    example: 'Title.plot=movies@percent(10)',
  },
  MCP_OPERATIONS: {
    type: text,
    defaultText: '`operations/mcp`',
    description:
      'folder of `.graphql` files whose named operations are the tools of `/mcp` and what chat `graphTools` may name; checked at start',
  },
  MCP_ALLOW_MUTATIONS: { type: boolean, default: 'false', description: "offer the folder's mutations as tools too" },
  MCP_ALLOW_FREEFORM: {
    type: boolean,
    default: 'false',
    description:
      'add the `execute_graphql` tool to `/mcp`, which runs any query (and mutation with `MCP_ALLOW_MUTATIONS`) through the same rules',
  },
  MCP_AUTH: {
    type: oneOf('none', 'api-key', 'jwt'),
    defaultText: '`api-key` when `GATEWAY_API_KEYS` is set, else `none`',
    description:
      'how `/mcp` knows its callers: `api-key` (one of `GATEWAY_API_KEYS` in `x-api-key`), `jwt` (an OAuth bearer token checked against `MCP_JWT_*`; its `sub` is the caller for fair share, and `/.well-known/oauth-protected-resource` tells agents where to get one) or `none` (anyone who reaches the port)',
  },
  MCP_JWT_JWKS_URL: {
    type: url,
    description:
      "with `MCP_AUTH=jwt`: the authorization server's JSON Web Key Set; read at the first token, kept, read again for a key id it does not know or after a failed read (at most every 30 s)",
    example: 'https://login.example.com/.well-known/jwks.json',
  },
  MCP_JWT_ISSUER: {
    type: text,
    description:
      'with `MCP_AUTH=jwt`: the `iss` every token must carry, and the authorization server the metadata names',
    example: 'https://login.example.com/',
  },
  MCP_JWT_AUDIENCE: {
    type: text,
    description:
      'with `MCP_AUTH=jwt`: the `aud` every token must carry; the public URL of `/mcp` (what MCP clients ask tokens for), which the metadata then names as the resource',
    example: 'https://gateway.example.com/mcp',
  },
  MCP_INTROSPECTION: {
    type: boolean,
    default: 'false',
    description:
      'add the tools `introspect` (a type and its fields), `search` (types and fields matching words) and `validate` (a query checked against the schema and the limits, not run) to `/mcp`, so an agent can write its own query for `execute_graphql`',
  },
  CHAT_GRAPH_TOOL_MAX_STEPS: {
    type: positive,
    default: '4',
    description:
      'provider requests per completion with `graphTools` (per target); past it the answer ends with `GRAPH_TOOL_LIMIT`',
  },
  CHAT_GRAPH_TOOL_MAX_CALLS: {
    type: positive,
    default: '8',
    description:
      'graph tool calls run per completion, all steps together; past it the answer ends with `GRAPH_TOOL_LIMIT`',
  },
} satisfies Record<string, Variable<any>>;

export type VariableName = keyof typeof VARIABLES;
/** The parsed value of each variable: its type's value, `undefined` only where there is no default. */
export type Values = {
  [K in VariableName]: (typeof VARIABLES)[K] extends { type: ValueType<infer T> }
    ? (typeof VARIABLES)[K] extends { default: string }
      ? T
      : T | undefined
    : never;
};

/** Built-in chat providers: id, prefix of their variables, defaults. */
export const BUILT_IN_CHAT_PROVIDERS = [
  { id: 'glm', prefix: 'GLM', baseUrl: 'https://open.bigmodel.cn/api/paas/v4', rpm: undefined },
  { id: 'ark', prefix: 'ARK', baseUrl: 'https://ark.cn-beijing.volces.com/api/v3', rpm: undefined },
  // DeepSeek limits concurrency, not requests per minute (api-docs.deepseek.com/quick_start/rate_limit, 2026-11-26).
  { id: 'deepseek', prefix: 'DEEPSEEK', baseUrl: 'https://api.deepseek.com/v1', rpm: undefined },
  { id: 'moonshot', prefix: 'MOONSHOT', baseUrl: 'https://api.moonshot.cn/v1', rpm: undefined },
] as const;

/**
 * Variables every chat provider has, named `<PREFIX>_<suffix>` (`GLM_API_KEY`; for a `CHAT_PROVIDERS` entry the
 * upper-cased id). Defaults that differ by provider are in {@link BUILT_IN_CHAT_PROVIDERS}.
 */
export const PROVIDER_VARIABLES = {
  BASE_URL: {
    type: url,
    defaultText: "the provider's API",
    description:
      'chat provider base URL; setting `<ID>_BASE_URL` or `<ID>_API_KEY` makes the provider live (built in only: config-added ones are always live)',
  },
  API_KEY: { type: text, secret: true, description: "the provider's API key" },
  RPM: {
    type: positive,
    defaultText: 'no limiter',
    description:
      "client-side requests per minute to the provider (DeepSeek limits concurrency instead: the gateway holds at most `CHAT_PROVIDER_MAX_CONNECTIONS` connections to each provider; Kimi's `X-RateLimit-*` headers are followed without it)",
  },
  MODELS: {
    type: modelFacts,
    description:
      'add or correct models without a release: `model:key=value;…,model2:…` with keys `context`, `output` (tokens), `reasoning` (`none`, `off`, `on`/`default`, `always`), `vision`, `tools`, `json` (`true`/`false`); such a model is offered even when the provider does not list it',
    example: 'deepseek-v4-pro:context=1000000;output=384000;reasoning=default',
  },
  DAILY_TOKEN_BUDGET: {
    type: count,
    description:
      'tokens per UTC day the gateway spends on the provider before refusing with `UPSTREAM_QUOTA_EXHAUSTED`',
  },
  CONTEXT_WINDOWS: {
    type: text,
    description:
      'context windows for models without a built-in one, `model=tokens,…` (e.g. `ARK_CONTEXT_WINDOWS=ep-2024…=131072`)',
  },
} satisfies Record<string, Variable<any>>;

export type ProviderVariable = keyof typeof PROVIDER_VARIABLES;
