import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { asciiComments, bundleDir, external } from '../../src/build/bundle.js';
import { startOtlpReceiver } from '../support/otlp.js';
import { spawnGateway, titleThenStop } from '../support/process.js';

// What `npm run build` wrote (the suite builds first when dist/ is stale: test/support/globalSetup.ts). The spawned
// gateways of test/app, test/state and the replica files run this bundle end to end; these cases check what a bundle
// could get wrong without any of them noticing at once.
const root = fileURLToPath(new URL('../..', import.meta.url));
const outputs = readdirSync(bundleDir).filter((name) => name.endsWith('.js'));
const text = (name: string) => readFileSync(join(bundleDir, name), 'utf8');
const sources = (name: string) => (JSON.parse(text(`${name}.map`)) as { sources: string[] }).sources;

describe('the bundle npm start runs (dist/bundle)', () => {
  it('has the gateway and the sandbox entries, and the chunks loaded on first use', () => {
    expect(outputs).toEqual(expect.arrayContaining(['gateway.js', 'sandbox.js']));
    expect(outputs.filter((name) => name.startsWith('chunk-')).length).toBeGreaterThan(2);
  });

  it('gives every module its own location back: each rewritten import.meta.url names a file that exists', () => {
    let rewritten = 0;
    for (const name of outputs) {
      const body = text(name);
      for (const [, rel] of body.matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)) {
        rewritten++;
        expect(existsSync(resolve(bundleDir, rel)), `${name}: ${rel}`).toBe(true);
      }
      // What is left bare is the banner's (require, and the helper for __dirname): the bundle's own folder.
      const bare = body.match(/import\.meta\.url/g)?.length ?? 0;
      const wrapped = body.match(/new URL\("[^"]+", import\.meta\.url\)/g)?.length ?? 0;
      expect(bare - wrapped, name).toBe(2);
      expect(body, name).not.toMatch(/import\.meta\.(?:resolve|dirname|filename)\b/);
      // A package required through createRequire and left to node_modules would bring its own graphql and the like.
      expect(body, name).not.toMatch(/createRequire\d*\(new URL\("[^"]+", import\.meta\.url\)\.href\)\(/);
    }
    // schema/build.js (schema/*.graphql), the GraphiQL handler, the MCP operations, the extractor's child.js.
    expect(rewritten).toBeGreaterThanOrEqual(4);
  });

  it('carries one graphql, none of the packages loaded on first use, and maps back to src/*.ts', () => {
    const all = outputs.flatMap(sources);
    const graphqlCopies = new Set(all.flatMap((s) => /^(.*node_modules\/graphql)\//.exec(s)?.[1] ?? []));
    expect([...graphqlCopies]).toHaveLength(1);
    for (const name of external) expect(all.filter((s) => s.includes(`node_modules/${name}/`))).toEqual([]);
    // tsc's maps are followed: the gateway's own code is named by its TypeScript source, not by dist/*.js.
    const gateway = sources('gateway.js').map((s) => resolve(bundleDir, s));
    expect(gateway).toEqual(expect.arrayContaining([join(root, 'src/main.ts'), join(root, 'src/pipeline/core.ts')]));
    expect(gateway.filter((s) => s.startsWith(join(root, 'dist')))).toEqual([]);
  });

  it('is all ASCII in the gateway chunk: V8 then keeps its source at one byte a character', () => {
    expect(text('gateway.js')).not.toMatch(/[^\x00-\x7f]/);
  });
});

describe('a spawned gateway on the bundle', () => {
  it('loads what it imports on first use from its chunks, CommonJS packages with their named exports: tracing sends spans', async () => {
    // `const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks')` (CommonJS)
    // read undefined from esbuild's split chunk until the build gave it the named exports.
    const receiver = await startOtlpReceiver();
    try {
      const p = spawnGateway({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
      // Stopping flushes the exporter.
      expect(await titleThenStop(p)).toEqual({ data: { title: { title: 'The Matrix' } }, exitCode: 0 });
      expect(receiver.spans.length, p.stderr.join('\n')).toBeGreaterThan(0);
    } finally {
      await receiver.close();
    }
  });
});

describe('asciiComments', () => {
  it('replaces the non-ASCII characters of comments one for one, so the source map stays right', async () => {
    const code = 'const a = 1; // the request’s URL\n/* “quoted” */\nexport { a };\n';
    const out = await asciiComments(code);
    expect(out).toBe('const a = 1; // the request?s URL\n/* ?quoted? */\nexport { a };\n');
    expect(out).toHaveLength(code.length);
  });

  it('never changes code: a regular expression keeps its character, a string with // before one keeps the whole text', async () => {
    expect(await asciiComments('export const WORD = /[’\\-.]/u; // a word’s end\n')).toBe(
      'export const WORD = /[’\\-.]/u; // a word?s end\n',
    );
    const url = 'export const u = "http://example.test/’";\n';
    expect(await asciiComments(url)).toBe(url);
  });
});
