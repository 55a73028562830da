import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build, preview } from 'vite';
import { buildGraphiql } from '../../src/build/graphiql.js';
import { defaultGraphiqlDistDir } from '../../src/transports/http/graphiql.js';

const chromiumPath = '/usr/bin/chromium';
// Without the background-networking flags Chromium tries Google's hosts at start, which this closed network refuses.
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Debian's Chromium (installed by .ci/run), headless, driven by playwright-core: no browser download at run time. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `${chromiumPath} is missing: the browser tests need Debian's chromium (apt-get install -y chromium)`,
    );
  }
  return chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, timeout: 30_000 });
}

const projectRoot = join(import.meta.dirname, '..', '..');

/**
 * Builds GraphiQL's bundle when it is missing or older than the app or its build script, so a test sees current code.
 * Two test files may ask at once (the build empties its folder first): a lock folder lets one build while the other
 * waits, then finds the bundle current.
 */
export async function ensureGraphiqlBundle(): Promise<void> {
  const lock = join(projectRoot, 'dist', '.graphiql-build.lock');
  mkdirSync(join(projectRoot, 'dist'), { recursive: true });
  for (let waited = 0; ; waited += 100) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock older than any build is left over from a killed run.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (waited > 180_000 || age > 300_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    const index = join(defaultGraphiqlDistDir, 'index.html');
    const sources = [
      join(projectRoot, 'src', 'build', 'graphiql.ts'),
      ...readdirSync(join(projectRoot, 'src', 'graphiql')).map((name) => join(projectRoot, 'src', 'graphiql', name)),
    ];
    const builtAt = existsSync(index) ? statSync(index).mtimeMs : 0;
    if (sources.some((source) => statSync(source).mtimeMs > builtAt)) await buildGraphiql({ report: false });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * examples/web as its users run it: built by Vite for `gatewayUrl` into a temporary folder and served by Vite's
 * preview server on `port` (chosen first: the gateway's CORS_ORIGINS names the page's origin). close() stops the
 * server and removes the folder.
 */
export async function serveWebExample(gatewayUrl: string, port: number): Promise<{ close(): Promise<void> }> {
  const configFile = join(projectRoot, 'examples', 'web', 'vite.config.ts');
  const outDir = mkdtempSync(join(tmpdir(), 'web-example-'));
  const remove = () => rmSync(outDir, { recursive: true, force: true });
  try {
    // Under vitest's NODE_ENV=test React's development build goes in (about 700 kB), past Vite's 500 kB warning.
    await build({
      configFile,
      logLevel: 'warn',
      define: { __GATEWAY_URL__: JSON.stringify(gatewayUrl) },
      build: { outDir, chunkSizeWarningLimit: 1024 },
    });
    const server = await preview({ configFile, logLevel: 'warn', build: { outDir }, preview: { port, open: false } });
    return {
      close: async () => {
        await server.close();
        remove();
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * Every length GraphiQL's Stream panel text takes, recorded in the page as it changes (`window.panelLengths`): a poll
 * from the test, on a loaded machine, sees too few of them (CI at 3b6be34 saw one length of a whole stream).
 */
export async function recordPanel(page: Page): Promise<void> {
  await page.evaluate(() => {
    const lengths: number[] = [];
    (window as unknown as { panelLengths: number[] }).panelLengths = lengths;
    new MutationObserver(() => {
      const length = document.querySelector('.stream-text-content')?.textContent?.length ?? 0;
      if (length !== lengths.at(-1)) lengths.push(length);
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
}
