// examples/web as its users meet it: the Vite build of the page, served by Vite's preview server, in headless
// Chromium against the real gateway and its sandbox on loopback. Every request the page makes is intercepted: one to
// any host but the gateway and the page's own server fails the test.
// WEB_EXAMPLE_SCREENSHOT=docs/web-example.png also saves the page as docs/clients-and-transports.md shows it.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portBelowEphemeral } from '../support/ports.js';
import { launchChromium, serveWebExample } from '../support/browser.js';
import { makePdf } from '../support/documents.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';

const uiTimeoutMs = 15_000;

describe('examples/web in a browser', () => {
  let gateway: TestGateway;
  let web: { close(): Promise<void> } | undefined;
  let browser: Browser;
  let page: Page;
  let pageOrigin: string;
  /** Hosts of every request and WebSocket the page opened; requests to other hosts are refused and listed in `foreign`. */
  const hosts = new Set<string>();
  const foreign: string[] = [];
  /** graphql-ws messages the page sent, parsed. */
  const wsSent: Array<{ type: string; id?: string; payload?: { query?: string } }> = [];

  const sandboxControl = async (path: string, body: unknown) => {
    const res = await fetch(`${gateway.sandbox.origin}/_sandbox/${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return res.json() as Promise<any>;
  };

  beforeAll(async () => {
    const port = await portBelowEphemeral();
    pageOrigin = `http://127.0.0.1:${port}`;
    gateway = await startTestGateway(
      { LOG_LEVEL: 'warn', CORS_ORIGINS: pageOrigin, GRAPH_POLL_INTERVAL_MS: '100' },
      // Slow enough that the page renders between tokens.
      { chatTokenDelayMs: 40 },
    );
    web = await serveWebExample(gateway.gateway.url, port);

    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1500, height: 900 } });
    const allowed = new Set([new URL(pageOrigin).host, new URL(gateway.gateway.url).host]);
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      hosts.add(url.host);
      if (allowed.has(url.host)) return route.continue();
      foreign.push(url.href);
      return route.abort('blockedbyclient');
    });
    page = await context.newPage();
    page.setDefaultTimeout(uiTimeoutMs);
    page.on('websocket', (socket) => {
      const url = new URL(socket.url());
      hosts.add(url.host);
      if (!allowed.has(url.host)) foreign.push(url.href);
      socket.on('framesent', ({ payload }) => wsSent.push(JSON.parse(String(payload))));
    });
    await page.goto(`${pageOrigin}/`, { timeout: uiTimeoutMs });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await web?.close();
    await gateway?.close();
  });

  const statusOf = (service: string) => () =>
    page.locator(`tr[data-service="${service}"] [data-testid="status"]`).getAttribute('data-status');

  it('renders the service-health board and updates it from serviceHealthChanged after a scripted incident', async () => {
    const operational = page.locator('table.board tr', { has: page.locator('[data-status="SERVICE_OPERATIONAL"]') });
    await operational.first().waitFor();
    expect(await page.locator('table.board tr').count()).toBeGreaterThan(5);
    const service = (await operational.first().getAttribute('data-service'))!;
    const name = await operational.first().locator('td').first().innerText();

    // Only changes seen after subscribing are sent: wait for the subscription, then for two polls behind it.
    await expect
      .poll(() => wsSent.some((m) => m.type === 'subscribe' && m.payload?.query?.includes('HealthChanges')), {
        timeout: uiTimeoutMs,
      })
      .toBe(true);
    const pollsBefore = gateway.upstreamRequests('graph').length;
    await expect
      .poll(() => gateway.upstreamRequests('graph').length, { timeout: uiTimeoutMs })
      .toBeGreaterThanOrEqual(pollsBefore + 2);

    const incident = await sandboxControl('graph/incident', { service, title: 'Sign-ins are delayed' });
    await expect.poll(statusOf(service), { timeout: uiTimeoutMs }).toBe('SERVICE_DEGRADATION');
    await page
      .locator('[data-testid="changes"] li', { hasText: `${name} issue opened: Sign-ins are delayed` })
      .waitFor();

    await sandboxControl(`graph/incident/${encodeURIComponent(incident.issueId)}/next`, {});
    await expect.poll(statusOf(service), { timeout: uiTimeoutMs }).toBe('RESTORING_SERVICE');
  });

  it('shows the search page first and each title’s deferred details when they arrive', async () => {
    // Title lookups (not the search) answer a second late, so the page shows the list before the details.
    const faults = await fetch(`${gateway.sandbox.origin}/_sandbox/faults`, {
      method: 'POST',
      body: JSON.stringify({ upstream: 'omdb', match: 'i=tt', delayMs: 1_000, times: 10 }),
    });
    expect(faults.status).toBe(200);
    gateway.clearUpstreamRequests();

    const answered = page.waitForResponse((r) => r.request().postData()?.includes('query SearchTitles') ?? false);
    await page.getByLabel('Search titles').fill('star');
    await page.getByRole('button', { name: 'Search' }).click();
    expect((await answered).headers()['content-type']).toMatch(/^multipart\/mixed;.*deferSpec=20220824/);
    const items = page.locator('[data-testid="titles"] li[data-imdb-id]');
    await items.first().waitFor();
    const listed = await items.count();
    expect(listed).toBeGreaterThan(1);
    expect(await page.locator('[data-testid="details-pending"]').count()).toBe(listed);

    await expect.poll(() => page.locator('[data-testid="details"]').count(), { timeout: uiTimeoutMs }).toBe(listed);
    expect(await page.locator('[data-testid="details-pending"]').count()).toBe(0);
    // One search request, then one lookup per distinct title.
    const omdb = gateway.upstreamRequests('omdb').map((r) => new URL(r.url, 'http://omdb').searchParams);
    expect(omdb.filter((q) => q.has('s'))).toHaveLength(1);
    const lookups = omdb.filter((q) => q.has('i')).map((q) => q.get('i'));
    expect(new Set(lookups).size).toBe(lookups.length);
    expect(lookups.length).toBe(listed);
  });

  it('streams the chat answer token by token and shows the usage', async () => {
    await expect
      .poll(() => page.getByLabel('Model').locator('option').count(), { timeout: uiTimeoutMs })
      .toBeGreaterThan(3);
    await recordAnswerLengths(page);
    await page.getByLabel('Message').fill('What is a federation gateway?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .locator('[data-testid="chat-state"]', { hasText: /\d+ prompt \+ \d+ completion = \d+ tokens/ })
      .waitFor();

    const lengths = await page.evaluate(() => (window as unknown as { answerLengths: number[] }).answerLengths);
    const final = (await page.locator('[data-testid="answer"]').innerText()).length;
    // The text grew in several steps, never shrank, and ended as the whole answer.
    expect(new Set(lengths.filter((length) => length > 0 && length < final)).size).toBeGreaterThanOrEqual(3);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    expect(lengths.at(-1)).toBe(final);
    console.info(`chat answer lengths seen: ${lengths.join(', ')}`);
    if (process.env.WEB_EXAMPLE_SCREENSHOT) await page.screenshot({ path: process.env.WEB_EXAMPLE_SCREENSHOT });
  });

  it('stops a streaming answer, and the gateway aborts the provider request', async () => {
    gateway.clearUpstreamRequests();
    await page.getByLabel('Message').fill('Tell me everything. [[long:2000]]');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.locator('[data-testid="answer"]');
    await expect.poll(async () => (await answer.innerText()).length, { timeout: uiTimeoutMs }).toBeGreaterThan(40);
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('[data-testid="chat-state"]', { hasText: 'Stopped.' }).waitFor();

    const chat = () => gateway.upstreamRequests().filter((r) => r.upstream !== 'graph' && r.upstream !== 'omdb');
    await expect.poll(() => chat().map((r) => r.aborted), { timeout: uiTimeoutMs }).toEqual([true]);
    const shown = (await answer.innerText()).length;
    // Nothing more arrives after the stop (two more token intervals would have added text).
    await page.waitForTimeout(200);
    expect((await answer.innerText()).length).toBe(shown);
    console.info(
      `stopped after ${shown} characters; upstream ${chat()[0].upstream} request aborted: ${chat()[0].aborted}`,
    );
  });

  it('consults the graph when asked: the model calls a trusted operation and the page names it', async () => {
    // A new conversation: the stopped one asked for a very long answer, and history goes with every message.
    await page.getByRole('button', { name: 'New chat' }).click();
    expect(await page.locator('[data-testid="transcript"] p').count()).toBe(0);
    gateway.clearUpstreamRequests();
    await page.getByLabel('consult the graph').check();
    await page.getByLabel('Message').fill('Is Exchange healthy right now?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('[data-testid="chat-state"]', { hasText: /\d+ tokens/ }).waitFor();
    const consulted = await page.locator('[data-testid="graph-steps"]').innerText();
    expect(consulted).toMatch(/^Consulted: \w+/);
    // One provider request asked for the call, another answered with its result.
    expect(gateway.upstreamRequests('glm').length).toBeGreaterThanOrEqual(2);
    await page.getByLabel('consult the graph').uncheck();
  });

  it('attaches a document: uploaded once as a GraphQL multipart request, its text in every turn, deleted on Remove', async () => {
    await page.getByRole('button', { name: 'New chat' }).click();
    await page.getByLabel('Model').selectOption('moonshot/kimi-k2.6');
    gateway.clearUpstreamRequests();
    const pdf = makePdf([['Quarterly report.', 'Region 3 grew by 12 percent.'], ['Region 5 shrank by 2 percent.']]);
    await page
      .getByLabel('Attach a document')
      .setInputFiles({ name: 'quarterly.pdf', mimeType: 'application/pdf', buffer: pdf });
    await page
      .locator('[data-testid="document"]', { hasText: /quarterly\.pdf: \d+ tokens, kept by moonshot/ })
      .waitFor();
    const files = () =>
      gateway
        .upstreamRequests('moonshot')
        .map((r) => `${r.method} ${r.url.replace(/\/files\/c[a-z0-9]{19}/, '/files/{id}')}`);
    expect(files()).toEqual([
      'POST /moonshot/v1/files',
      'GET /moonshot/v1/files/{id}/content',
      'POST /moonshot/v1/tokenizers/estimate-token-count',
    ]);

    for (const question of ['Which region grew?', 'And which shrank?']) {
      await page.getByLabel('Message').fill(question);
      await page.getByRole('button', { name: 'Send' }).click();
      await page.locator('[data-testid="chat-state"]', { hasText: /\d+ tokens/ }).waitFor();
    }
    const turns = gateway.upstreamRequests('moonshot').filter((r) => r.url.endsWith('/chat/completions'));
    expect(turns).toHaveLength(2);
    // Read from Kimi once; in both turns the text comes first, as a system message.
    expect(files().filter((f) => f.endsWith('/content'))).toHaveLength(1);
    for (const turn of turns)
      expect(JSON.parse(turn.body).messages[0]).toEqual({
        role: 'system',
        content: expect.stringContaining('Region 3 grew by 12 percent.'),
      });

    await page.getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => files().at(-1), { timeout: uiTimeoutMs }).toBe('DELETE /moonshot/v1/files/{id}');
    await page.getByLabel('Attach a document').waitFor();
  });

  it('sent no request to any host but the gateway and the page’s own server', async () => {
    expect(foreign).toEqual([]);
    expect([...hosts].sort()).toEqual([new URL(pageOrigin).host, new URL(gateway.gateway.url).host].sort());
    console.info(`hosts requested: ${[...hosts].sort().join(', ')}`);
  });
});

/** Records the answer's length at every DOM change, in the page itself, so no intermediate state is missed. */
async function recordAnswerLengths(page: Page): Promise<void> {
  await page.evaluate(() => {
    const lengths: number[] = [];
    (window as unknown as { answerLengths: number[] }).answerLengths = lengths;
    const transcript = document.querySelector('[data-testid="transcript"]')!;
    new MutationObserver(() => {
      const answer = document.querySelector('[data-testid="answer"]');
      const length = answer ? answer.textContent!.replace('▍', '').length : 0;
      if (length !== lengths.at(-1)) lengths.push(length);
    }).observe(transcript, { childList: true, subtree: true, characterData: true });
  });
}
