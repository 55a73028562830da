import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnGateway, titleThenStop } from '../support/process.js';

// A package a gateway may never use is loaded with its first use, not at start-up: ioredis with the first Redis
// connection (REDIS_URL), yaml with the first model catalogue file (CHAT_MODEL_CATALOGUE_FILE). Loading them idle cost
// ≈ 7 MB of resident memory on Node 24, which every replica carried (bench/PROFILE.md, "Eleventh pass").
describe('packages loaded by an idle gateway', () => {
  it('has neither ioredis nor yaml when neither is configured, and the graph answers', async () => {
    const fixture = join(import.meta.dirname, '../fixtures/loadedPackages.cjs');
    // LOG_FORMAT=pretty loads pino-pretty the same way (createRequire, at start): the fixture must see it, so an
    // empty list cannot pass. graphql and undici are no evidence: the bundle `npm start` runs carries them inside;
    // ioredis and yaml stay outside it (src/build/bundle.ts `external`), so an import of either at the top shows here.
    const p = spawnGateway({ NODE_OPTIONS: `--require ${fixture}`, LOG_FORMAT: 'pretty' });
    expect(await titleThenStop(p)).toEqual({ data: { title: { title: 'The Matrix' } }, exitCode: 0 });
    const line = p.stderr.find((l) => l.startsWith('loaded packages: '));
    const loaded = JSON.parse(line!.slice('loaded packages: '.length)) as string[];
    expect(loaded).toContain('pino-pretty');
    expect(loaded).not.toContain('ioredis');
    expect(loaded).not.toContain('yaml');
  });
});
