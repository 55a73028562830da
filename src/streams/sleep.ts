import { setTimeout as delay } from 'node:timers/promises';

/** Resolves after `ms`, or rejects with the signal's own reason (not Node's AbortError) when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch((error: unknown) => {
    throw signal?.aborted ? signal.reason : error;
  });
}
