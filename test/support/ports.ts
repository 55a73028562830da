import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Linux's range for ports the kernel hands out on `listen(0)` and outgoing connections. */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low > 0 && high >= low) return [low, high];
  } catch {
    /* not Linux: the IANA range */
  }
  return [49152, 65535];
}

/**
 * A free loopback port below the ephemeral range, for a server that must know its port before it starts (a page's
 * origin named in CORS_ORIGINS, a redis-server's `--port`). A port from `listen(0)` would be in the range every other
 * test's `listen(0)` and outgoing connection draws from, so on a busy suite another file could take it between the
 * choice and the start; below the range only another such choice can, and the random start makes that unlikely.
 */
export async function portBelowEphemeral(): Promise<number> {
  const [low] = ephemeralRange();
  const floor = Math.max(1024, low - 12_000);
  for (let tries = 0; tries < 50; tries++) {
    const port = floor + Math.floor(Math.random() * (low - floor));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free loopback port between ${floor} and ${low}`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}
