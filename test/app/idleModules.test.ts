import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { upstreamEnv } from '../../src/bench/lib/stack.js';
import { spawnGateway } from '../support/process.js';
import { useSandbox } from '../support/sandbox.js';

// A module a gateway may never use is loaded with its first use, not at start-up: ioredis with the first Redis
// connection (REDIS_URL), yaml with the first model catalogue file (CHAT_MODEL_CATALOGUE_FILE). Loading them idle cost
// ≈ 7 MB of resident memory on Node 24, which every replica carried (bench/PROFILE.md, "Eleventh pass"); busboy with
// the first multipart request. Of undici only its connection pool is loaded, and not Node's own bundled undici at all
// (≈ 6 MB of heap together, "Thirteenth pass"). The gateway's upstreams are live (a sandbox in this process), as deployed: a gateway serving its own
// sandbox loads the emulators' code too.
describe('modules loaded by an idle gateway', () => {
  const sb = useSandbox();

  it('has neither ioredis, yaml, busboy, undici beyond its pool, nor Node bundled undici, and the graph answers', async () => {
    const fixture = join(import.meta.dirname, '../fixtures/loadedPackages.cjs');
    const p = spawnGateway({ ...upstreamEnv(sb.sandbox.origin), NODE_OPTIONS: `--require ${fixture}` });
    const origin = await p.origin;
    const res = await fetch(`${origin}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ title(imdbId: "tt0133093") { title } }' }),
    });
    expect(((await res.json()) as { data: unknown }).data).toEqual({ title: { title: 'The Matrix' } });
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    const line = (prefix: string) => {
      const found = p.stderr.find((l) => l.startsWith(prefix));
      return JSON.parse(found!.slice(prefix.length)) as string[];
    };
    const loaded = line('loaded packages: ');
    // The fixture sees the packages the gateway does load (so an empty list cannot pass this test).
    expect(loaded).toEqual(expect.arrayContaining(['graphql', 'undici']));
    expect(loaded).not.toContain('ioredis');
    expect(loaded).not.toContain('yaml');
    expect(loaded).not.toContain('busboy');
    // The pool answered the lookup above; its index (fetch, WebSocket, caches, mocks) was never loaded.
    const undici = line('loaded undici files: ');
    expect(undici).toEqual(expect.arrayContaining(['lib/dispatcher/agent.js', 'lib/dispatcher/client-h1.js']));
    expect(undici.filter((f) => f === 'index.js' || /^lib\/(web|mock|cache)\//.test(f))).toEqual([]);
    // An ES import of `node:http` reads its WebSocket getter, which loads Node's bundled undici.
    const builtins = line('loaded builtins: ');
    expect(builtins).toContain('http');
    expect(builtins).not.toContain('internal/deps/undici/undici');
  });
});
