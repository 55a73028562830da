import { notImplemented } from '../notImplemented.js';
export const createGraphEmulator = () => notImplemented('graph');
export const createLoginEmulator = () => notImplemented('login');
