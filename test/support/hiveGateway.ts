import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnProc, waitReady, type Proc } from '../../src/bench/lib/proc.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Hive Gateway (the npm package's CLI) serving the supergraph that `dir`'s gateway.config.mjs names, on loopback. */
export async function startHiveGateway(dir: string): Promise<{ proc: Proc; url: string }> {
  const port = await freePort();
  const proc = spawnProc('hive-gateway', join(root, 'node_modules/.bin/hive-gateway'), ['supergraph', '--port', String(port), '--host', '127.0.0.1'], { LOG_LEVEL: 'warn' }, dir);
  await waitReady(proc, `http://127.0.0.1:${port}/healthcheck`, 60_000);
  return { proc, url: `http://127.0.0.1:${port}/graphql` };
}
