import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatProviderConfig } from '../../config/env.js';
import type { Logger } from 'pino';
import { ErrorCode, GatewayError, upstreamError } from '../../errors/codes.js';
import { confirmsRefusal, gatewayAdditions, refusedAddition, type GatewayAddition } from './additions.js';
import type { LearnedFacts } from './models/types.js';

import type { UpstreamDependencies } from '../dependencies.js';
import { undiciErrors } from '../http/undici.js';
import { tooLarge } from '../http/body.js';
import { UpstreamHttp, type UpstreamCaller } from '../http/client.js';
import type { RetryPolicy } from '../http/retry.js';
import type { GatewayCredentials } from '../credentials.js';
import { providerError, streamError, unreadableAnswer } from './errors.js';
import type { ChatModelSpec, ChatProviderSpec } from './provider.js';
import type { ChatModels } from './models/index.js';
import { parseModelList } from './models/listing.js';
import { chatRateLimiter, HeaderRateWindow, type RateLimiter } from './requestRate.js';
import { providerModels, providerSpec } from './registry.js';
import { layCatalogues, watchCatalogueFile } from './catalogue.js';
import { LEARNED_TTL_MS, LearnedFactsStore } from './models/learned.js';
import { SseParser, SseStreamError } from './eventStreamParser.js';
import type { ChatChunk, ChatCompletion, ChatRequest, ChatUsage } from './types.js';
import { chunk, completion, requestBody } from './wire.js';
import type { ResponseBufferBudget } from '../http/bufferBudget.js';
import { FairQueue } from '../http/fairQueue.js';

/** A gateway addition the provider refused, dropped for the one more try. */
type Refused = { field: GatewayAddition; learned: LearnedFacts; error: GatewayError };

/** An opened completion stream: its chunks in order, and a way to stop it (aborts the upstream request). */
/** Who a chat call is for: its request (signal, id for the log) and the gateway client whose turn it takes. */
/** The operation's client (its context's `client`) keeps its place in the provider's fair line of connections. */
export type ChatCaller = UpstreamCaller & { readonly client?: string };

export interface ChatStream extends AsyncIterable<ChatChunk> {
  cancel(): void;
  /**
   * The next chunk (or the end) when it can be had now, what `next()` would settle with at once; undefined when it
   * waits for the provider. A failure is thrown. For a reader that would otherwise await a settled promise per chunk.
   */
  nextNow(): IteratorResult<ChatChunk> | undefined;
}

/**
 * One chat provider: request translation, the call through the shared HTTP layer, and the normalized answer or
 * stream. Knows nothing of GraphQL; errors are contract errors from `errors.ts`.
 */
export class ChatClient {
  private readonly url: string;
  /** Kimi's `X-RateLimit-*` headers, as its last answer sent them. */
  readonly rateHeaders: HeaderRateWindow | undefined;

  constructor(
    readonly spec: ChatProviderSpec,
    readonly config: ChatProviderConfig,
    readonly http: UpstreamHttp,
    private readonly limiter: RateLimiter | undefined,
    readonly credentials: GatewayCredentials,
    /** The provider's connections, shared fairly between the gateway's clients. */
    readonly connections: FairQueue,
    /** What it offers now: the catalogue, then what its `GET /models` lists (live mode). */
    readonly models: ChatModels,
    private readonly rateLimitWaitMs = 2_000,
    /** Where a learned fact is announced. */
    private readonly log?: Logger,
  ) {
    this.url = `${config.baseUrl}${spec.path ?? '/chat/completions'}`;
    this.rateHeaders = spec.rateLimitHeaders ? new HeaderRateWindow() : undefined;
  }

  /**
   * Reads the provider's `GET {base}/models` and offers what it lists (models/offer.ts). A failure leaves the offer as
   * it was (the catalogue at first) and is returned for the log: the provider is still called for the models known.
   */
  async listModels(signal: AbortSignal): Promise<{ ok: true; count: number } | { ok: false; reason: string }> {
    try {
      const res = await this.http.send({
        method: 'GET',
        url: `${this.config.baseUrl}/models`,
        headers: this.headers(false),
        signal,
        requestId: 'model-list',
        tally: undefined,
        retry: { maxAttempts: 1 },
      });
      // A rejected key is recorded like any other call's: the calls after it are refused without a request.
      if (res.status >= 300)
        return {
          ok: false,
          reason: providerError(this.spec, res.status, res.headers, res.text, this.credentials).message,
        };
      const listed = parseModelList(JSON.parse(res.text));
      this.models.listed(listed, Date.now());
      return { ok: true, count: listed.length };
    } catch (error) {
      return { ok: false, reason: (error as Error).message };
    }
  }

  /**
   * A whole completion (`stream: false`). `retry` narrows the policy (a fallback target is tried once); `caller` is
   * the request it is for, whose client waits its turn when the provider's connections are busy.
   */
  async complete(
    req: ChatRequest,
    model: ChatModelSpec | undefined,
    caller: ChatCaller,
    retry?: Partial<RetryPolicy>,
  ): Promise<ChatCompletion> {
    const { signal, requestId, upstreamRequests: tally } = caller;
    const body = requestBody(this.spec, req, false, model);
    const additions = gatewayAdditions(req, body);
    let status: number;
    let text: string;
    let release: (() => void) | undefined;
    try {
      for (let refused: Refused | undefined; ;) {
        await this.admit(signal);
        release ??= await this.connections.acquire(caller.client ?? '', signal);
        const res = await this.http.send({
          method: 'POST',
          url: this.url,
          headers: this.headers(false),
          body: JSON.stringify(body),
          signal,
          requestId,
          tally,
          retry,
          isFinal: this.quotaSpent,
        });
        this.rateHeaders?.observe(res.headers, Date.now());
        if (res.status < 300) {
          if (refused) await this.learnFrom(refused, undefined, req.model);
          ({ status, text } = res);
          break;
        }
        const error = providerError(this.spec, res.status, res.headers, res.text, this.credentials, req.model);
        refused = await this.dropRefused(error, refused, additions, body, req.model);
      }
      this.credentials.accepted(this.spec.id);
    } catch (error) {
      throw this.failure(error, signal, 'the answer broke off');
    } finally {
      release?.();
    }
    try {
      // DeepSeek's keep-alive blank lines before the body are whitespace to JSON.parse.
      return completion(this.spec, JSON.parse(text));
    } catch (error) {
      throw unreadableAnswer(this.spec, status, (error as Error).message);
    }
  }

  /**
   * A refusal of one of the gateway's own additions (additions.ts): the field is dropped from `body` for one more
   * try. Any other refusal, or the answer to that try, is thrown as it is (after learning from it, when it confirms
   * the first refusal).
   */
  private async dropRefused(
    error: GatewayError,
    before: Refused | undefined,
    additions: readonly GatewayAddition[],
    body: Record<string, unknown>,
    model: string,
  ): Promise<Refused> {
    if (before) {
      await this.learnFrom(before, error, model);
      throw error;
    }
    const refused = refusedAddition(error, additions);
    if (!refused) throw error;
    delete body[refused.field];
    return { ...refused, error };
  }

  /** Records what a refused addition taught, for every replica, and says so in the log: when the next answer confirms it. */
  private async learnFrom(refused: Refused, retried: GatewayError | undefined, model: string): Promise<void> {
    if (!confirmsRefusal(refused.error, retried)) return;
    await this.models.learn(model, refused.learned);
    this.log?.warn(
      {
        provider: this.spec.id,
        model,
        field: refused.field,
        learned: refused.learned,
        upstreamCode: refused.error.extensions.upstreamCode,
      },
      `${this.spec.id} refused ${refused.field}, which the gateway added to a request for ${model}; sent again without it, and learned for every replica (${JSON.stringify(refused.learned)}, source LEARNED)`,
    );
  }

  /**
   * Opens a stream (`stream: true`). Resolves once the provider answered 2xx: a 429 before that is retried per
   * `Retry-After` by the HTTP layer, nothing after. Aborting the caller's signal or calling `cancel()` destroys the connection.
   * `connection`: the release of a connection of this provider its caller waited for already (at admission), which
   * the stream then holds; the upstream request's body is built only once a connection is held.
   */
  async stream(
    req: ChatRequest,
    model: ChatModelSpec | undefined,
    caller: ChatCaller,
    retry?: Partial<RetryPolicy>,
    connection?: () => void,
  ): Promise<ChatStream> {
    const { signal, requestId, upstreamRequests: tally } = caller;
    let body: Readable;
    let release = connection;
    let payload: ReturnType<typeof requestBody> | undefined;
    let additions: readonly GatewayAddition[] = [];
    try {
      for (let refused: Refused | undefined; ;) {
        await this.admit(signal);
        release ??= await this.connections.acquire(caller.client ?? '', signal);
        if (!payload) {
          payload = requestBody(this.spec, req, true, model);
          additions = gatewayAdditions(req, payload);
        }
        const res = await this.http.open({
          method: 'POST',
          url: this.url,
          headers: this.headers(true),
          body: JSON.stringify(payload),
          signal,
          requestId,
          tally,
          retry,
          isFinal: this.quotaSpent,
          headersTimeoutMs: this.http.bodyTimeoutMs,
        });
        body = res.body;
        this.rateHeaders?.observe(res.headers, Date.now());
        if (res.status < 300) {
          const type = String(res.headers['content-type'] ?? '');
          if (!type.includes('text/event-stream'))
            throw unreadableAnswer(
              this.spec,
              res.status,
              `content-type ${type || 'missing'} instead of text/event-stream`,
            );
          if (refused) await this.learnFrom(refused, undefined, req.model);
          break;
        }
        const error = providerError(
          this.spec,
          res.status,
          res.headers,
          await this.http.text(res),
          this.credentials,
          req.model,
        );
        refused = await this.dropRefused(error, refused, additions, payload, req.model);
      }
      this.credentials.accepted(this.spec.id);
    } catch (error) {
      release?.();
      throw this.failure(error, signal, 'the answer broke off');
    }
    // The slot is the stream's connection: free once the body is done, read to its end or destroyed. The caller's
    // signal needs no listener here: undici destroys the body when the signal it was given aborts.
    body.once('close', release);
    if (signal.aborted) body.destroy();
    return new StreamChunks(this, body, signal);
  }

  /**
   * What a failure of the stream's body (or its parser) after `reading.sent` chunks is for the subscriber: the
   * error thrown, or undefined when nothing is lost (the caller left, or the cut came after the finish and its usage).
   */
  streamFailure(error: unknown, signal: AbortSignal, reading: StreamReading): unknown {
    if (signal.aborted) return undefined;
    if (error instanceof GatewayError) return error;
    if (error instanceof SseStreamError) {
      return error.kind === 'size'
        ? tooLarge(this.spec.id, this.http.maxResponseBytes, {
            what: 'one stream event',
            detail: ` after ${reading.sent} chunks`,
          })
        : streamError(this.spec, `sent ${error.message} after ${reading.sent} chunks`);
    }
    if (error instanceof undiciErrors.BodyTimeoutError) {
      const ms = this.http.bodyTimeoutMs;
      return upstreamError(
        ErrorCode.UpstreamTimeout,
        `The ${this.spec.id} stream sent nothing for ${ms} ms after ${reading.sent} chunks (CHAT_STREAM_IDLE_TIMEOUT_MS).`,
        { upstream: this.spec.id },
      );
    }
    // A cut after the finish and its usage lost nothing the subscriber needs.
    if (reading.held && (reading.held.usage ?? reading.usage)) return undefined;
    return streamError(
      this.spec,
      `broke off after ${reading.sent} chunks (${(error as Error).message || 'connection closed'})`,
    );
  }

  /** The stream's last chunk once its body ended: the finish held back, with the usage that came after it. */
  streamEnd(reading: StreamReading): ChatChunk {
    const held = reading.held;
    if (!held)
      throw streamError(
        this.spec,
        reading.done
          ? `ended after ${reading.sent} chunks without a finish reason`
          : `ended after ${reading.sent} chunks without a finish reason or [DONE]`,
      );
    held.usage ??= reading.usage;
    return held;
  }

  headers(stream: boolean): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: stream ? 'text/event-stream' : 'application/json',
      ...(this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
    };
  }

  /** The client-side rate limit: a short wait in line, else UPSTREAM_RATE_LIMITED saying when to retry. */
  async admit(signal: AbortSignal): Promise<void> {
    this.credentials.assertUsable(this.spec.id);
    if (this.rateHeaders) await this.awaitProviderWindow(signal);
    if (!this.limiter) return;
    const verdict = await this.limiter.acquire(signal);
    if (verdict.ok) return;
    const seconds = Math.ceil(verdict.retryAfterMs / 1000);
    const variable = `${this.spec.id.toUpperCase().replace(/-/g, '_')}_RPM`;
    throw upstreamError(
      ErrorCode.UpstreamRateLimited,
      `The gateway sends at most ${this.config.rpm} requests per minute to ${this.spec.id} (${variable}) and has sent that many in the last minute; retry in ${seconds} s.`,
      { upstream: this.spec.id, retryAfter: seconds },
    );
  }

  /** Kimi said no request is left until its reset: wait for it when that is soon, else say when to come back. */
  private async awaitProviderWindow(signal: AbortSignal): Promise<void> {
    const wait = this.rateHeaders!.waitMs(Date.now());
    if (wait > 0 && wait <= this.rateLimitWaitMs) await sleep(wait, undefined, { signal });
    else if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw upstreamError(
        ErrorCode.UpstreamRateLimited,
        `The ${this.spec.id} service said (X-RateLimit-Remaining: 0) that it takes no more requests from this gateway for ${seconds} s; retry then.`,
        { upstream: this.spec.id, retryAfter: seconds },
      );
    }
    this.rateHeaders!.sent();
  }

  /** A 429 that means "no balance / quota used up" (GLM 1113, Moonshot exceeded_current_quota_error, …): retrying only wastes time. */
  readonly quotaSpent = (status: number, body: string): boolean =>
    status === 429 && providerError(this.spec, status, {}, body).extensions.code === ErrorCode.UpstreamQuotaExhausted;

  failure(error: unknown, signal: AbortSignal, what: string): unknown {
    if (error instanceof GatewayError || signal.aborted) return error;
    return upstreamError(
      ErrorCode.UpstreamError,
      `The ${this.spec.id} service failed: ${what} (${(error as Error)?.message ?? 'unknown error'}).`,
      { upstream: this.spec.id },
    );
  }
}

/**
 * Reads every live provider's `GET /models` now and then every CHAT_MODELS_REFRESH_MS (0: now only), each read
 * bounded by 10 s; resolves once the first reads are done, so the gateway starts with the providers' own lists.
 * Sandbox providers keep the catalogue, which is what the sandbox lists.
 */
export async function refreshChatModels(
  s: UpstreamDependencies,
  clients: ReadonlyMap<string, ChatClient>,
): Promise<void> {
  const live = [...clients.values()].filter((c) => c.config.mode === 'live');
  if (live.length === 0) return;
  const readAll = () =>
    Promise.all(
      live.map(async (c) => {
        const result = await c.listModels(AbortSignal.timeout(10_000));
        if (result.ok)
          s.log.info(
            { provider: c.spec.id, models: result.count },
            `${c.spec.id}: ${result.count} models listed by GET /models`,
          );
        else
          s.log.warn(
            { provider: c.spec.id, reason: result.reason },
            `${c.spec.id}: GET /models failed; offering ${c.models.listedAt ? 'its last list' : 'the catalogue'}`,
          );
      }),
    );
  await readAll();
  const every = s.config.chatModelsRefreshMs;
  if (!every) return;
  const timer = setInterval(() => void readAll(), every);
  timer.unref();
  s.onClose.push(() => clearInterval(timer));
}

/** The gateway-wide client of every configured provider, by id: one connection pool and one limiter each. */
export function createChatClients(
  s: UpstreamDependencies,
  bufferBudget: ResponseBufferBudget,
): ReadonlyMap<string, ChatClient> {
  const clients = new Map<string, ChatClient>();
  const specs = s.config.chat.map((config) => providerSpec(config));
  const { catalogues, text } = layCatalogues(s.config.chatModelCatalogueFile, specs);
  const learned = s.state.cache<LearnedFacts>('chat-learned', { max: 2_000, ttlMs: LEARNED_TTL_MS });
  s.config.chat.forEach((config, i) => {
    const http = new UpstreamHttp({
      upstream: config.id,
      metrics: s.metrics,
      log: s.log,
      redact: s.redact,
      // Streams hold their connection for the whole answer: room for many at once.
      connections: s.config.chatProviderMaxConnections,
      // A long non-streaming answer sends its headers only when it is done.
      headersTimeoutMs: 300_000,
      totalTimeoutMs: s.config.chatTimeoutMs,
      // A stream's silence while it is read; a paused (backpressured) stream does not count.
      bodyTimeoutMs: s.config.chatStreamIdleTimeoutMs,
      maxResponseBytes: s.config.upstreamMaxResponseBytes,
      bufferBudget,
      // Writes are retried only on 429, before the answer starts; past 10 s of waiting the caller hears it instead.
      retry: { maxAttempts: 3, budgetMs: 10_000 },
    });
    s.onClose.push(() => http.close());
    const connections = new FairQueue(s.config.chatProviderMaxConnections, config.id);
    const spec = specs[i];
    const warn = (names: string[]) =>
      s.log.warn(
        { provider: config.id, models: names },
        `${config.id} offers ${names.join(', ')}, which the model catalogue does not describe: offered with their window, images, reasoning and effort unknown (what the caller asks goes to ${config.id} as asked); describe them with ${config.id.toUpperCase().replace(/-/g, '_')}_MODELS or CHAT_MODEL_CATALOGUE_FILE`,
      );
    const models = providerModels(
      spec,
      config,
      warn,
      catalogues.get(config.id)!,
      new LearnedFactsStore(learned, config.id),
    );
    clients.set(
      config.id,
      new ChatClient(
        spec,
        config,
        http,
        chatRateLimiter(s, config),
        s.credentials,
        connections,
        models,
        s.config.chatRateLimitWaitMs,
        s.log,
      ),
    );
  });
  watchCatalogueFile(s, clients, text);
  return clients;
}

/**
 * The state of one completion stream's reading: the events of each read become the chunks to yield, in order; the
 * finish chunk is held back until the stream ends (its usage may come in a later event). An event that cannot be read
 * stops the reading as `failure`, after the chunks before it in the same read, as if each had been yielded at once.
 */
class StreamReading {
  held: ChatChunk | undefined;
  usage: ChatUsage | null = null;
  sent = 0;
  /** `[DONE]` came: later events are ignored. */
  done = false;
  failure: GatewayError | undefined;
  private id = '';
  private readonly parser: SseParser;
  /** The chunks of the current read, emptied by the reader once yielded (one array per stream). */
  protected readonly ready: ChatChunk[] = [];

  constructor(
    private readonly spec: ChatProviderSpec,
    maxEventLength: number,
  ) {
    this.parser = new SseParser(maxEventLength);
  }

  read(bytes: Buffer): ChatChunk[] {
    for (const event of this.parser.push(bytes)) {
      if (this.done || this.failure) continue;
      if (event.data === '[DONE]') {
        this.done = true;
        continue;
      }
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        this.failure = streamError(this.spec, `sent an event that is not JSON after ${this.sent} chunks`);
        continue;
      }
      const wire = chunk(this.spec, json);
      if (wire.error) {
        this.failure = streamError(this.spec, `broke off with an error after ${this.sent} chunks`, wire.error);
        continue;
      }
      this.id ||= wire.id;
      if (wire.usage) {
        this.usage = wire.usage;
        if (this.held) this.held.usage = wire.usage;
      }
      for (const c of wire.choices) {
        if (this.held) {
          // Another choice's finish came before: it was not the last chunk after all.
          this.ready.push(this.held);
          this.held = undefined;
        }
        const out: ChatChunk = {
          id: wire.id || this.id,
          index: c.index,
          delta: c.delta,
          finishReason: c.finishReason,
          usage: null,
        };
        if (c.finishReason) {
          out.usage = wire.usage;
          this.held = out;
        } else {
          this.sent += 1;
          this.ready.push(out);
        }
      }
    }
    return this.ready;
  }
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * An opened stream's chunks as the subscriber asks for them, each as soon as its event arrived; only the finish chunk
 * is held back until the events after it (a `choices: []` usage chunk, `[DONE]`), so that the last chunk carries the
 * usage. The body is read only while a `next()` waits (so a subscriber that is behind leaves it unread: TCP
 * backpressure), straight from the Readable: a `for await` over it in an async generator made the stream's iterator,
 * its end-of-stream watcher with five listeners, and a promise per read and per chunk (≈ 5 KB per stream start,
 * bench/PROFILE.md "Sixteenth pass"). One `next()` at a time, as the resolver and `for await` ask.
 */
class StreamChunks extends StreamReading implements ChatStream, AsyncIterator<ChatChunk> {
  private resolve: ((result: IteratorResult<ChatChunk>) => void) | undefined = undefined;
  private reject: ((error: unknown) => void) | undefined = undefined;
  /** Chunks of `ready` already given out. */
  private at = 0;
  /** The last chunk or the error was given: later calls are done. */
  private over = false;

  constructor(
    private readonly client: ChatClient,
    private readonly body: Readable,
    private readonly signal: AbortSignal,
  ) {
    super(client.spec, client.http.maxResponseBytes);
    // One listener for every event of the body: `pump` reads its state. 'error' must have one (else it is thrown).
    body.on('readable', this.pump);
    body.on('end', this.pump);
    body.on('error', this.pump);
    body.on('close', this.pump);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  cancel(): void {
    this.body.destroy();
  }

  /**
   * What can be answered at once (a chunk read already, the end, a failure) is answered with a settled promise: a
   * pending one made a resolver pair, its context and an executor per chunk, though the body mostly holds the next
   * event by the time the subscriber asks for it. Otherwise it waits for the body's next event (`pump`).
   */
  next(): Promise<IteratorResult<ChatChunk>> {
    if (this.over) return Promise.resolve(DONE);
    let now: IteratorResult<ChatChunk> | undefined;
    try {
      now = this.poll();
    } catch (error) {
      return Promise.reject(error);
    }
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  nextNow(): IteratorResult<ChatChunk> | undefined {
    return this.over ? DONE : this.poll();
  }

  /** A `for await` left early: the rest of the body is not read. */
  return(): Promise<IteratorResult<ChatChunk>> {
    this.over = true;
    this.body.destroy();
    return Promise.resolve(DONE);
  }

  /** The body's event: answers the waiting `next()`, if any, when it can now. */
  private readonly pump = (): void => {
    if (!this.resolve) return;
    let now: IteratorResult<ChatChunk> | undefined;
    try {
      now = this.poll();
    } catch (error) {
      const reject = this.reject!;
      this.resolve = this.reject = undefined;
      return reject(error);
    }
    if (now) this.answer(now);
  };

  /**
   * The next result from the chunks read, then the body: undefined until the body's next event; a failure is thrown,
   * once (the stream is over then).
   */
  private poll(): IteratorResult<ChatChunk> | undefined {
    const { body, ready } = this;
    for (;;) {
      if (this.at < ready.length) {
        const value = ready[this.at++];
        if (this.at === ready.length) ready.length = this.at = 0;
        return { done: false, value };
      }
      if (this.failure) return this.end(this.client.streamFailure(this.failure, this.signal, this));
      if (body.errored || (body.destroyed && !body.readableEnded))
        return this.end(this.client.streamFailure(body.errored ?? new Error('Premature close'), this.signal, this));
      const bytes = body.read() as Buffer | null;
      if (bytes !== null) {
        // A read whose parser throws (an event over its size, a broken stream) ends the stream there.
        try {
          this.read(bytes);
        } catch (error) {
          this.ready.length = this.at = 0;
          return this.end(this.client.streamFailure(error, this.signal, this));
        }
      } else if (body.readableEnded) return this.end(undefined);
      else return undefined;
    }
  }

  /**
   * The body is over: `failure` ends the stream with it (thrown), else the held finish chunk is the last (or the error
   * it lacks).
   */
  private end(failure: unknown): IteratorResult<ChatChunk> {
    let last: ChatChunk | undefined;
    if (failure === undefined && !this.signal.aborted) {
      try {
        last = this.client.streamEnd(this);
      } catch (error) {
        failure = error;
      }
    }
    this.over = true;
    if (failure !== undefined) throw failure;
    return last ? { done: false, value: last } : DONE;
  }

  private answer(result: IteratorResult<ChatChunk>): void {
    const resolve = this.resolve!;
    this.resolve = this.reject = undefined;
    resolve(result);
  }
}
