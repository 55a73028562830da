import { createClient, type Client, type FormattedExecutionResult } from 'graphql-ws';
import WebSocket from 'ws';

/** A real graphql-ws client over the `ws` package (Node 20 has no global WebSocket). */
export function wsClient(url: string, connectionParams?: Record<string, unknown>): Client {
  return createClient({ url, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, lazy: true });
}

/** Collects every result of one subscription until it completes or errors (bounded by `timeoutMs`). */
export function collect<T = unknown>(
  client: Client,
  query: string,
  variables?: Record<string, unknown>,
  timeoutMs = 20_000,
): Promise<{ results: FormattedExecutionResult<T, unknown>[]; error?: unknown }> {
  return new Promise((resolve, reject) => {
    const results: FormattedExecutionResult<T, unknown>[] = [];
    const timer = setTimeout(
      () => reject(new Error(`subscription did not end within ${timeoutMs} ms (${results.length} results)`)),
      timeoutMs,
    );
    client.subscribe<T>(
      { query, variables },
      {
        next: (r) => results.push(r),
        error: (error) => {
          clearTimeout(timer);
          resolve({ results, error });
        },
        complete: () => {
          clearTimeout(timer);
          resolve({ results });
        },
      },
    );
  });
}

/**
 * A bare graphql-transport-ws connection over `ws`, for clients the graphql-ws client cannot play: one that stops
 * reading its socket (`pause()`), one that counts raw messages.
 */
export interface RawSubscriber {
  ws: WebSocket;
  /** `next` messages received, by operation id. */
  received: Map<string, unknown[]>;
  /** Resolves with the close code and reason once the socket closed. */
  closed: Promise<{ code: number; reason: string }>;
  subscribe(id: string, query: string, variables?: Record<string, unknown>): void;
  /** Resolves with the errors of operation `id`'s `error` message. */
  errors(id: string, timeoutMs?: number): Promise<unknown[]>;
  /** Resolves once operation `id` has `count` results. */
  results(id: string, count: number, timeoutMs?: number): Promise<unknown[]>;
  /** Stops reading the socket: the gateway's writes pile up in the kernel and then in its own buffer. */
  pause(): void;
  resume(): void;
}

/** Connects and waits for `connection_ack`; rejects, naming the close code, when the server closes first. */
export async function rawSubscriber(
  url: string,
  connectionParams?: Record<string, unknown>,
  headers?: Record<string, string>,
): Promise<RawSubscriber> {
  const ws = new WebSocket(url, 'graphql-transport-ws', { headers });
  const received = new Map<string, unknown[]>();
  const errors = new Map<string, unknown[]>();
  const listeners = new Set<() => void>();
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('close', (code, reason) =>
      reject(new Error(`closed with ${code} ${reason.toString()} before connection_ack`)),
    );
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: connectionParams })));
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as { type: string; id?: string; payload?: unknown };
      if (msg.type === 'connection_ack') resolve();
      else if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong' }));
      else if (msg.type === 'error' && msg.id) {
        errors.set(msg.id, msg.payload as unknown[]);
        for (const l of listeners) l();
      } else if (msg.type === 'next' && msg.id) {
        const list = received.get(msg.id) ?? [];
        list.push(msg.payload);
        received.set(msg.id, list);
        for (const l of listeners) l();
      }
    });
  });
  const socket = () => (ws as unknown as { _socket: import('node:net').Socket })._socket;
  /** Resolves with `probe()` once it is defined, checked at every message; rejects with `failure()` after `timeoutMs`. */
  const waitFor = <T>(probe: () => T | undefined, timeoutMs: number, failure: () => string) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const value = probe();
        if (value === undefined) return false;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(value);
        return true;
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(failure()));
      }, timeoutMs);
      if (!check()) listeners.add(check);
    });
  return {
    ws,
    received,
    closed,
    subscribe: (id, query, variables) =>
      ws.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } })),
    errors: (id, timeoutMs = 20_000) =>
      waitFor(
        () => errors.get(id),
        timeoutMs,
        () => `operation ${id}: no error message within ${timeoutMs} ms`,
      ),
    results: (id, count, timeoutMs = 20_000) =>
      waitFor(
        () => ((received.get(id)?.length ?? 0) >= count ? received.get(id) : undefined),
        timeoutMs,
        () => `operation ${id}: ${received.get(id)?.length ?? 0} of ${count} results within ${timeoutMs} ms`,
      ),
    pause: () => socket().pause(),
    resume: () => socket().resume(),
  };
}
