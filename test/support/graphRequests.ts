import type { RecordedRequest } from '../../src/sandbox/record.js';
import type { TestGateway } from './gateway.js';

/** Graph requests as `METHOD /path?decoded query`, below `/graph/v1.0`, oldest first. */
export function graphCalls(gw: TestGateway): string[] {
  return gw.upstreamRequests('graph').map(describe);
}

export function describe(r: RecordedRequest): string {
  return `${r.method} ${decodeURIComponent(r.url.replace(/^\/graph\/v1\.0/, ''))}`;
}

/** The items of a recorded `$batch` as `GET /path?decoded query`. */
export function batchItems(r: RecordedRequest): string[] {
  const body = JSON.parse(r.body) as { requests: Array<{ method: string; url: string }> };
  return body.requests.map((item) => `${item.method} ${decodeURIComponent(item.url)}`);
}

/** Resets the emulator's data, faults and record between tests that write. */
export async function resetSandbox(gw: TestGateway): Promise<void> {
  const res = await fetch(`${gw.sandbox.origin}/_sandbox/reset`, { method: 'POST' });
  if (!res.ok) throw new Error(`sandbox reset failed: ${res.status}`);
}
