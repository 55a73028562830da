import { join } from 'node:path';
import { listeningPort, root, spawnProc, waitReady, type Proc } from './proc.js';

/**
 * Hive Gateway's CLI (`hive-gateway supergraph [file]`, the npm package's) in `dir`, on loopback port 0: the port it
 * got is read from the kernel, so no other process can hold it (a port found free beforehand once went to the other
 * Hive Gateway the bench starts beside this one). Ready once its health check answers.
 */
export async function spawnHiveGateway(
  name: string,
  dir: string,
  options: { supergraph?: string; env?: Record<string, string> } = {},
): Promise<{ proc: Proc; url: string }> {
  const args = [
    'supergraph',
    ...(options.supergraph ? [options.supergraph] : []),
    '--port',
    '0',
    '--host',
    '127.0.0.1',
  ];
  const proc = spawnProc(
    name,
    join(root, 'node_modules/.bin/hive-gateway'),
    args,
    { LOG_LEVEL: 'warn', ...options.env },
    dir,
  );
  try {
    const port = await listeningPort(proc);
    await waitReady(proc, `http://127.0.0.1:${port}/healthcheck`, 60_000);
    return { proc, url: `http://127.0.0.1:${port}/graphql` };
  } catch (error) {
    await proc.stop();
    throw error;
  }
}
