/**
 * Apollo Router's response-cache invalidation endpoint, emulated on loopback as strictly as the router's own code
 * answers (apollo-router `src/plugins/response_cache/invalidation_endpoint.rs` and `invalidation.rs`, read
 * 2026-11-28; docs/upstreams.md): POST only (405 otherwise); no `Authorization` → 401 "Missing authorization header";
 * a body that is not a JSON array of requests of a known `kind` with its fields → 400; a header that is not the
 * `shared_key` of every subgraph the requests name → 401 "Invalid authorization header"; else 202 `{"count": n}`,
 * n the cached entries the tags dropped (what a test registers with {@link InvalidationEndpoint.cache}).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedRequest =
  | { kind: 'subgraph'; subgraph: string }
  | { kind: 'type'; subgraph: string; type: string }
  | { kind: 'cache_tag'; subgraphs: string[]; cache_tag: string };

export interface Received {
  at: number;
  authorization: string | undefined;
  requests: ReceivedRequest[];
  status: number;
}

export interface InvalidationEndpoint {
  url: string;
  /** Every POST that reached it, answered or refused, in order. */
  received: Received[];
  /** Tags of entries the emulated cache holds, per subgraph: `cache_tag` requests drop them (and count them). */
  cache: Map<string, Set<string>>;
  /** The next `count` requests are answered `status` (a router restarting: 503), before any check. */
  failNext(count: number, status: number, headers?: Record<string, string>): void;
  /** Holds every answer until `release()` (a stalled router). */
  stall(): void;
  release(): void;
  close(): Promise<void>;
}

const error = (res: ServerResponse, status: number, message: string) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ errors: [{ message, extensions: { code: String(status) } }] }));
  return status;
};

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The request as the router's serde reads it, or undefined when it would refuse it. */
function parseRequest(value: unknown): ReceivedRequest | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (r.kind === 'subgraph' && typeof r.subgraph === 'string') return { kind: 'subgraph', subgraph: r.subgraph };
  if (r.kind === 'type' && typeof r.subgraph === 'string' && typeof r.type === 'string')
    return { kind: 'type', subgraph: r.subgraph, type: r.type };
  if (r.kind === 'cache_tag' && isStringArray(r.subgraphs) && typeof r.cache_tag === 'string')
    return { kind: 'cache_tag', subgraphs: r.subgraphs, cache_tag: r.cache_tag };
  return undefined;
}

/** Starts the endpoint; `sharedKeys` by subgraph name (the router's `subgraph.subgraphs.<name>.invalidation.shared_key`). */
export async function startInvalidationEndpoint(sharedKeys: Record<string, string>): Promise<InvalidationEndpoint> {
  const received: Received[] = [];
  const cache = new Map<string, Set<string>>();
  let failures: { count: number; status: number; headers: Record<string, string> } | undefined;
  let stalled: Array<() => void> | undefined;

  function answer(req: IncomingMessage, text: string, res: ServerResponse): number {
    if (failures && failures.count > 0) {
      failures.count--;
      res.writeHead(failures.status, failures.headers);
      res.end();
      return failures.status;
    }
    const authorization = req.headers.authorization;
    if (!authorization) return error(res, 401, 'Missing authorization header');
    if (req.method !== 'POST') return error(res, 405, '');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      return error(res, 400, `failed to deserialize the request body into JSON: ${(e as Error).message}`);
    }
    const requests = Array.isArray(body) ? body.map(parseRequest) : undefined;
    if (!requests || requests.some((r) => r === undefined))
      return error(res, 400, 'failed to deserialize the request body into JSON: not an array of invalidation requests');
    const valid = requests as ReceivedRequest[];
    const names = valid.flatMap((r) => (r.kind === 'cache_tag' ? r.subgraphs : [r.subgraph]));
    if (!names.every((name) => sharedKeys[name] !== undefined && sharedKeys[name] === authorization))
      return error(res, 401, 'Invalid authorization header');
    let count = 0;
    for (const r of valid) {
      for (const subgraph of r.kind === 'cache_tag' ? r.subgraphs : [r.subgraph]) {
        const tags = cache.get(subgraph);
        if (!tags) continue;
        if (r.kind === 'cache_tag') count += tags.delete(r.cache_tag) ? 1 : 0;
        else {
          count += tags.size;
          tags.clear();
        }
      }
    }
    res.writeHead(202, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ count }));
    return 202;
  }

  const server = createServer((req, res) => {
    const entry: Received = { at: Date.now(), authorization: req.headers.authorization, requests: [], status: 0 };
    received.push(entry);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        const body = JSON.parse(text) as unknown;
        if (Array.isArray(body)) entry.requests = body.flatMap((r) => parseRequest(r) ?? []);
      } catch {
        // recorded without requests; answered 400 below
      }
      const run = () => {
        entry.status = answer(req, text, res);
      };
      if (stalled) stalled.push(run);
      else run();
    });
  });
  function release(): void {
    const waiting = stalled ?? [];
    stalled = undefined;
    for (const run of waiting) run();
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/invalidation`,
    received,
    cache,
    failNext(count, status, headers = {}) {
      failures = { count, status, headers };
    },
    stall() {
      stalled ??= [];
    },
    release,
    async close() {
      release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
