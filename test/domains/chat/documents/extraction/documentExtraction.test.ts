import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLIENT_DOCUMENTS_IN_LINE,
  DocumentExtraction,
} from '../../../../../src/domains/chat/documents/extraction/documentExtraction.js';
import { ExtractionRefused } from '../../../../../src/domains/chat/documents/extraction/extractors.js';
import { cpuBombPdf, makePdf, reportPages } from '../../../../support/documents.js';

const MiB = 1024 * 1024;
let root: string;
let extraction: DocumentExtraction;
const never = new AbortController().signal;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'extraction-test-'));
  extraction = new DocumentExtraction({ maxExtractedBytes: 64 * MiB, timeoutMs: 3000, spoolRoot: root });
  // Both extractors started and warm, as they are after a gateway's first upload.
  await extraction.extract('warm-up', 'pdf', Readable.from([makePdf(reportPages(1))]), 'doc.pdf', never);
});
afterAll(async () => {
  await extraction.close();
  await rm(root, { recursive: true, force: true });
});

/** Files in the spool now, every gateway folder under this test's root. */
async function spooled(): Promise<number> {
  let n = 0;
  for (const folder of await readdir(root)) n += (await readdir(join(root, folder))).length;
  return n;
}

describe('one line per client', () => {
  it("answers client B's small PDF while client A's slow one is read, and reads A's next one only after it", async () => {
    const finished: string[] = [];
    const track = (label: string, job: Promise<unknown>) =>
      job.then(
        () => finished.push(label),
        (e: ExtractionRefused) => finished.push(`${label}: ${e.reason}`),
      );
    const slow = track(
      'A slow',
      extraction.extract('A', 'pdf', Readable.from([cpuBombPdf(200, 3, 8)]), 'doc.pdf', never),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = track(
      'A second',
      extraction.extract('A', 'pdf', Readable.from([makePdf(reportPages(1))]), 'doc.pdf', never),
    );
    const started = performance.now();
    await track('B small', extraction.extract('B', 'pdf', Readable.from([makePdf(reportPages(1))]), 'doc.pdf', never));
    const latency = performance.now() - started;
    // A's second file waits on disk (A's slow file holds A's turn), not in memory.
    expect(extraction.waiting).toBe(1);
    expect(await spooled()).toBe(2);
    await Promise.all([slow, second]);
    expect(finished).toEqual(['B small', 'A slow: time', 'A second']);
    expect(await spooled()).toBe(0);
    console.log(`client B's one-page PDF answered in ${Math.round(latency)} ms while client A's CPU bomb was read`);
  });

  it('takes a waiting file out of its line, and out of the spool, when its caller leaves', async () => {
    const slow = extraction
      .extract('C', 'pdf', Readable.from([cpuBombPdf(200, 3, 8)]), 'doc.pdf', never)
      .catch((e: ExtractionRefused) => e.reason);
    const left = new AbortController();
    const waiting = extraction.extract('C', 'pdf', Readable.from([makePdf(reportPages(1))]), 'doc.pdf', left.signal);
    await expect.poll(() => extraction.waiting).toBe(1);
    expect(await spooled()).toBe(2);
    left.abort(new Error('the caller left'));
    await expect(waiting).rejects.toThrow('the caller left');
    expect(extraction.waiting).toBe(0);
    expect(await spooled()).toBe(1);
    expect(await slow).toBe('time');
    expect(await spooled()).toBe(0);
  });

  it("refuses a client's ninth document while eight are spooled, waiting or being read, and no other client's", async () => {
    const left = new AbortController();
    const slow = extraction
      .extract('D', 'pdf', Readable.from([cpuBombPdf(200, 3, 8)]), 'slow.pdf', left.signal)
      .catch(() => undefined);
    const waiting = Array.from({ length: CLIENT_DOCUMENTS_IN_LINE - 1 }, () =>
      extraction
        .extract('D', 'pdf', Readable.from([makePdf(reportPages(1))]), 'next.pdf', left.signal)
        .catch(() => undefined),
    );
    await expect.poll(() => extraction.waiting).toBe(CLIENT_DOCUMENTS_IN_LINE - 1);
    const ninth = extraction.extract('D', 'pdf', Readable.from([makePdf(reportPages(1))]), 'ninth.pdf', never);
    await expect(ninth).rejects.toMatchObject({
      message:
        '8 of your documents are being read or waiting to be (the most one client may have); wait for their answers, then upload ninth.pdf again.',
      extensions: { code: 'RATE_LIMITED', argument: 'file', max: 8 },
    });
    expect(
      (await extraction.extract('E', 'pdf', Readable.from([makePdf(reportPages(1))]), 'other.pdf', never)).pages,
    ).toBe(1);
    left.abort(new Error('the caller left'));
    await Promise.all([slow, ...waiting]);
    expect(await spooled()).toBe(0);
  });
});
