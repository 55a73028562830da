import { notImplemented } from '../notImplemented.js';
import type { Emulator } from '../types.js';
/** Graph v1.0 and the identity platform share one token store, so they are created together. */
export const createGraphEmulators = (): Emulator[] => [notImplemented('graph'), notImplemented('login')];
