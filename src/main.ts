import { ConfigError, loadConfig } from './config/env.js';
import { startGateway } from './server/gateway.js';

/** `npm start`: validate the configuration, serve the graph, stop cleanly on SIGTERM/SIGINT. */
let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`configuration error: ${error.message}`);
    process.exit(2);
  }
  throw error;
}
const gateway = await startGateway({ config });
let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  gateway.services.log.info({ signal }, `received ${signal}, draining`);
  // Bounded: the drain plugin force-closes connections after the grace period; this is the last resort.
  setTimeout(() => process.exit(1), config.shutdownGraceMs + 5_000).unref();
  gateway.close().then(
    () => process.exit(0),
    (error: unknown) => {
      gateway.services.log.error({ err: String(error) }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
