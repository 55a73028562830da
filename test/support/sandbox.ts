import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';

/**
 * One sandbox per test file, back to its seed before every test; `control` calls its control API over HTTP, as any
 * client of the sandbox would.
 */
export function useSandbox(settings: Parameters<typeof startSandbox>[0] = {}): {
  readonly sandbox: Sandbox;
  control(path: string, body: unknown): Promise<void>;
} {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox(settings);
  });
  afterAll(() => sandbox?.close());
  const control = async (path: string, body: unknown) => {
    const res = await fetch(`${sandbox!.origin}/_sandbox/${path}`, { method: 'POST', body: JSON.stringify(body) });
    expect(res.status).toBe(200);
  };
  beforeEach(() => control('reset', {}));
  return {
    get sandbox() {
      return sandbox!;
    },
    control,
  };
}
