import type { Logger } from 'pino';
import { ErrorCode, upstreamError } from '../../errors/codes.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import { GatewayCredentials } from '../credentials.js';
import { splitBase, UpstreamHttp, type BufferedResponse, type UpstreamCaller } from '../http/client.js';
import type { Cancellation } from '../http/cancellation.js';
import { InFlight } from '../http/inFlight.js';
import { SettleWith, type Settle } from '../http/settle.js';
import { DEFAULT_RETRY_POLICY } from '../http/retry.js';
import {
  MemoryState,
  type DailyQuota,
  type QuotaReservation,
  type SharedCache,
  type SharedState,
} from '../../state/index.js';
import { formEncoded, normalizeOmdbQuery, omdbParams, omdbQueryKey, type OmdbQuery } from './query.js';
import type { OmdbSearchJson, OmdbSeasonJson, OmdbTitleJson } from './types.js';
import type { ResponseBufferBudget } from '../http/bufferBudget.js';
import type { UpstreamDependencies } from '../dependencies.js';

/** What OMDb answered to one {@link OmdbQuery}, errors that are answers (not found, too broad) included. */
export type OmdbAnswer =
  | { kind: 'title'; title: OmdbTitleJson }
  | { kind: 'season'; season: OmdbSeasonJson }
  | { kind: 'search'; search: OmdbSearchJson }
  | { kind: 'notFound'; error: string }
  | { kind: 'tooManyResults'; error: string };

export interface OmdbClientOptions {
  /** `http://www.omdbapi.com`, or the sandbox's `/omdb` base; http and https both work. */
  baseUrl: string;
  apiKey?: string;
  /** Upstream requests allowed per UTC day. @default 1000 */
  dailyQuota: number;
  /** How long an answer is reused. 0 turns the cache off. @default 3600000 */
  cacheTtlMs: number;
  /** Answers kept at most (least recently used go first). 0 turns the cache off. @default 5000 */
  cacheMax: number;
  /** Longest one lookup may take, retries included, before UPSTREAM_TIMEOUT. @default 30000 */
  timeoutMs?: number;
  /** Largest answer read, after decompression. @default 16777216 */
  maxResponseBytes?: number;
  bufferBudget?: ResponseBufferBudget;
  metrics: GatewayMetrics;
  log: Logger;
  redact: (text: string) => string;
  /** Where the quota and the cache live: this process, or Redis shared by every replica. @default a new MemoryState */
  state?: SharedState;
  /** Where a refused key is remembered (one request per backoff window, `/readyz`). @default a record of its own */
  credentials?: GatewayCredentials;
}

/**
 * "Not found" and "Too many results." answers are cached too (they cost quota like any other), but for at most ten
 * minutes, so a title OMDb adds today shows up soon.
 */
export const NEGATIVE_TTL_MS = 10 * 60_000;

const NOT_FOUND = new Set([
  'Movie not found!',
  'Incorrect IMDb ID.',
  'Series or episode not found!',
  'Series not found!',
  'Episode not found!',
]);
const TOO_MANY = 'Too many results.';
const LIMIT = /request limit reached/i;
const UPSTREAM = 'omdb';

/**
 * The OMDb API client: builds requests, reuses answers (a TTL cache keyed by the normalized request, never by the key,
 * shared by the replicas with Redis), coalesces identical requests in flight across operations in front of it, keeps
 * within the daily quota (one count for all replicas with Redis), and maps OMDb's answers to {@link OmdbAnswer} or
 * contract errors. It knows nothing of GraphQL.
 */
export class OmdbClient {
  readonly quota: DailyQuota;
  private readonly http: UpstreamHttp;
  /** Undefined when caching is off (OMDB_CACHE_TTL_MS or OMDB_CACHE_MAX 0). */
  readonly cache?: SharedCache<OmdbAnswer>;
  private readonly inFlight = new InFlight<OmdbAnswer>();
  private readonly credentials: GatewayCredentials;
  /** `<base>/?apikey=<key>`, every request URL's start: made and split once, not per request. */
  private readonly keyed: string;
  /** {@link keyed} split once (`splitBase`). */
  private readonly keyedAt: { origin: string; path: string } | undefined;

  constructor(private readonly options: OmdbClientOptions) {
    this.credentials = options.credentials ?? new GatewayCredentials(options.log);
    this.keyed = `${options.baseUrl}/?${formEncoded([['apikey', options.apiKey ?? '']])}`;
    this.keyedAt = splitBase(this.keyed);
    this.http = new UpstreamHttp({
      upstream: 'omdb',
      metrics: options.metrics,
      log: options.log,
      redact: options.redact,
      totalTimeoutMs: options.timeoutMs,
      maxResponseBytes: options.maxResponseBytes,
      bufferBudget: options.bufferBudget,
    });
    const state = options.state ?? new MemoryState();
    this.quota = state.dailyQuota('omdb', {
      limit: options.dailyQuota,
      onChange: (remaining) => options.metrics.quotaRemaining(UPSTREAM, remaining),
    });
    if (options.cacheMax > 0 && options.cacheTtlMs > 0) {
      this.cache = state.cache<OmdbAnswer>('omdb', { max: options.cacheMax, ttlMs: options.cacheTtlMs });
    }
  }

  /** This replica's cached answer, without a request or a change of recency. */
  peek(query: OmdbQuery): OmdbAnswer | undefined {
    return this.cache?.local(omdbQueryKey(query), false);
  }

  /**
   * OMDb's answer to `query`: from the cache, from an identical request already in flight, or from a new request.
   * The caller's signal stops its wait; the shared request is cancelled only when every caller waiting on it is gone,
   * and its log lines carry the requestId of the caller that started it.
   */
  get(query: OmdbQuery, caller?: UpstreamCaller): Promise<OmdbAnswer> {
    // The key of the query as asked (its loader made it already): normalizing first gives the same key.
    const key = omdbQueryKey(query);
    const cached = this.cache?.local(key);
    if (cached) {
      this.options.metrics.upstreamCache.series(UPSTREAM, 'hit').inc();
      return Promise.resolve(cached);
    }
    // A lookup by id needs no normalized copy: its request is its key, and only its kind is read after.
    const q = query.kind === 'byId' ? query : normalizeOmdbQuery(query);
    return this.inFlight.run(
      key,
      (cancel, flight) => this.lookup(q, key, cancel, flight, caller),
      // The operation's controller when it has one: reading `signal` would make the AbortSignal nobody else needs.
      caller && (caller.aborts ?? caller.signal),
      () => this.options.metrics.upstreamCache.series(UPSTREAM, 'coalesced').inc(),
    );
  }

  /**
   * One flight: the shared cache (another replica may have fetched it), else OMDb. Without a shared cache it is
   * OMDb's request itself, its answer handed to the flight as it comes: no promise of its own.
   */
  private lookup(
    q: OmdbQuery,
    key: string,
    cancel: Cancellation,
    flight: Settle<OmdbAnswer>,
    caller: UpstreamCaller | undefined,
  ): Promise<OmdbAnswer> | void {
    const { metrics } = this.options;
    if (!this.cache?.shared) {
      metrics.upstreamCache.series(UPSTREAM, 'miss').inc();
      return this.fetch(q, key, cancel, flight, caller);
    }
    return this.cache.get(key).then((shared) => {
      metrics.upstreamCache.series(UPSTREAM, shared ? 'hit' : 'miss').inc();
      return shared ?? new Promise((resolve, reject) => this.fetch(q, key, cancel, { resolve, reject }, caller));
    });
  }

  /** Sends the request within the quota; OMDb's answer, or the error, goes to `to`. */
  private fetch(
    q: OmdbQuery,
    key: string,
    cancel: Cancellation,
    to: Settle<OmdbAnswer>,
    caller: UpstreamCaller | undefined,
  ): void {
    if (!this.options.apiKey) throw misconfigured('OMDB_API_KEY is not set');
    this.credentials.assertUsable(UPSTREAM);
    // Taken here when this replica can (no promise per request), else asked for.
    const reservation = this.quota.reserveHere();
    if (reservation) return this.send(q, key, cancel, to, caller, reservation);
    this.quota.reserve().then(
      (asked) => {
        try {
          this.send(q, key, cancel, to, caller, asked);
        } catch (error) {
          to.reject(error);
        }
      },
      (error: unknown) => to.reject(error),
    );
  }

  private send(
    q: OmdbQuery,
    key: string,
    cancel: Cancellation,
    to: Settle<OmdbAnswer>,
    caller: UpstreamCaller | undefined,
    reservation: QuotaReservation,
  ): void {
    if (!reservation.granted) throw this.quotaExhausted(reservation.remaining);
    // A lookup by id's key is its query string already (query.ts `byIdKey`).
    const query = q.kind === 'byId' ? key : formEncoded(omdbParams(q));
    const at = this.keyedAt;
    // Retries are requests too: never more attempts than the quota still allows (a retry beyond them is
    // counted afterwards, so another replica may see the count briefly short by the retries in flight). With quota
    // for all of them, the client's own policy (no policy object merged per request).
    const attempts = 1 + reservation.remaining;
    this.http.sendTo(
      {
        method: 'GET',
        url: `${this.keyed}&${query}`,
        origin: at?.origin,
        path: at && `${at.path}&${query}`,
        cancel,
        requestId: caller?.requestId,
        tally: caller?.upstreamRequests,
        retry: attempts < DEFAULT_RETRY_POLICY.maxAttempts ? { maxAttempts: attempts } : undefined,
      },
      new OmdbReply(this, q, key, to),
    );
  }

  /**
   * OMDb's answer to `q` made of its HTTP answer: at once when nothing is left to wait for, else once the retries
   * are counted, the limit recorded or the answer cached.
   */
  answerOf(res: BufferedResponse, q: OmdbQuery, key: string): OmdbAnswer | Promise<OmdbAnswer> {
    if (res.attempts > 1) return this.quota.add(res.attempts - 1).then(() => this.answered(res, q, key));
    return this.answered(res, q, key);
  }

  private answered(res: BufferedResponse, q: OmdbQuery, key: string): OmdbAnswer | Promise<OmdbAnswer> {
    let body: { Response?: string; Error?: string } & Record<string, unknown>;
    try {
      body = JSON.parse(res.text) as typeof body;
    } catch {
      body = {};
    }
    const error = typeof body.Error === 'string' ? this.options.redact(body.Error) : undefined;
    const details = { upstream: UPSTREAM, status: res.status };
    if (error && LIMIT.test(error)) {
      return this.quota.exhaust().then(() => {
        throw upstreamError(
          ErrorCode.UpstreamQuotaExhausted,
          `OMDb's daily request limit for the gateway's API key is reached ("${error}"). Cached titles still answer; new lookups work again after the limit resets.`,
          { ...details, upstreamCode: error, retryAfter: this.quota.secondsUntilReset() },
        );
      });
    }
    if (res.status === 401)
      throw this.credentials.rejected(
        UPSTREAM,
        'OMDB_API_KEY',
        `OMDb rejected the gateway's API key ("${error ?? 'HTTP 401'}").`,
        details,
      );
    if (res.status === 429) {
      throw upstreamError(
        ErrorCode.UpstreamRateLimited,
        'OMDb is rate limiting the gateway (HTTP 429); retry shortly.',
        details,
      );
    }
    if (res.status !== 200 || (body.Response !== 'True' && body.Response !== 'False')) {
      throw upstreamError(
        ErrorCode.UpstreamError,
        `OMDb answered HTTP ${res.status}${error ? ` ("${error}")` : ' without an OMDb body'}; retry later.`,
        error ? { ...details, upstreamCode: error } : details,
      );
    }

    this.credentials.accepted(UPSTREAM);
    let answer: OmdbAnswer;
    if (body.Response === 'False') {
      if (error && NOT_FOUND.has(error)) answer = { kind: 'notFound', error };
      else if (error === TOO_MANY) answer = { kind: 'tooManyResults', error };
      else
        throw upstreamError(
          ErrorCode.UpstreamError,
          `OMDb could not answer ("${error ?? 'no error text'}"); retry later.`,
          { ...details, upstreamCode: error },
        );
    } else if (q.kind === 'search') answer = { kind: 'search', search: body as unknown as OmdbSearchJson };
    else if (q.kind === 'season') answer = { kind: 'season', season: body as unknown as OmdbSeasonJson };
    else answer = { kind: 'title', title: body as unknown as OmdbTitleJson };

    // No cache (OMDB_CACHE_MAX or OMDB_CACHE_TTL_MS 0): no async call to wait for nothing.
    if (this.cache) return this.remember(q, key, answer).then(() => answer);
    return answer;
  }

  /** Cached before the flight ends, so another replica asking next finds it. */
  private async remember(q: OmdbQuery, key: string, answer: OmdbAnswer): Promise<void> {
    if (!this.cache) return;
    const negative = answer.kind === 'notFound' || answer.kind === 'tooManyResults';
    const writes = [
      this.cache.set(key, answer, negative ? Math.min(NEGATIVE_TTL_MS, this.options.cacheTtlMs) : undefined),
    ];
    // A title found by name is the same record as by its ID: later lookups by that ID need no request.
    if (answer.kind === 'title' && q.kind === 'byTitle' && answer.title.imdbID) {
      writes.push(this.cache.set(omdbQueryKey({ kind: 'byId', imdbId: answer.title.imdbID, plot: q.plot }), answer));
    }
    await Promise.all(writes);
  }

  /** The refusal when `needed` requests (`what` needs them) would cross the daily quota, `remaining` being left. */
  quotaExhausted(remaining: number, needed = 1, what = 'this lookup') {
    return upstreamError(
      ErrorCode.UpstreamQuotaExhausted,
      `The gateway's OMDb quota of ${this.quota.limit} requests per UTC day would be exceeded: ${remaining} remain today and ${what} can need ${needed}. Select fewer details or titles, or retry after 00:00 UTC; cached titles still answer.`,
      { upstream: 'omdb', retryAfter: this.quota.secondsUntilReset() },
    );
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

/** Where the HTTP layer hands one OMDb request's answer: OMDb's answer made of it goes on to `to` (the flight). */
class OmdbReply extends SettleWith<BufferedResponse, OmdbAnswer> {
  constructor(
    private readonly client: OmdbClient,
    private readonly q: OmdbQuery,
    private readonly key: string,
    to: Settle<OmdbAnswer>,
  ) {
    super(to);
  }

  protected answerOf(res: BufferedResponse): OmdbAnswer | Promise<OmdbAnswer> {
    return this.client.answerOf(res, this.q, this.key);
  }
}

function misconfigured(reason: string, status?: number) {
  return upstreamError(
    ErrorCode.UpstreamError,
    `The gateway is misconfigured: ${reason}. Set OMDB_API_KEY to a valid OMDb key (or unset OMDB_BASE_URL and OMDB_API_KEY to use the sandbox) and restart.`,
    { upstream: 'omdb', status },
  );
}

/** The gateway-wide OMDb client, built once at start-up (clients.ts). */
export function createOmdbClient(s: UpstreamDependencies, bufferBudget: ResponseBufferBudget): OmdbClient {
  const client = new OmdbClient({
    ...s.config.omdb,
    timeoutMs: s.config.upstreamTimeoutMs,
    maxResponseBytes: s.config.upstreamMaxResponseBytes,
    bufferBudget,
    metrics: s.metrics,
    log: s.log,
    redact: s.redact,
    state: s.state,
    credentials: s.credentials,
  });
  s.onClose.push(() => client.close());
  return client;
}
