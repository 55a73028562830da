import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { upstreamEnv } from '../../src/bench/lib/stack.js';
import { spawnGateway, titleThenStop } from '../support/process.js';
import { useSandbox } from '../support/sandbox.js';

// A module a gateway may never use is loaded with its first use, not at start-up: ioredis with the first Redis
// connection (REDIS_URL), yaml with the first model catalogue file (CHAT_MODEL_CATALOGUE_FILE). Loading them idle cost
// ≈ 7 MB of resident memory on Node 24, which every replica carried (bench/PROFILE.md, "Eleventh pass"). Nor is Node's
// own bundled undici loaded (an ES import of `node:http` would read its WebSocket getter: ≈ 3 MB of heap, "Thirteenth
// pass"). The gateway runs the bundle `npm start` runs, with live upstreams (a sandbox in this process), as deployed: a
// gateway serving its own sandbox loads the emulators' code too. busboy and undici's index are inside the bundle, so
// this fixture cannot see them; bench/PROFILE.md's thirteenth pass measured them on dist/main.js.
describe('modules loaded by an idle gateway', () => {
  const sb = useSandbox();

  it('has neither ioredis, yaml nor Node bundled undici when unused, and the graph answers', async () => {
    const fixture = join(import.meta.dirname, '../fixtures/loadedPackages.cjs');
    // LOG_FORMAT=pretty loads pino-pretty the same way (createRequire, at start): the fixture must see it, so an
    // empty list cannot pass. graphql and undici are no evidence: the bundle carries them inside; ioredis and yaml
    // stay outside it (src/build/bundle.ts `external`), so an import of either at the top shows here.
    const p = spawnGateway({
      ...upstreamEnv(sb.sandbox.origin),
      NODE_OPTIONS: `--require ${fixture}`,
      LOG_FORMAT: 'pretty',
    });
    expect(await titleThenStop(p)).toEqual({ data: { title: { title: 'The Matrix' } }, exitCode: 0 });
    const line = (prefix: string) => {
      const found = p.stderr.find((l) => l.startsWith(prefix));
      return JSON.parse(found!.slice(prefix.length)) as string[];
    };
    const loaded = line('loaded packages: ');
    expect(loaded).toContain('pino-pretty');
    expect(loaded).not.toContain('ioredis');
    expect(loaded).not.toContain('yaml');
    // An ES import of `node:http` reads its WebSocket getter, which loads Node's bundled undici.
    const builtins = line('loaded builtins: ');
    expect(builtins).toContain('http');
    expect(builtins).not.toContain('internal/deps/undici/undici');
  });
});
