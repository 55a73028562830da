import type { Client } from 'graphql-ws';
import { Redis } from 'ioredis';
import { omdbCatalog } from '../../src/sandbox/omdb/index.js';
import type { ReplicaCluster } from '../support/replicas.js';

/** How one operation of the chaos load ended, as its client saw it. */
export interface Outcome {
  replica: number;
  /** The loop's phase when the operation started (e.g. `before` / `after` a fault). */
  phase: string;
  /** `answered`: an HTTP response with a GraphQL body; `transport`: no response (the replica is gone); `hung`: no answer within the bound. */
  kind: 'answered' | 'transport' | 'hung';
  /** `extensions.code` of every error in the answer. */
  codes: string[];
  data?: any;
}

/** Longest any operation may take before it counts as hung: far beyond what a healthy answer needs, so never a latency assertion. */
export const HANG_BOUND_MS = 20_000;

/** POSTs one operation to replica `i`, never throwing: every ending is an {@link Outcome}. */
export async function operate(
  cluster: ReplicaCluster,
  replica: number,
  phase: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<Outcome> {
  try {
    const res = await fetch(`${cluster.origins[replica]}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(HANG_BOUND_MS),
    });
    const body = (await res.json()) as { data?: unknown; errors?: Array<{ extensions?: { code?: string } }> };
    return {
      replica,
      phase,
      kind: 'answered',
      codes: (body.errors ?? []).map((e) => e.extensions?.code ?? 'NONE'),
      data: body.data,
    };
  } catch (error) {
    return { replica, phase, kind: (error as Error).name === 'TimeoutError' ? 'hung' : 'transport', codes: [] };
  }
}

/** Movie IDs of the sandbox catalog: each lookup of the load asks for one no other lookup asks for. */
export const MOVIE_IDS = [...omdbCatalog().all()].filter((t) => t.type === 'movie').map((t) => t.imdbID);

export const HEALTH_AND_TITLE =
  'query Mixed($id: ID!) { admin { serviceAnnouncement { healthOverviews(first: 3) { nodes { id status } } } } title(imdbId: $id) { imdbId title } }';

export const COMPLETION =
  'mutation Complete($input: ChatCompletionInput!) { createChatCompletion(input: $input) { content usage { completionTokens } } }';

export const STREAM =
  'subscription Stream($input: ChatCompletionInput!) { chatCompletionStream(input: $input) { delta { content } finishReason } }';

/** One subscription of the load: what arrived, and how it ended. */
export interface TrackedStream {
  replica: number;
  prompt: number;
  tokens: string[];
  finishReason?: string;
  /** `complete`, `error` (a GraphQL error, or the socket closed: `closeCode`), or undefined while running. */
  ended?: 'complete' | 'error';
  closeCode?: number;
  errorCodes?: string[];
  /** Resolves when the first token arrived (or the stream ended before one). */
  started: Promise<void>;
  done: Promise<void>;
}

/** Subscribes and tracks one stream; `done` always resolves, after at most `HANG_BOUND_MS` plus `ms`. */
export function track(
  client: Client,
  replica: number,
  prompt: number,
  input: Record<string, unknown>,
  ms: number,
): TrackedStream {
  let onStart!: () => void;
  let onDone!: () => void;
  const s: TrackedStream = {
    replica,
    prompt,
    tokens: [],
    started: new Promise<void>((r) => (onStart = r)),
    done: new Promise<void>((r) => (onDone = r)),
  };
  const timer = setTimeout(() => {
    stop();
    onStart();
    onDone();
  }, HANG_BOUND_MS + ms);
  const end = (how: 'complete' | 'error') => {
    clearTimeout(timer);
    s.ended = how;
    onStart();
    onDone();
  };
  const stop = client.subscribe<{
    chatCompletionStream: { delta: { content: string | null }; finishReason: string | null };
  }>(
    { query: STREAM, variables: { input } },
    {
      next: (r) => {
        if (r.errors?.length) s.errorCodes = r.errors.map((e) => String(e.extensions?.code));
        const chunk = r.data?.chatCompletionStream;
        if (!chunk) return;
        if (chunk.delta.content) s.tokens.push(chunk.delta.content);
        if (chunk.finishReason) s.finishReason = chunk.finishReason;
        onStart();
      },
      error: (error) => {
        const code = (error as { code?: unknown })?.code;
        if (typeof code === 'number') s.closeCode = code;
        else if (Array.isArray(error))
          s.errorCodes = error.map((e: { extensions?: { code?: unknown } }) => String(e.extensions?.code));
        end('error');
      },
      complete: () => end('complete'),
    },
  );
  return s;
}

/** Reads the shared counters straight from Redis (the key layout of src/state/README.md). */
export class SharedCounters {
  private readonly redis: Redis;
  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  }

  /** Units of today's OMDb quota the replicas reserved together. */
  async quotaUsed(): Promise<number> {
    const counts = await this.redis.hvals(`${this.prefix}quota:omdb:${new Date().toISOString().slice(0, 10)}`);
    return counts.reduce((sum, n) => sum + Number(n), 0);
  }

  /** Slots of the deepseek `RPM` window taken in the last 60 s. */
  async rateSlots(): Promise<number> {
    return this.redis.zcount(`${this.prefix}ratelimit:chat:deepseek`, Date.now() - 60_000, '+inf');
  }

  close(): void {
    this.redis.disconnect();
  }
}

/** Polls until `check` holds, failing after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 30_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
