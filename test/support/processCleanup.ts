import { afterAll } from 'vitest';
import { stopStarted } from './process.js';

/**
 * A setup file (test/vitest.config.ts), run for every test file, the shared project's too: each file's spawned
 * gateways and sandboxes (process.ts) are gone when it ends, whichever file imported process.ts first.
 */
afterAll(stopStarted);
