import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
    throw new Error(`${chromiumPath} is missing: the browser tests need Debian's chromium (apt-get install -y chromium)`);
  }
  return chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, timeout: 30_000 });
}
