// Runs `npm run build` only when dist/ is missing or older than its sources, so `npm start`, `npm run sandbox` and
// `npm run bench` work from a fresh clone without paying for a rebuild every time. Plain Node, no dependencies:
// it runs before anything is compiled. `--check` builds nothing and exits 1 when a build is due (the test suite's
// global setup asks, to know whether its child processes can run the compiled copy).
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

// What the build writes last in each of its steps (tsc, the gateway's bundle, the GraphiQL bundle).
const outputs = ['dist/main.js', 'dist/bundle/gateway.js', 'dist/graphiql/index.html'];
// What the build reads: the code, the schema, and the settings and dependencies that change its output.
const inputs = ['src', 'schema', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function mtimeOf(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The most recently modified file under `path` (itself when a file), or undefined when it does not exist. */
function newestFile(path) {
  let info;
  try {
    info = statSync(path);
  } catch {
    return undefined;
  }
  if (!info.isDirectory()) return { path, mtimeMs: info.mtimeMs };
  let newest;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const candidate = newestFile(join(path, entry.name));
    if (candidate && (!newest || candidate.mtimeMs > newest.mtimeMs)) newest = candidate;
  }
  return newest;
}

function reasonToBuild() {
  let oldestOutput = Infinity;
  for (const output of outputs) {
    const mtimeMs = mtimeOf(join(root, output));
    if (mtimeMs === undefined) return `${output} is missing`;
    oldestOutput = Math.min(oldestOutput, mtimeMs);
  }
  for (const input of inputs) {
    const newest = newestFile(join(root, input));
    if (newest && newest.mtimeMs > oldestOutput) return `${relative(root, newest.path)} changed since the last build`;
  }
  return undefined;
}

const reason = reasonToBuild();
if (reason && process.argv.includes('--check')) {
  console.log(`build: ${reason}`);
  process.exit(1);
}
if (reason) {
  console.log(`build: ${reason}; running npm run build`);
  const result = spawnSync('npm', ['run', 'build'], {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  if (result.error) {
    console.error(`build: could not run npm: ${result.error.message}`);
    process.exit(1);
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}
