import { createRequire } from 'node:module';
import type * as Undici from 'undici';

// undici's connection pool and its error classes, each from its own file. undici's index loads everything it has at
// once: fetch, WebSocket, EventSource, the HTTP cache, the mock and snapshot dispatchers (and Node's own bundled
// undici with them), ≈ 3.4 MB of heap in every gateway that no upstream client uses (bench/PROFILE.md, "Thirteenth
// pass"). These are the files the index itself loads, so an error is the same class whichever path loaded it.
// undici is pinned in package.json and has no `exports` map; test/app/idleModules.test.ts fails if a new version
// moves them.
const require = createRequire(import.meta.url);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
export const undiciErrors = require('undici/lib/core/errors.js') as typeof Undici.errors;
/** undici's header parser (public as `undici.util.parseHeaders`): what its own handlers make of a raw header list. */
export const parseHeaders = (require('undici/lib/core/util.js') as typeof Undici.util).parseHeaders;
