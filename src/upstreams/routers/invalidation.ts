/**
 * Tells federation routers that cached data went stale: Apollo Router's response-cache invalidation endpoint
 * (`response_cache.subgraph.*.invalidation`, Router ≥ 2.10), one POST per router with a JSON array of requests, each
 * `{ "kind": "cache_tag", "subgraphs": [name], "cache_tag": tag }` (or `{ "kind": "subgraph", "subgraph": name }`),
 * and the router's `shared_key` as the whole `Authorization` header (no scheme); the router answers 202 with
 * `{ "count": n }`, 401 for a missing or wrong key, 400 for a body it cannot read. Sources (read 2026-11-28):
 * https://www.apollographql.com/docs/graphos/routing/performance/caching/response-caching/invalidation and the
 * router's `apollo-router/src/plugins/response_cache/invalidation_endpoint.rs` / `invalidation.rs`.
 *
 * Bounded: per router one request in flight; tags arriving meanwhile wait in one set (deduplicated) and leave
 * together; past {@link MAX_PENDING_TAGS} the set becomes one request dropping everything of this subgraph, which is
 * never stale. Each request is retried by the gateway's one retry decision (`retryDelay`, retry.ts: 429, 503, 504 and
 * network failures, `Retry-After` honoured); a request that still fails is logged, at most once a minute per router
 * with the count since. Nothing here is awaited by its caller: a slow router never holds a poll.
 */
import type { Logger } from 'pino';
import { GatewayError } from '../../errors/codes.js';
import { OncePerCause } from '../../observability/oncePerCause.js';
import { sleep } from '../../streams/sleep.js';
import type { RouterInvalidationTarget } from '../../config/env.js';
import type { UpstreamDependencies } from '../dependencies.js';
import { UpstreamHttp } from '../http/client.js';
import { DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelay } from '../http/retry.js';

/** An invalidation request of Apollo Router's endpoint (the kinds this gateway sends). */
export type InvalidationRequest =
  | { kind: 'cache_tag'; subgraphs: string[]; cache_tag: string }
  | { kind: 'subgraph'; subgraph: string };

/** Tags one router may have waiting; past it the next request drops the whole subgraph instead. */
export const MAX_PENDING_TAGS = 1_000;
/** Requests in one POST (a poll that saw many changes sends several). */
const TAGS_PER_REQUEST = 100;
/** One failure line per router per this long. */

/** Routers told when cached data went stale (ROUTER_INVALIDATION_URLS, ROUTER_INVALIDATION_SECRET). */
export class RouterInvalidation {
  private readonly routers: Router[];
  private readonly http: UpstreamHttp;

  constructor(
    dependencies: Pick<UpstreamDependencies, 'metrics' | 'log' | 'redact'>,
    targets: readonly RouterInvalidationTarget[],
    secret: string,
  ) {
    const log = dependencies.log.child({ component: 'router-invalidation' });
    // No retries inside a request: each attempt is decided below with the same retry decision (a POST is retried
    // there on 503, 504 and network failures too, since dropping a tag twice is harmless).
    this.http = new UpstreamHttp({
      upstream: 'routers',
      metrics: dependencies.metrics,
      log,
      redact: dependencies.redact,
      connections: 4,
      totalTimeoutMs: 10_000,
      maxResponseBytes: 64 * 1024,
      retry: { maxAttempts: 1 },
    });
    this.routers = targets.map((t) => new Router(t, secret, this.http, log));
  }

  /** Asks every router to drop what carries one of `tags`; returns at once. */
  invalidate(tags: readonly string[]): void {
    if (tags.length) for (const router of this.routers) router.add(tags);
  }

  /** Resolves once every router has no request in flight nor waiting (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all(this.routers.map((r) => r.settled()));
  }

  async close(): Promise<void> {
    for (const router of this.routers) router.close();
    await this.settled();
  }
}

/** One router: its waiting tags and the one request in flight. */
class Router {
  private pending = new Set<string>();
  private everything = false;
  private sending: Promise<void> | undefined;
  private readonly closed = new AbortController();
  /** Requests that failed since the router last answered, and since the last line about it. */
  private failures = 0;
  private readonly logged = new OncePerCause();

  constructor(
    private readonly target: RouterInvalidationTarget,
    private readonly secret: string,
    private readonly http: UpstreamHttp,
    private readonly log: Logger,
  ) {}

  add(tags: readonly string[]): void {
    if (this.closed.signal.aborted) return;
    if (!this.everything) for (const tag of tags) this.pending.add(tag);
    if (this.pending.size > MAX_PENDING_TAGS) {
      this.everything = true;
      this.pending.clear();
    }
    this.sending ??= this.drain().finally(() => (this.sending = undefined));
  }

  settled(): Promise<void> {
    return this.sending ?? Promise.resolve();
  }

  close(): void {
    this.closed.abort();
  }

  private async drain(): Promise<void> {
    while ((this.pending.size || this.everything) && !this.closed.signal.aborted) {
      const { subgraph } = this.target;
      const requests: InvalidationRequest[] = this.everything
        ? [{ kind: 'subgraph', subgraph }]
        : [...this.pending].map((tag) => ({ kind: 'cache_tag', subgraphs: [subgraph], cache_tag: tag }));
      this.pending = new Set();
      this.everything = false;
      for (let i = 0; i < requests.length; i += TAGS_PER_REQUEST)
        await this.send(requests.slice(i, i + TAGS_PER_REQUEST));
    }
  }

  /** One POST through its attempts; a last failure is logged, never thrown. */
  private async send(requests: InvalidationRequest[]): Promise<void> {
    const body = JSON.stringify(requests);
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      let status: number | 'network';
      let retryAfter: number | undefined;
      let detail: string;
      try {
        const res = await this.http.send({
          method: 'POST',
          url: this.target.url,
          headers: { 'content-type': 'application/json', authorization: this.secret },
          body,
          signal: this.closed.signal,
          tally: undefined,
          requestId: 'router-invalidation',
        });
        if (res.status >= 200 && res.status < 300) return this.succeeded();
        status = res.status;
        retryAfter = parseRetryAfter(res.headers['retry-after']);
        detail = `HTTP ${res.status}${res.status === 401 ? ' (ROUTER_INVALIDATION_SECRET is not its shared_key)' : ''}`;
      } catch (error) {
        if (this.closed.signal.aborted) return;
        status = 'network';
        detail = error instanceof GatewayError ? error.message : String(error);
      }
      const retryable = status === 'network' || DEFAULT_RETRY_POLICY.retryStatuses.includes(status);
      const delay = retryable ? retryDelay(DEFAULT_RETRY_POLICY, attempt, waited, retryAfter) : undefined;
      if (delay === undefined) return this.failed(requests.length, attempt, detail);
      waited += delay;
      // Closing ends the wait at once (no timer left behind to hold the process).
      if (
        !(await sleep(delay, this.closed.signal).then(
          () => true,
          () => false,
        ))
      )
        return;
    }
  }

  private succeeded(): void {
    if (this.failures) this.log.info({ router: this.target.url }, 'router invalidation: the router answers again');
    this.failures = 0;
  }

  private failed(requests: number, attempts: number, detail: string): void {
    this.failures++;
    // Once a minute per router, with the failures left out since its last line.
    const suppressed = this.logged.take('failed');
    if (suppressed === undefined) return;
    this.log.warn(
      { router: this.target.url, requests, attempts, failures: suppressed + 1, err: detail },
      'router invalidation failed: the router keeps those entries until their max-age',
    );
  }
}
