import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** Names of the emulated upstreams; each is served under `/<name>` on the sandbox server. */
export type UpstreamName = 'graph' | 'login' | 'omdb' | 'glm' | 'ark' | 'deepseek' | 'moonshot';

export const UPSTREAM_NAMES: readonly UpstreamName[] = ['graph', 'login', 'omdb', 'glm', 'ark', 'deepseek', 'moonshot'];

/** A request as an emulator sees it: the path below the emulator's prefix, the parsed query, the whole body. */
export interface SandboxRequest {
  method: string;
  /** Path below the upstream prefix, percent-decoded per segment is left to the emulator: e.g. `/v1.0/admin`. */
  path: string;
  /** Raw query string without the leading `?` (OData parsing needs it undecoded). */
  rawQuery: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The whole body; empty for a route whose emulator reads the body itself (`Emulator.streamsBody`). */
  body: Buffer;
  /** The body unread, for a route whose emulator streams it (a file upload): it is never held in memory whole. */
  stream?: IncomingMessage;
  /** What `GET /_sandbox/requests` shows as this request's body when the emulator read it itself. */
  recordBody(summary: string): void;
  /** Fires when the client goes away before the response ended. */
  signal: AbortSignal;
}

/** A fault queued through `POST /_sandbox/faults`. */
export interface Fault {
  upstream: UpstreamName;
  /** How many of the next requests of `upstream` get it. @default 1 */
  times: number;
  /** Answer with this status and the upstream's own error envelope instead of serving the request. */
  status?: number;
  /** `Retry-After` header value (seconds) to send with `status`. */
  retryAfter?: number;
  /** Wait this long before answering (or before failing). */
  delayMs?: number;
  /** Destroy the connection instead of answering (the client sees ECONNRESET / socket hang up). */
  reset?: boolean;
  /** Streaming responses: destroy the connection after this many SSE events (non-streaming: after half the body). */
  cutAfterChunks?: number;
  /** Only requests whose path and query contain this text get the fault (also `$batch` items, by their relative url). */
  match?: string;
  /**
   * Only requests whose body contains this text get the fault: chat calls share one URL, so this is how a test aims a
   * fault at one operation's request (e.g. its message text).
   */
  matchBody?: string;
  /** With `status`: this JSON body instead of the emulator's own error envelope (e.g. a specific vendor error code). */
  body?: unknown;
}

/** What the core hands an emulator for one request. */
export interface EmulatorContext {
  /** Set when a queued fault asks the emulator to cut its stream. */
  cutAfterChunks?: number;
  /** Base URL of this emulator as the client reached it, e.g. `http://127.0.0.1:4010/graph`. */
  baseUrl: string;
  settings: SandboxSettings;
  /** Milliseconds since epoch; tests of quotas and token expiry may move it. */
  now(): number;
  /**
   * Takes a queued fault for a sub-request the emulator serves itself (a `$batch` item), matched against `url`.
   * The emulator applies it: `status` (+ `retryAfter`) as that item's response, `delayMs` as a wait.
   */
  takeFault(url: string): Fault | undefined;
}

/** Tunables of the emulators, changeable at run time through `POST /_sandbox/config`. */
export interface SandboxSettings {
  /** OMDb requests allowed per key per UTC day. @default 1000 */
  omdbDailyQuota: number;
  /**
   * Milliseconds between streamed chat tokens (a non-streaming answer waits as long per token). The default is a pace
   * a person can read and stop; tests and benchmarks set their own. @default {@link HUMAN_TOKEN_DELAY_MS}
   */
  chatTokenDelayMs: number;
  /**
   * How much an emulated chat answer says: `long` (about 10 s at the human pace: time to try Stop) while a person
   * watches, `short` for tests and benchmarks. @default 'short'
   */
  chatAnswerLength: ChatAnswerLength;
  /** Requests per minute each chat provider accepts before its own 429. @default {} (unlimited) */
  chatRpm: Partial<Record<'glm' | 'ark' | 'deepseek' | 'moonshot', number>>;
  /**
   * Requests each chat provider has open at once before its own 429 (DeepSeek limits concurrency: 500 on
   * deepseek-v4-pro, the lower of its two models). @default { deepseek: 500 }
   */
  chatConcurrency: Partial<Record<'glm' | 'ark' | 'deepseek' | 'moonshot', number>>;
  /** Lifetime in seconds of tokens the identity platform issues. @default 3599 */
  tokenLifetimeSeconds: number;
  /**
   * Kimi's files API limits: files per account, bytes per file, bytes in all. @default Kimi's own: 1,000 files,
   * 100 MB each, 10 GB (tests lower them to reach them)
   */
  fileLimits: { maxFiles: number; maxFileBytes: number; maxTotalBytes: number };
}

/**
 * The pause between chat tokens a person can watch: an answer of 60 tokens takes 2.4 s, time enough to press Stop
 * (`SANDBOX_TOKEN_DELAY_MS` of `npm start` and `npm run sandbox` defaults to it).
 */
export const HUMAN_TOKEN_DELAY_MS = 40;

/** Longest pause between chat tokens the sandbox accepts (`SANDBOX_TOKEN_DELAY_MS`, `POST /_sandbox/config`). */
export const MAX_TOKEN_DELAY_MS = 10_000;

export const CHAT_ANSWER_LENGTHS = ['short', 'long'] as const;
export type ChatAnswerLength = (typeof CHAT_ANSWER_LENGTHS)[number];

export const DEFAULT_SETTINGS: SandboxSettings = {
  omdbDailyQuota: 1000,
  chatTokenDelayMs: HUMAN_TOKEN_DELAY_MS,
  chatAnswerLength: 'short',
  chatRpm: {},
  chatConcurrency: { deepseek: 500 },
  tokenLifetimeSeconds: 3599,
  fileLimits: { maxFiles: 1000, maxFileBytes: 100 * 1024 * 1024, maxTotalBytes: 10 * 1024 * 1024 * 1024 },
};

/** A control call below `/_sandbox/<upstream>`, e.g. `POST /incident` for `POST /_sandbox/graph/incident`. */
export interface ControlRequest {
  method: string;
  path: string;
  /** The parsed JSON body, undefined when there was none. */
  body: unknown;
  /** The sandbox clock (see `POST /_sandbox/clock`). */
  now(): number;
}

export interface ControlResponse {
  status: number;
  body: unknown;
}

export interface Emulator {
  name: UpstreamName;
  /** The emulator's own control routes under `/_sandbox/<name>/`; undefined when the route is not one of them. */
  control?(req: ControlRequest): ControlResponse | undefined;
  handle(req: SandboxRequest, res: ServerResponse, ctx: EmulatorContext): Promise<void> | void;
  /** Whether the emulator reads this route's body itself, as a stream (file uploads of up to 100 MB). */
  streamsBody?(method: string, path: string): boolean;
  /** The upstream's own error response for an injected `status` (body and extra headers). */
  faultResponse(status: number, ctx: EmulatorContext): { body: unknown; headers?: Record<string, string> };
  /** Forget mutable state (writes, quotas, rate windows), back to the deterministic seed. */
  reset(): void;
}
