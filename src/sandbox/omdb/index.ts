import { notImplemented } from '../notImplemented.js';
export const createOmdbEmulator = () => notImplemented('omdb');
