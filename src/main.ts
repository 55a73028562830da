import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { ConfigError } from './config/env.js';
import { loadStartupConfig } from './app/startupConfig.js';
import { startGateway, type Gateway } from './app/gateway.js';

/**
 * `npm start`: read `.env` when there is one (variables already in the environment win), validate the
 * configuration, serve the graph, stop cleanly on SIGTERM/SIGINT.
 */
// The handlers come first: a process manager that signals as soon as it reads the "listening" line must not meet the
// default action (death by the signal) in the moment between that line and the handlers.
let gateway: Gateway | undefined;
let stopping = false;
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));

const envFile = readEnvFile('.env');
const { config, unknownNames } = await loadStartupConfig(process.env, envFile?.names).catch(exitOnConfigError);
try {
  gateway = await startGateway({ config, envFile, unknownNames });
} catch (error) {
  const problem = listenProblem((error as NodeJS.ErrnoException).code, config.host, config.port);
  if (!problem) exitOnConfigError(error);
  console.error(`configuration error: ${problem}`);
  process.exit(2);
}

function stop(signal: string): void {
  if (stopping) return;
  stopping = true;
  if (!gateway) {
    // Not serving yet: nothing to drain.
    console.log(`received ${signal} while starting; exiting`);
    process.exit(0);
  }
  const running = gateway;
  running.services.log.info({ signal }, `received ${signal}, draining`);
  // Bounded: the pipeline aborts what outlives SHUTDOWN_GRACE_MS and the server then closes every socket; this is the last resort.
  setTimeout(() => process.exit(1), running.services.config.shutdownGraceMs + 5_000).unref();
  running.close().then(
    () => process.exit(0),
    (error: unknown) => {
      running.services.log.error({ err: String(error) }, 'shutdown failed');
      process.exit(1);
    },
  );
}

/** Every configuration problem on its own line, exit code 2; anything else is a bug and keeps its stack trace. */
function exitOnConfigError(error: unknown): never {
  if (!(error instanceof ConfigError)) throw error;
  for (const p of error.problems) console.error(`configuration error: ${p.variable}: ${p.message}`);
  process.exit(2);
}

/** One line naming the variable to change when the listen address cannot be used, instead of a stack trace. */
function listenProblem(code: string | undefined, host: string, port: number): string | undefined {
  if (code === 'EADDRINUSE')
    return `PORT: ${host}:${port} is already in use by another process; stop it or choose another PORT (or HOST).`;
  if (code === 'EACCES')
    return `PORT: not allowed to listen on ${host}:${port} (ports below 1024 need privileges); choose another PORT.`;
  if (code === 'EADDRNOTAVAIL')
    return `HOST: ${host} is not an address of this machine; set HOST to one of its addresses, e.g. 127.0.0.1 or 0.0.0.0.`;
  return undefined;
}

/**
 * Loads a dotenv file into `process.env` (Node's own parser, as `process.loadEnvFile`; what the environment sets
 * already wins), if it exists: `variables` are the names it set, `names` every name it holds (checked at start).
 */
function readEnvFile(path: string): { path: string; variables: string[]; names: string[] } | undefined {
  let parsed: Record<string, string>;
  try {
    parsed = parseEnv(readFileSync(path, 'utf8')) as Record<string, string>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    console.error(`configuration error: ${path}: ${(error as Error).message}`);
    process.exit(2);
  }
  const variables = Object.keys(parsed).filter((name) => process.env[name] === undefined);
  for (const name of variables) process.env[name] = parsed[name];
  return { path, variables, names: Object.keys(parsed) };
}
