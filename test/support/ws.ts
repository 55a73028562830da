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
    const timer = setTimeout(() => reject(new Error(`subscription did not end within ${timeoutMs} ms (${results.length} results)`)), timeoutMs);
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
