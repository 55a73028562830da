import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../../../support/gateway.js';
import {
  cpuBombPdf,
  deflatedRun,
  makeEncodedPdf,
  makePdf,
  reportPages,
  upload,
} from '../../../../support/documents.js';
import { signal, spawnGateway } from '../../../../support/process.js';

const MiB = 1024 * 1024;
const KEY_A = 'client-a-key-0123456789';
const KEY_B = 'client-b-key-0123456789';
const as = (key: string) => ({ headers: { 'x-api-key': key } });

/** Resident bytes of `pid`, from /proc. */
function rss(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

describe('a PDF bomb in the real server process', () => {
  it("is refused with its reason, and the gateway's resident memory is back within 50 MB of where it was", async () => {
    const gateway = spawnGateway({ CHAT_DOCUMENT_MAX_EXTRACTED_BYTES: String(16 * MiB) });
    const url = `${await gateway.origin}/graphql`;
    const pid = gateway.child.pid!;
    // The first upload starts the extractors (and the tokenizer): measured after it, as a running gateway is.
    expect(
      (await upload(url, { name: 'warm.pdf', data: makePdf(reportPages(2)) })).body.data.uploadChatDocument.status,
    ).toBe('READY');
    const before = rss(pid);
    // 256 MiB of zeros in 256 KB: past the 16 MiB budget the extractor stops at once.
    const bomb = makeEncodedPdf([{ filter: '/FlateDecode', data: await deflatedRun(256 * MiB) }]);
    const { body } = await upload(url, { name: 'bomb.pdf', data: bomb });
    expect(body.errors?.[0].message).toBe(
      'bomb.pdf yields more than 16 MiB (16777216 bytes) of decompressed streams and text, the most the gateway reads of one document (CHAT_DOCUMENT_MAX_EXTRACTED_BYTES); it was stopped there and nothing was kept. Split it into smaller files, or upload it with provider "moonshot", whose files API reads it.',
    );
    expect(body.errors?.[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'file',
      reason: 'EXTRACTION_LIMIT',
      setting: 'CHAT_DOCUMENT_MAX_EXTRACTED_BYTES',
      max: 16 * MiB,
    });
    const after = rss(pid);
    console.log(`gateway RSS ${Math.round(before / MiB)} MiB before the bomb, ${Math.round(after / MiB)} MiB after`);
    expect(Math.abs(after - before)).toBeLessThan(50 * 1000 * 1000);
    // The gateway still reads documents.
    expect(
      (await upload(url, { name: 'after.pdf', data: makePdf(reportPages(1)) })).body.data.uploadChatDocument.status,
    ).toBe('READY');
  }, 60_000);
});

/**
 * The CPU bomb burns until the limit stops it: on a gateway of its own with a lower limit than the generous one the
 * legitimate documents below keep (the default, 30 s), it burns half the CPU. 4 s still leaves client B's one-page
 * PDF, sent once client A's three next files are queued, seconds to be answered before the bomb is stopped on a
 * loaded machine.
 */
const BOMB_LIMIT_MS = 4000;

describe('a PDF that costs CPU', () => {
  let t: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway({
      GATEWAY_API_KEYS: `${KEY_A},${KEY_B}`,
      CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS: String(BOMB_LIMIT_MS),
    });
    // Both extractors started, as after a gateway's first upload.
    await upload(t.gateway.url, { name: 'warm.txt', data: 'warm' }, as(KEY_B));
  });
  afterAll(() => t.close());

  const spooled = () => t.gateway.services.domains.chatDocuments.extraction.spool.files().then((f) => f.length);

  it("stops a PDF that costs CPU at CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS, while another client's small PDF is answered, and queues the first client's next files on disk", async () => {
    const finished: string[] = [];
    const slow = upload(t.gateway.url, { name: 'slow.pdf', data: cpuBombPdf(200, 3, 8) }, as(KEY_A)).then(
      (r) => (finished.push('A slow'), r),
    );
    await expect
      .poll(() => t.gateway.services.domains.chatDocuments.extraction.extractors.pids.length)
      .toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const queued = Array.from({ length: 3 }, (_, i) =>
      upload(t.gateway.url, { name: `next-${i}.pdf`, data: makePdf(reportPages(1)) }, as(KEY_A)).then(
        (r) => (finished.push(`A next-${i}`), r),
      ),
    );
    await expect.poll(() => t.gateway.services.domains.chatDocuments.extraction.waiting).toBe(3);
    // The slow file and the three waiting behind it: on disk, one spool file each.
    expect(await spooled()).toBe(4);
    const started = performance.now();
    const small = await upload(t.gateway.url, { name: 'small.pdf', data: makePdf(reportPages(1)) }, as(KEY_B));
    const latency = performance.now() - started;
    finished.push('B small');
    expect(small.body.data.uploadChatDocument).toMatchObject({ fileName: 'small.pdf', status: 'READY' });
    const refused = (await slow).body.errors![0];
    expect(refused.message).toBe(
      `Reading slow.pdf took longer than ${BOMB_LIMIT_MS} ms, the most the gateway spends on one document (CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS); it was stopped and nothing was kept. Split it into smaller files, or upload it with provider "moonshot", whose files API reads it.`,
    );
    expect(refused.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'EXTRACTION_LIMIT',
      setting: 'CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS',
      max: BOMB_LIMIT_MS,
    });
    for (const r of await Promise.all(queued)) expect(r.body.data.uploadChatDocument.status).toBe('READY');
    expect(finished.slice(0, 2)).toEqual(['B small', 'A slow']);
    expect(await spooled()).toBe(0);
    console.log(`client B's one-page PDF answered in ${Math.round(latency)} ms while client A's CPU bomb was read`);
  });
});

describe('documents the gateway extracts itself', () => {
  let t: TestGateway;

  beforeAll(async () => {
    t = await startTestGateway({
      GATEWAY_API_KEYS: `${KEY_A},${KEY_B}`,
      CLIENT_COST_PER_MINUTE: '60',
    });
    // Both extractors started, as after a gateway's first upload.
    await upload(t.gateway.url, { name: 'warm.txt', data: 'warm' }, as(KEY_B));
  });
  afterAll(() => t.close());

  it('reads a long text upload off the event loop: a query sent meanwhile is answered first', async () => {
    // 8,000 lines (440 KB): past the 256 Ki characters from which the extractor counts the tokens. Read in 3.9 s alone
    // at load 9, it took over 8 s (this file's limit then) beside ten other files: the default limit (30 s) holds it.
    const text = Array.from(
      { length: 8_000 },
      (_, i) => `Line ${i}: the quick brown fox jumps over the lazy dog.`,
    ).join('\n');
    let uploaded = false;
    const pending = upload(t.gateway.url, { name: 'long.txt', data: text }, as(KEY_B)).then(
      (r) => ((uploaded = true), r),
    );
    await expect
      .poll(() => t.gateway.services.domains.chatDocuments.extraction.extractors.pids.length)
      .toBeGreaterThan(0);
    const { body } = await t.query('{ chatProviders { id } }', {}, { 'x-api-key': KEY_B });
    expect(body.data.chatProviders.length).toBeGreaterThan(0);
    expect(uploaded).toBe(false);
    const answer = (await pending).body;
    const doc = answer.data.uploadChatDocument;
    expect(doc, JSON.stringify(answer.errors)).toMatchObject({
      fileName: 'long.txt',
      status: 'READY',
      bytes: Buffer.byteLength(text),
    });
    expect(doc.tokens).toBeGreaterThan(100_000);
  });

  it("charges an upload 1 of cost per MiB, so a client's cost budget stops a flood of uploads", async () => {
    const data = makeEncodedPdf(
      [{ data: Buffer.from('BT /F1 11 Tf 50 700 Td (a large file of one line) Tj ET') }],
      20.5 * MiB,
    );
    const first = await upload(t.gateway.url, { name: 'big.pdf', data }, as(KEY_A));
    // One object answered, no upstream request, 21 MiB started.
    expect(first.body.extensions?.cost).toEqual({
      estimated: 1,
      actual: 22,
      upstreamRequestsEstimated: 0,
      upstreamRequests: 0,
    });
    // At most 60 a minute: a third such upload may start on what is left, a fourth not in the same minute.
    let admitted = 1;
    let last = first;
    // The budget is corrected to the actual cost when an operation finishes, just after its answer is written: wait for
    // that (its log line) before the next upload, as a client that reads its answer and then sends again would on an idle
    // machine.
    const finished = async (count: number) =>
      expect
        .poll(() => t.logs.json().filter((l) => l.msg === 'operation' && l.operation === 'Upload').length)
        .toBeGreaterThanOrEqual(count);
    let uploads = 1;
    await finished(uploads);
    while (last.status !== 429 && admitted < 8) {
      last = await upload(t.gateway.url, { name: 'big.pdf', data }, as(KEY_A));
      await finished(++uploads);
      if (last.status !== 429) admitted++;
    }
    // The budget is a bucket that refills continuously (60 over a minute): the seconds the uploads themselves take
    // refill some of it, so on a slow machine a fourth or fifth may start. Charged 1 each, as before, 60 would.
    expect(admitted).toBeLessThanOrEqual(6);
    expect(last.status).toBe(429);
    expect(last.body.errors![0].extensions).toMatchObject({ code: 'RATE_LIMITED', limit: 'CLIENT_COST_PER_MINUTE' });
    // The other client's budget is its own.
    expect(
      (await upload(t.gateway.url, { name: 'b.txt', data: 'text' }, as(KEY_B))).body.data.uploadChatDocument.status,
    ).toBe('READY');
  });

  it('leaves no extractor process behind when the gateway closes', async () => {
    const g = await startTestGateway();
    await upload(g.gateway.url, { name: 'one.txt', data: 'one' });
    const pids = g.gateway.services.domains.chatDocuments.extraction.extractors.pids;
    expect(pids.length).toBe(2);
    await g.close();
    for (const pid of pids) await expect.poll(() => signal(pid, 0)).toBe(false);
  });
});
