// GraphiQL as a user meets it: a real headless Chromium against the real gateway on loopback. The page must come
// entirely from the gateway (no CDN, so it works with no internet) and reach subscriptions over graphql-ws.
import { request } from 'node:http';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphiqlExamples } from '../../src/domains/index.js';
import { commentLines } from '../../src/graphiql/examples.js';
import { ensureGraphiqlBundle, launchChromium, recordPanel } from '../support/browser.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { startGraphiqlHarness, type GraphiqlHarness } from '../support/graphiqlHarness.js';

const projectRoot = join(import.meta.dirname, '../..');
const uiTimeoutMs = 15_000;

/** Everything one browser session did, to assert where its traffic went. */
interface Session {
  context: BrowserContext;
  page: Page;
  requests: string[];
  webSockets: string[];
  workers: string[];
  /** `next` payloads received over WebSockets, parsed. */
  wsNext: unknown[];
  consoleErrors: string[];
}

/**
 * A fresh context per test: GraphiQL keeps tabs in localStorage, and the default tabs apply only without them. Pass
 * `context` to open a second window of the same browser profile (same origin storage, so the same tabs).
 */
async function openGraphiql(browser: Browser, origin: string, context?: BrowserContext): Promise<Session> {
  context ??= await browser.newContext({ viewport: { width: 1400, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(uiTimeoutMs);
  const session: Session = { context, page, requests: [], webSockets: [], workers: [], wsNext: [], consoleErrors: [] };
  page.on('request', (req) => session.requests.push(req.url()));
  page.on('worker', (worker) => session.workers.push(worker.url()));
  page.on('websocket', (socket) => {
    session.webSockets.push(socket.url());
    socket.on('framereceived', ({ payload }) => {
      const message = JSON.parse(String(payload)) as { type: string; payload?: unknown };
      if (message.type === 'next') session.wsNext.push(message.payload);
    });
  });
  page.on('console', (message) => {
    if (message.type() === 'error') session.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => session.consoleErrors.push(error.message));
  await page.goto(`${origin}/`, { timeout: uiTimeoutMs });
  await page.locator('.graphiql-query-editor .monaco-editor').waitFor();
  return session;
}

/** Monaco draws spaces as non-breaking spaces. */
async function editorText(page: Page, selector: string): Promise<string> {
  return (await page.locator(`${selector} .view-lines`).innerText()).replace(/\u00a0/g, ' ');
}

async function replaceOperation(page: Page, operation: string, operationName: string): Promise<void> {
  await page.locator('.graphiql-query-editor .view-lines').click();
  await page.keyboard.press('Control+A');
  // insertText, unlike type(), is not subject to Monaco's auto-closing brackets.
  await page.keyboard.insertText(operation);
  // GraphiQL parses the editor on a debounce and picks HTTP or WebSocket from that parse; the active tab takes the
  // operation's name from the same parse, so once it shows the name, executing uses the new operation.
  await expect
    .poll(() => page.locator('.graphiql-tab-active').innerText(), { timeout: uiTimeoutMs })
    .toContain(operationName);
}

/** Runs the operation of the active tab named `operationName`: with several in the tab, Run offers them by name. */
async function run(page: Page, operationName: string): Promise<void> {
  await page.locator('.graphiql-execute-button').click();
  await page.getByRole('menuitem', { name: operationName, exact: true }).click();
}

/** Switches to the example tab of that operation; executing before GraphiQL has parsed it would run the old one. */
async function openTab(page: Page, operationName: string): Promise<void> {
  await page.locator('.graphiql-tab', { has: page.getByText(operationName, { exact: true }) }).click();
  await expect
    .poll(() => page.locator('.graphiql-tab-active').innerText(), { timeout: uiTimeoutMs })
    .toContain(operationName);
  await expect
    .poll(() => editorText(page, '.graphiql-query-editor'), { timeout: uiTimeoutMs })
    .toMatch(new RegExp(`(?:query|mutation|subscription) ${operationName}\\b`));
  // The operation type (HTTP or WebSocket) comes from a debounced parse of the editor.
  await page.waitForTimeout(1_000);
}

function rawGet(url: string, path: string, headers: Record<string, string> = {}) {
  // node:http sends the path as written; fetch() would normalise `..` away before the server sees it.
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(url, { path, headers, timeout: 5_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      });
      req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
      req.on('error', reject);
      req.end();
    },
  );
}

beforeAll(async () => {
  await ensureGraphiqlBundle();
}, 120_000);

describe('GraphiQL in a browser, served by the gateway', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    // Chat tokens 15 ms apart: slow enough to see a stream grow, quick enough for a test.
    gateway = await startTestGateway({ LOG_LEVEL: 'warn', GRAPH_POLL_INTERVAL_MS: '100' }, { chatTokenDelayMs: 15 });
    origin = gateway.gateway.origin;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it('opens with one tab per example the gateway publishes, each titled by its first operation', async () => {
    const { context, page } = await openGraphiql(browser, origin);
    try {
      const examples = graphiqlExamples;
      await expect.poll(() => page.locator('.graphiql-tab').count(), { timeout: uiTimeoutMs }).toBe(examples.length);
      const firstNames = examples.map((tab) => /(?:query|mutation|subscription)\s+(\w+)/.exec(tab.query)![1]);
      expect((await page.locator('.graphiql-tab').allInnerTexts()).map((t) => t.trim())).toEqual(firstNames);
      expect(await page.locator('.graphiql-tab-active').innerText()).toContain(firstNames[0]);
      expect(await editorText(page, '.graphiql-query-editor')).toContain(commentLines(examples[0].title));
    } finally {
      await context.close();
    }
  });

  it('shows every tab whole in a 1,400 px wide window, none scrolled or cut off', async () => {
    const { context, page } = await openGraphiql(browser, origin);
    try {
      await expect
        .poll(() => page.locator('.graphiql-tab').count(), { timeout: uiTimeoutMs })
        .toBe(graphiqlExamples.length);
      const strip = (await page.locator('.graphiql-tabs').boundingBox())!;
      for (const tab of await page.locator('.graphiql-tab').all()) {
        const box = (await tab.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(strip.x);
        expect(box.x + box.width).toBeLessThanOrEqual(strip.x + strip.width);
        // Nothing covers it: the point at its middle is the tab (or inside it).
        const hit = await tab.evaluate(
          (el, [x, y]) => el.contains(document.elementFromPoint(x, y)),
          [box.x + box.width / 2, box.y + box.height / 2],
        );
        expect(hit, await tab.innerText()).toBe(true);
      }
    } finally {
      await context.close();
    }
  });

  it('runs a typed query over HTTP and shows the result', async () => {
    const { context, page, requests } = await openGraphiql(browser, origin);
    try {
      await replaceOperation(page, 'query Typename { __typename }', 'Typename');
      await page.locator('.graphiql-execute-button').click();
      await page.locator('.graphiql-response .view-lines', { hasText: '"__typename": "Query"' }).waitFor();
      expect(requests).toContain(`${origin}/graphql`);
    } finally {
      await context.close();
    }
  });

  it('opens the @defer example as a tab and renders its parts merged, received as multipart over HTTP', async () => {
    const { context, page } = await openGraphiql(browser, origin);
    const contentTypes: string[] = [];
    page.on('response', (response) => {
      if (response.url() === `${origin}/graphql` && response.request().method() === 'POST')
        contentTypes.push(response.headers()['content-type'] ?? '');
    });
    try {
      await openTab(page, 'Movie');
      await run(page, 'Deferred');
      // The last part's fields appear in the one merged result GraphiQL shows.
      await page.locator('.graphiql-response .view-lines', { hasText: '"directors"' }).first().waitFor();
      const shown = await editorText(page, '.graphiql-response');
      expect(shown).toContain('"Star Wars: Episode IV - A New Hope"');
      expect(shown).toContain('"George Lucas"');
      expect(shown).not.toContain('hasNext');
      expect(contentTypes).toContain('multipart/mixed;boundary="-";deferSpec=20220824');
    } finally {
      await context.close();
    }
  });

  it('streams a subscription over the WebSocket on /graphql', async () => {
    const { context, page, webSockets, wsNext } = await openGraphiql(browser, origin);
    try {
      await replaceOperation(page, 'subscription Tick { serverTime(intervalMs: 100, count: 3) }', 'Tick');
      await page.locator('.graphiql-execute-button').click();
      await expect.poll(() => wsNext.length, { timeout: uiTimeoutMs }).toBe(3);
      expect(webSockets).toEqual([`${origin.replace(/^http/, 'ws')}/graphql`]);
      await page.locator('.graphiql-response .view-lines', { hasText: '"serverTime"' }).waitFor();
      const shown = await editorText(page, '.graphiql-response');
      const last = wsNext.at(-1) as { data: { serverTime: string } };
      expect(shown).toContain(`"serverTime": "${last.data.serverTime}"`);
    } finally {
      await context.close();
    }
  });

  it("shows the Stream tab's answer whole in the Stream plugin as it grows: the deltas added up, then how it finished", async () => {
    const { context, page, wsNext } = await openGraphiql(browser, origin);
    try {
      await openTab(page, 'Stream');
      await recordPanel(page);
      await run(page, 'Stream');
      const panel = page.locator('.stream-text');
      await expect
        .poll(() => panel.getAttribute('data-state').catch(() => null), { timeout: uiTimeoutMs, interval: 20 })
        .toBe('done');
      // Seen partway, more than once, each longer than the last: the panel grew with the stream rather than appearing
      // at its end (recorded in the page at each change; a poll from here, on a loaded machine, saw one length).
      const lengths = await page.evaluate(() => (window as unknown as { panelLengths: number[] }).panelLengths);
      expect(lengths.filter((n) => n > 0).length).toBeGreaterThan(2);
      expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
      // The stream opened the panel: on screen, beside the editor, not only in the page.
      expect(await panel.isVisible()).toBe(true);
      expect((await panel.boundingBox())!.width).toBeGreaterThan(150);
      const chunks = wsNext.map(
        (p) =>
          (
            p as {
              data: { chatCompletionStream: { delta: { content: string | null; reasoningContent: string | null } } };
            }
          ).data.chatCompletionStream,
      );
      expect(chunks.length).toBeGreaterThan(5);
      // The reasoning apart, then the answer, each the deltas added up; the answer names the question's subject.
      expect(await page.locator('.stream-text-reasoning').textContent()).toBe(
        chunks.map((c) => c.delta.reasoningContent ?? '').join(''),
      );
      const content = chunks.map((c) => c.delta.content ?? '').join('');
      expect(await page.locator('.stream-text-content').textContent()).toBe(content);
      expect(content).toContain('a GraphQL gateway');
      expect(await page.locator('.stream-text-meta').textContent()).toMatch(
        /^glm \/ glm-4\.7: finished: STOP, \d+ tokens$/,
      );
    } finally {
      await context.close();
    }
  });

  it('runs the live-health walkthrough as written: the mutation from a second window reaches the first', async () => {
    const first = await openGraphiql(browser, origin);
    try {
      // Switching tabs stops the running operation, so the walkthrough keeps this window on the subscription tab.
      await openTab(first.page, 'LiveHealth');
      expect(await editorText(first.page, '.graphiql-query-editor')).toContain('second browser window');
      const pollsBefore = gateway.upstreamRequests('graph').length;
      await run(first.page, 'LiveHealth');
      // Only changes after subscribing are sent: let the poller take its first look before the write.
      await expect
        .poll(() => gateway.upstreamRequests('graph').length, { timeout: uiTimeoutMs })
        .toBeGreaterThanOrEqual(pollsBefore + 2);

      const second = await openGraphiql(browser, origin, first.context);
      await openTab(second.page, 'LiveHealth');
      await run(second.page, 'Degrade');
      await second.page.locator('.graphiql-response .view-lines', { hasText: '"SERVICE_DEGRADATION"' }).waitFor();

      await first.page.locator('.graphiql-response .view-lines', { hasText: '"STATUS_CHANGED"' }).waitFor();
      expect(await editorText(first.page, '.graphiql-response')).toContain('"status": "SERVICE_DEGRADATION"');
      expect(first.wsNext).toEqual([
        {
          data: {
            serviceHealthChanged: expect.objectContaining({
              kind: 'STATUS_CHANGED',
              serviceHealth: { id: 'Exchange', service: 'Exchange Online', status: 'SERVICE_DEGRADATION' },
            }),
          },
          // The feed reads Graph for every subscriber at once: the subscription itself sends no upstream request.
          extensions: { cost: expect.objectContaining({ upstreamRequestsEstimated: 0, upstreamRequests: 0 }) },
        },
      ]);
    } finally {
      await first.context.close();
    }
  });

  it('loads the page, its bundle and all three Monaco workers from the gateway alone', async () => {
    const { context, page, requests, workers, webSockets, consoleErrors } = await openGraphiql(browser, origin);
    try {
      // The GraphQL worker starts once the schema is in; by then the page has fetched everything it needs up front.
      await expect
        .poll(() => workers.map((url) => /\/graphiql\/(\w+)\.worker-/.exec(url)?.[1]).sort(), { timeout: uiTimeoutMs })
        .toEqual(expect.arrayContaining(['editor', 'graphql', 'json']));
      await run(page, 'Upstreams');
      await page.locator('.graphiql-response .view-lines', { hasText: '"data"' }).waitFor();
      const foreign = [...requests, ...workers, ...webSockets].filter(
        (url) => new URL(url).host !== new URL(origin).host,
      );
      expect(foreign).toEqual([]);
      expect(requests.length).toBeGreaterThan(3);
      // A Content-Security-Policy refusal or a failed chunk shows up here.
      expect(consoleErrors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('GraphiQL handler over HTTP', () => {
  let harness: GraphiqlHarness;

  beforeAll(async () => {
    harness = await startGraphiqlHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('answers browsers at / and /graphql with the page, and leaves GraphQL requests to the endpoint', async () => {
    const root = await rawGet(harness.url, '/', { accept: 'text/html' });
    expect(root.status).toBe(200);
    expect(root.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(root.headers['cache-control']).toBe('no-cache');
    expect(root.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(root.body.toString()).toMatch(/<script type="module" src="\/graphiql\/app-[A-Z0-9]{8}\.js">/);
    expect(root.body.toString()).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);

    const browserAtEndpoint = await rawGet(harness.url, '/graphql', { accept: 'text/html,application/xhtml+xml' });
    expect(browserAtEndpoint.body.equals(root.body)).toBe(true);

    const client = await rawGet(harness.url, '/graphql?query=%7Bhello%7D', { accept: 'application/json' });
    expect(JSON.parse(client.body.toString())).toEqual({ data: { hello: 'world' } });
  });

  it('serves hashed assets as immutable, precompressed, and revalidates by ETag', async () => {
    const page = (await rawGet(harness.url, '/')).body.toString();
    const script = /src="(\/graphiql\/app-[A-Z0-9]{8}\.js)"/.exec(page)?.[1] ?? '';
    const plain = await rawGet(harness.url, script);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const brotli = await rawGet(harness.url, script, { 'accept-encoding': 'gzip, deflate, br' });
    expect(brotli.headers['content-encoding']).toBe('br');
    expect(brotli.body.length).toBeLessThan(plain.body.length / 2);
    const gzip = await rawGet(harness.url, script, { 'accept-encoding': 'br;q=0, gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.etag).not.toBe(brotli.headers.etag);

    const again = await rawGet(harness.url, script, { 'if-none-match': String(plain.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('keeps no file in memory: each response reads the representation it sends from disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'graphiql-'));
    const own = await startGraphiqlHarness({ distDir: dir });
    try {
      writeFileSync(join(dir, 'index.html'), '<!doctype html>');
      writeFileSync(join(dir, 'app-AAAAAAAA.js'), 'plain');
      writeFileSync(join(dir, 'app-AAAAAAAA.js.gz'), 'gzip one');
      const plain = await rawGet(own.url, '/graphiql/app-AAAAAAAA.js');
      expect(plain.body.toString()).toBe('plain');
      const first = await rawGet(own.url, '/graphiql/app-AAAAAAAA.js', { 'accept-encoding': 'gzip' });
      expect(first.body.toString()).toBe('gzip one');
      // The plain file (whose mtime marks a new build) is untouched: only a response read after the rewrite sees it.
      writeFileSync(join(dir, 'app-AAAAAAAA.js.gz'), 'gzip two, longer');
      const again = await rawGet(own.url, '/graphiql/app-AAAAAAAA.js', { 'accept-encoding': 'gzip' });
      expect(again.body.toString()).toBe('gzip two, longer');
      expect(again.headers['content-length']).toBe(String('gzip two, longer'.length));
      expect(again.headers.etag).toBe(first.headers.etag);
      // A new build (a new mtime) is hashed anew.
      writeFileSync(join(dir, 'app-AAAAAAAA.js'), 'plain, rebuilt');
      utimesSync(join(dir, 'app-AAAAAAAA.js'), new Date(), new Date(Date.now() + 5_000));
      const rebuilt = await rawGet(own.url, '/graphiql/app-AAAAAAAA.js');
      expect(rebuilt.body.toString()).toBe('plain, rebuilt');
      expect(rebuilt.headers.etag).not.toBe(plain.headers.etag);
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('publishes the example operations at /graphiql/examples.json', async () => {
    const examples = await rawGet(harness.url, '/graphiql/examples.json');
    expect(examples.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(examples.body.toString())).toEqual([
      { title: 'Say hello', query: 'query Hello {\n  hello\n}' },
      { title: 'Watch the clock', query: 'subscription Clock {\n  clock\n}' },
    ]);
  });

  it.each([
    '/graphiql/../package.json',
    '/graphiql/%2e%2e/package.json',
    '/graphiql/..%2f..%2fpackage.json',
    '/graphiql/chunks/..%2f..%2f..%2fpackage.json',
    '/graphiql/%5c..%5c..%5cpackage.json',
    '/graphiql/%00index.html',
    '/graphiql/index.html.br',
    '/graphiql/%E0%A4%A',
  ])('answers 404 for %s', async (path) => {
    const response = await rawGet(harness.url, path);
    expect(response.status).toBe(404);
    expect(response.body.toString()).toBe('Not found\n');
  });

  it('says to run the build when the bundle is missing', async () => {
    const unbuilt = await startGraphiqlHarness({ distDir: join(projectRoot, 'dist', 'graphiql-not-built') });
    try {
      const response = await rawGet(unbuilt.url, '/');
      expect(response.status).toBe(503);
      expect(response.body.toString()).toBe('GraphiQL is not built yet: run `npm run build`.\n');
    } finally {
      await unbuilt.close();
    }
  });
});
