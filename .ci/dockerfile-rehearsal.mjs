// Runs the Dockerfile's steps without a Docker engine: each stage in its own clean directory (standing in for the
// stage's WORKDIR), its COPY and RUN lines as written, then the runtime stage's CMD and HEALTHCHECK. It proves that
// the image builds from a clean copy and serves /healthz; what it cannot prove: the base image and `USER node`.
// Usage: node .ci/dockerfile-rehearsal.mjs [Dockerfile]   (exit 0 when the runtime answers its healthcheck)
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dockerfile = resolve(root, process.argv[2] ?? 'Dockerfile');
const work = mkdtempSync(join(tmpdir(), 'dockerfile-rehearsal-'));
const log = (line) => console.log(`[rehearsal] ${line}`);

/** Instructions with continuation lines joined and comments dropped. */
function instructions(text) {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [, op, rest] = /^(\S+)\s+(.*)$/.exec(l);
      return { op: op.toUpperCase(), rest };
    });
}

/** `KEY=value KEY2=value` (the only ENV form the Dockerfile uses). */
const envPairs = (rest) => Object.fromEntries(rest.split(/\s+/).map((p) => p.split('=')));
const execForm = (rest) => JSON.parse(rest);

const stages = new Map();
let stage;
for (const { op, rest } of instructions(readFileSync(dockerfile, 'utf8'))) {
  if (op === 'FROM') {
    const name = /\bAS\s+(\S+)/i.exec(rest)?.[1] ?? `stage${stages.size}`;
    stage = { name, dir: join(work, name), workdir: '/', env: {}, cmd: undefined, healthcheck: undefined };
    stages.set(name, stage);
    log(`stage ${name} (${rest.split(/\s+/)[0]})`);
  } else if (op === 'WORKDIR') {
    stage.workdir = rest;
  } else if (op === 'ENV') {
    Object.assign(stage.env, envPairs(rest));
  } else if (op === 'COPY') {
    const words = rest.split(/\s+/);
    const from = words[0].startsWith('--from=') ? stages.get(words.shift().slice('--from='.length)) : undefined;
    const dest = words.pop();
    for (const src of words) {
      // A path inside another stage is absolute in its filesystem: map its WORKDIR prefix onto that stage's directory.
      const source = from ? join(from.dir, src.replace(new RegExp(`^${from.workdir}/?`), '')) : join(root, src);
      const target = dest.endsWith('/') ? join(stage.dir, dest, src.split('/').pop()) : join(stage.dir, dest);
      cpSync(source, target, { recursive: true });
    }
    log(`COPY ${rest}`);
  } else if (op === 'RUN') {
    // `--mount=type=cache,…` keeps npm's cache out of the image; here the machine's own npm cache plays that part.
    const command = rest.replace(/^(--mount=\S+\s+)+/, '');
    log(`RUN ${command}`);
    const run = spawnSync('sh', ['-c', command], {
      cwd: stage.dir,
      env: { ...process.env, ...stage.env },
      stdio: 'inherit',
    });
    if (run.status !== 0) fail(`RUN failed (${run.status}): ${command}`);
  } else if (op === 'CMD') {
    stage.cmd = execForm(rest);
  } else if (op === 'HEALTHCHECK') {
    stage.healthcheck = execForm(rest.slice(rest.indexOf('CMD') + 3).trim());
  } else if (op === 'USER' || op === 'EXPOSE' || op === 'ARG' || op === 'LABEL') {
    log(`${op} ${rest} (not applicable outside a container)`);
  } else {
    fail(`unsupported instruction ${op}: extend the rehearsal`);
  }
}

const runtime = [...stages.values()].at(-1);
if (!runtime.cmd || !runtime.healthcheck) fail('the last stage needs CMD and HEALTHCHECK');
if (existsSync(join(runtime.dir, 'node_modules', 'vitest'))) fail('the runtime stage has dev dependencies (vitest)');
if (existsSync(join(runtime.dir, 'src'))) fail('the runtime stage carries the TypeScript sources');
for (const tool of ['build', 'bench'])
  if (existsSync(join(runtime.dir, 'dist', tool))) fail(`the runtime stage carries the tooling of dist/${tool}`);

// Loopback and a free port instead of the image's 0.0.0.0:4000; the healthcheck reads the same PORT.
const port = await freePort();
const env = { PATH: process.env.PATH, HOME: process.env.HOME, ...runtime.env, HOST: '127.0.0.1', PORT: String(port) };
log(`CMD ${runtime.cmd.join(' ')} (PORT=${port})`);
const server = spawn(runtime.cmd[0], runtime.cmd.slice(1), {
  cwd: runtime.dir,
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});
let output = '';
server.stdout.on('data', (d) => (output += d));
const listening = await waitFor(() => output.includes('gateway listening on'), 60_000);
if (!listening) fail(`the runtime did not start within 60 s:\n${output}`);
const check = spawnSync(runtime.healthcheck[0], runtime.healthcheck.slice(1), {
  cwd: runtime.dir,
  env,
  encoding: 'utf8',
});
server.kill('SIGTERM');
await new Promise((r) => server.once('exit', r));
if (check.status !== 0) fail(`HEALTHCHECK failed with ${check.status}: ${check.stderr}`);
log('HEALTHCHECK passed: the runtime stage serves /healthz');
rmSync(work, { recursive: true, force: true });

function fail(message) {
  console.error(`[rehearsal] ${message}`);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
}

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(check, ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
