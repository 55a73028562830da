import { startSandbox } from './server.js';

/** `npm run sandbox`: every emulator on SANDBOX_PORT (default 4010), printing the base URLs. */
const port = Number(process.env.SANDBOX_PORT ?? 4010);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`SANDBOX_PORT must be a port number 0..65535, got ${JSON.stringify(process.env.SANDBOX_PORT)}`);
  process.exit(1);
}
const sandbox = await startSandbox({ port, host: process.env.SANDBOX_HOST ?? '127.0.0.1' });
console.log(`sandbox listening on ${sandbox.origin}`);
for (const [name, url] of Object.entries(sandbox.baseUrls)) console.log(`  ${name.padEnd(9)} ${url}`);
console.log(`  control   ${sandbox.origin}/_sandbox/requests, /_sandbox/faults, /_sandbox/config, /_sandbox/reset`);
const stop = () => sandbox.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
