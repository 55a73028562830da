import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { JsonRpcCode } from '../../../src/transports/mcp/jsonRpc.js';

// The MCP SDK (and the zod schemas it validates with) loads on the first call to /mcp, not at start-up
// (src/transports/mcp/sdk.ts): a gateway no agent talks to does not carry it.
const src = join(import.meta.dirname, '../../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

describe('the MCP SDK, loaded when an agent first calls', () => {
  it('is imported at run time by sdk.ts alone (type imports elsewhere; the benchmark clients aside)', () => {
    const loading = sources(src)
      .filter((file) => !relative(src, file).startsWith('bench/'))
      .filter(
        (file) =>
          /^import (?!type )[^;]*from '@modelcontextprotocol\/sdk/m.test(readFileSync(file, 'utf8')) ||
          /import\('@modelcontextprotocol\/sdk/.test(readFileSync(file, 'utf8')),
      )
      .map((file) => relative(src, file));
    expect(loading).toEqual(['transports/mcp/sdk.ts']);
  });

  it('has jose imported at run time by no module: it loads with the first token to check (auth.ts)', () => {
    const loading = sources(src)
      .filter((file) => /^import (?!type )[^;]*from 'jose'/m.test(readFileSync(file, 'utf8')))
      .map((file) => relative(src, file));
    expect(loading).toEqual([]);
  });

  it("answers refusals with the SDK's own JSON-RPC codes", () => {
    for (const [name, code] of Object.entries(JsonRpcCode))
      expect(code, name).toBe(ErrorCode[name as keyof typeof ErrorCode]);
  });
});
