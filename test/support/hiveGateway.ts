import { spawnHiveGateway } from '../../src/bench/lib/hiveGateway.js';
import type { Proc } from '../../src/bench/lib/proc.js';

/** Hive Gateway (the npm package's CLI) serving the supergraph that `dir`'s gateway.config.mjs names, on loopback. */
export function startHiveGateway(dir: string): Promise<{ proc: Proc; url: string }> {
  return spawnHiveGateway('hive-gateway', dir);
}
