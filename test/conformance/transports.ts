import WebSocket from 'ws';
import type { TestGateway } from '../support/gateway.js';
import { readMultipart } from '../support/multipart.js';

/** An operation as a conformance case sends it. */
export interface ConformanceRequest {
  query?: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
  /** The gateway API key to present (header, or `connectionParams` over graphql-ws). */
  apiKey?: string;
  /** The variables as JSON text, for values JSON.stringify cannot write (it recurses: 10,000 levels overflow it). */
  variablesJson?: string;
  /** More request headers (over graphql-ws, on the upgrade request), e.g. a browser's `Origin`. */
  headers?: Record<string, string>;
}

type ResultError = { message: string; extensions?: Record<string, any> };
/** A result, or a payload of incremental delivery (`hasNext`, and `incremental` parts with their own errors). */
export type Result = {
  data?: any;
  errors?: ResultError[];
  extensions?: Record<string, any>;
  hasNext?: boolean;
  incremental?: Array<{
    data?: any;
    items?: unknown[];
    path: Array<string | number>;
    label?: string;
    errors?: ResultError[];
  }>;
};

/** What a client of one transport saw, in the same terms for every transport. */
export interface Outcome {
  /** Every result received, in order; a refusal before any stream is one result with its errors. */
  results: Result[];
  /**
   * How it ended: `complete` is the protocol's normal end (HTTP's whole JSON body, graphql-ws `complete`, SSE
   * `event: complete`, multipart's closing boundary), `error` a refusal (a graphql-ws `error` message, an HTTP 4xx/5xx
   * before the stream, a WebSocket closed at `connection_init`), `cut` a connection that ended without either.
   */
  end: 'complete' | 'error' | 'cut';
  /** HTTP status where there is one. */
  status?: number;
  /** WebSocket close code, when the socket closed. */
  closeCode?: number;
}

/** What a case may do once the first result arrived: cancel the operation, or close the gateway. */
export type AfterFirst = (control: { cancel(): void }) => void | Promise<void>;

export interface TransportRunner {
  readonly name: string;
  /** Whether it carries subscriptions (plain HTTP does not). */
  readonly streams: boolean;
  run(t: TestGateway, request: ConformanceRequest, afterFirst?: AfterFirst): Promise<Outcome>;
}

const body = (r: ConformanceRequest) => {
  const json = JSON.stringify({ query: r.query, variables: r.variables, extensions: r.extensions });
  return r.variablesJson ? `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}"variables":${r.variablesJson}}` : json;
};
const keyHeader = (r: ConformanceRequest): Record<string, string> => ({
  ...r.headers,
  ...(r.apiKey ? { 'x-api-key': r.apiKey } : {}),
});

/** GraphQL over HTTP, POST with JSON. */
const httpPost: TransportRunner = {
  name: 'http POST',
  streams: false,
  async run(t, r) {
    const res = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...keyHeader(r) },
      body: body(r),
    });
    return {
      results: [(await res.json()) as Result],
      end: res.status < 300 ? 'complete' : 'error',
      status: res.status,
    };
  },
};

/** GraphQL over HTTP, GET with URL parameters (and the preflight header CSRF prevention asks for). */
const httpGet: TransportRunner = {
  name: 'http GET',
  streams: false,
  async run(t, r) {
    const params = new URLSearchParams();
    if (r.query !== undefined) params.set('query', r.query);
    if (r.variables || r.variablesJson) params.set('variables', r.variablesJson ?? JSON.stringify(r.variables));
    if (r.extensions) params.set('extensions', JSON.stringify(r.extensions));
    const res = await fetch(`${t.gateway.url}?${params}`, {
      headers: { 'apollo-require-preflight': 'true', ...keyHeader(r) },
    });
    return {
      results: [(await res.json()) as Result],
      end: res.status < 300 ? 'complete' : 'error',
      status: res.status,
    };
  },
};

/** graphql-ws (`graphql-transport-ws`), spoken message by message so the test sees every frame and the close code. */
const websocket: TransportRunner = {
  name: 'graphql-ws',
  streams: true,
  run(t, r, afterFirst) {
    return new Promise<Outcome>((resolve, reject) => {
      const ws = new WebSocket(t.gateway.wsUrl, 'graphql-transport-ws', { headers: r.headers });
      const results: Result[] = [];
      let end: Outcome['end'] = 'cut';
      const timer = setTimeout(
        () => reject(new Error(`graphql-ws: no end within 15 s (${results.length} results)`)),
        15_000,
      );
      ws.on('open', () =>
        ws.send(JSON.stringify({ type: 'connection_init', payload: r.apiKey ? { 'x-api-key': r.apiKey } : {} })),
      );
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString()) as { type: string; payload?: any };
        if (msg.type === 'connection_ack') ws.send(`{"id":"1","type":"subscribe","payload":${body(r)}}`);
        if (msg.type === 'next') {
          results.push(msg.payload as Result);
          if (results.length === 1 && afterFirst) {
            void afterFirst({
              cancel() {
                ws.send(JSON.stringify({ id: '1', type: 'complete' }));
                end = 'complete';
                ws.close(1000);
              },
            });
          }
        }
        if (msg.type === 'error') {
          results.push({ errors: msg.payload });
          end = 'error';
          ws.close(1000);
        }
        if (msg.type === 'complete') {
          end = 'complete';
          // A cancelled or finished operation: close from this side unless the gateway is closing the socket.
          setTimeout(() => ws.readyState === ws.OPEN && ws.close(1000), 50);
        }
      });
      ws.on('close', (code, reason) => {
        clearTimeout(timer);
        // graphql-ws has no error message before `connection_ack`: it refuses a connection's credentials by closing
        // it with 4403 Forbidden, which is this protocol's UNAUTHENTICATED.
        if (code === 4403) {
          end = 'error';
          results.push({
            errors: [{ message: `closed with 4403: ${reason.toString()}`, extensions: { code: 'UNAUTHENTICATED' } }],
          });
        }
        resolve({ results, end, closeCode: code });
      });
      ws.on('error', () => undefined);
      // An upgrade refused before any socket (the Host and Origin checks): its HTTP answer, as for plain HTTP.
      ws.on('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ results: [JSON.parse(text) as Result], end: 'error', status: res.statusCode });
        });
      });
    });
  },
};

/** GraphQL over SSE, distinct-connections mode: `event: next` / `event: complete` on a POSTed stream. */
const sse: TransportRunner = {
  name: 'SSE',
  streams: true,
  async run(t, r, afterFirst) {
    const controller = new AbortController();
    const res = await fetch(t.gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...keyHeader(r) },
      body: body(r),
      signal: controller.signal,
    });
    if (!res.headers.get('content-type')?.includes('text/event-stream')) {
      return { results: [(await res.json()) as Result], end: 'error', status: res.status };
    }
    const results: Result[] = [];
    let end: Outcome['end'] = 'cut';
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) !== -1) {
          const event = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const type = /^event: (\w+)/m.exec(event)?.[1];
          const data = /^data: ?(.*)$/m.exec(event)?.[1];
          if (type === 'next' && data) {
            results.push(JSON.parse(data) as Result);
            if (results.length === 1 && afterFirst) await afterFirst({ cancel: () => controller.abort() });
          }
          if (type === 'complete') end = 'complete';
        }
      }
    } catch {
      /* the client cancelled, or the connection was cut */
    }
    return { results, end, status: res.status };
  },
};

/**
 * Apollo's multipart protocols, as a client that speaks both asks: subscriptions as `{payload}` parts, a query with
 * `@defer`/`@stream` as the incremental payloads themselves; either closed by the final boundary.
 */
const multipart: TransportRunner = {
  name: 'multipart',
  streams: true,
  async run(t, r, afterFirst) {
    const controller = new AbortController();
    const res = await fetch(t.gateway.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept:
          'multipart/mixed;boundary="graphql";subscriptionSpec="1.0",multipart/mixed;deferSpec=20220824,application/json',
        ...keyHeader(r),
      },
      body: body(r),
      signal: controller.signal,
    });
    if (!res.headers.get('content-type')?.includes('multipart/mixed')) {
      return { results: [(await res.json()) as Result], end: 'error', status: res.status };
    }
    const results: Result[] = [];
    try {
      const read = await readMultipart(res, (part) => {
        const result = 'hasNext' in part ? (part as Result) : part.payload;
        if (result) {
          results.push(result as Result);
          if (results.length === 1 && afterFirst) void afterFirst({ cancel: () => controller.abort() });
        } else if (part.errors) results.push({ errors: part.errors });
      });
      return { results, end: read.closed ? 'complete' : 'cut', status: res.status };
    } catch {
      return { results, end: 'cut', status: res.status };
    }
  },
};

/** Every transport the gateway serves GraphQL on; a new transport is one more runner here. */
export const TRANSPORTS: readonly TransportRunner[] = [httpPost, httpGet, websocket, sse, multipart];
