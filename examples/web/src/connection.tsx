import { useSyncExternalStore } from 'react';

/**
 * Why the page cannot reach the gateway, said so that the reader knows what to set. A browser shows a page nothing
 * of a refused cross-origin request ("Failed to fetch", a WebSocket closed with 1006), so on such a failure the page
 * asks once more without reading the answer (`no-cors`): if the gateway answers that, it runs and refused this page's
 * origin, which its CORS_ORIGINS must list; if not, nothing listens at GATEWAY_URL.
 */
export interface ConnectionProblem {
  kind: 'refused' | 'unreachable';
  message: string;
}

let problem: ConnectionProblem | undefined;
let probing = false;
const listeners = new Set<() => void>();

function set(next: ConnectionProblem): void {
  problem = next;
  for (const listener of listeners) listener();
}

/** Whether `error` is a failure below HTTP: no answer the page may read (fetch's TypeError, an abnormal WebSocket close). */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof TypeError) return true;
  return /^Socket closed(?: with event 1006\b|$)|Failed to fetch|NetworkError|Load failed/.test(
    (error as Error | undefined)?.message ?? '',
  );
}

/** Finds out which of the two a failed request met, once; the page shows it until reloaded. */
export function reportUnreachable(gatewayUrl: string): void {
  if (problem || probing) return;
  probing = true;
  const origin = location.origin;
  const gateway = new URL(gatewayUrl);
  fetch(new URL('/healthz', gateway), { mode: 'no-cors', cache: 'no-store' }).then(
    () =>
      set({
        kind: 'refused',
        message: `The gateway at ${gateway.origin} answers, but not to this page: its CORS_ORIGINS does not list ${origin}. Start it with CORS_ORIGINS=${origin} (in its environment or .env), then reload.`,
      }),
    () =>
      set({
        kind: 'unreachable',
        message: `Nothing answers at ${gateway.href}: start the gateway (npm start, with CORS_ORIGINS=${origin}), or point this page at yours with GATEWAY_URL, then reload.`,
      }),
  );
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** The banner saying why the gateway cannot be reached; nothing while it can. */
export function ConnectionHint() {
  const current = useSyncExternalStore(subscribe, () => problem);
  if (!current) return null;
  return (
    <p className="connection-hint" role="alert" data-testid="connection-hint" data-kind={current.kind}>
      {current.message}
    </p>
  );
}
