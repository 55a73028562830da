import { notImplemented } from '../notImplemented.js';
import type { Emulator } from '../types.js';
export const createChatEmulators = (): Emulator[] => (['glm', 'ark', 'deepseek', 'moonshot'] as const).map(notImplemented);
