import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';

export interface Planned {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A loopback upstream for the interceptor tests: each request takes the next planned answer (else `fallback`);
 * `/reset` resets the socket and `/hang` never answers. `seen` records each request's body.
 */
export async function loopback(status = 200, body = 'ok') {
  const plan: Planned[] = [];
  const seen: Array<{ url: string; body: string; headers: Record<string, unknown> }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ url: req.url!, body: Buffer.concat(chunks).toString(), headers: req.headers });
      if (req.url === '/reset') return req.socket.destroy();
      if (req.url === '/hang') return;
      const next = plan.shift() ?? { status, body };
      res.writeHead(next.status, next.headers);
      res.end(next.body ?? '');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    plan,
    seen,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** One loopback upstream for a test file, its plan and record cleared before each test. */
export function useLoopback(status?: number, body?: string): () => Awaited<ReturnType<typeof loopback>> {
  let up: Awaited<ReturnType<typeof loopback>>;
  beforeAll(async () => (up = await loopback(status, body)));
  afterAll(() => up.close());
  beforeEach(() => {
    up.plan.length = 0;
    up.seen.length = 0;
  });
  return () => up;
}
