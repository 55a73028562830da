import type { Emulator, UpstreamName } from './types.js';
import { sendJson } from './http.js';

/** Placeholder used only while an emulator is being written; removed once all exist. */
export function notImplemented(name: UpstreamName): Emulator {
  return {
    name,
    handle: (_req, res) => sendJson(res, 501, { error: `${name} emulator not written yet` }),
    faultResponse: (status) => ({ body: { error: { code: String(status), message: 'fault' } } }),
    reset() {},
  };
}
