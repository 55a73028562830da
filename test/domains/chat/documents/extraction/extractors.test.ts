import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtractionRefused, Extractors } from '../../../../../src/domains/chat/documents/extraction/extractors.js';
import { cpuBombPdf, deflatedRun, makeEncodedPdf, makePdf, reportPages } from '../../../../support/documents.js';
import { signal } from '../../../../support/process.js';

const MiB = 1024 * 1024;
/** The cap these tests set: bombs of 16 MiB prove what a GiB would, in a fraction of the time. */
const CAP = 4 * MiB;

let folder: string;
let extractors: Extractors;
let n = 0;

async function file(data: Buffer | string): Promise<string> {
  const path = join(folder, `f${n++}`);
  await writeFile(path, data);
  return path;
}

/** Runs one job; its refusal (or its answer) and the pid of the extractor that ran it. */
async function read(data: Buffer | string, kind: 'pdf' | 'text' = 'pdf', abort?: AbortSignal) {
  const path = await file(data);
  const before = new Set(extractors.pids);
  const job = extractors.run({ path, kind }, abort ?? new AbortController().signal);
  const pid = extractors.pids.find((p) => !before.has(p)) ?? extractors.pids[0];
  try {
    return { answer: await job, pid };
  } catch (error) {
    return { error: error as ExtractionRefused, pid };
  }
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'extractors-test-'));
  extractors = new Extractors({ maxExtractedBytes: CAP, timeoutMs: 20_000 });
});
afterAll(async () => {
  extractors.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the byte budget counts every way PDF.js decodes, and the extractor that passes it is ended', () => {
  const bombs: Array<[string, () => Promise<Buffer>]> = [
    [
      'FlateDecode read whole (DecompressionStream)',
      async () => makeEncodedPdf([{ filter: '/FlateDecode', data: await deflatedRun(16 * MiB) }]),
    ],
    [
      'FlateDecode read piecemeal behind ASCIIHexDecode (DecodeStream.ensureBuffer)',
      async () =>
        makeEncodedPdf([{ filter: '[/FlateDecode /ASCIIHexDecode]', data: await deflatedRun(16 * MiB, 0x30) }]),
    ],
    [
      'FlateDecode of FlateDecode (a bomb of a bomb, a few KB)',
      async () =>
        makeEncodedPdf([
          { filter: '[/FlateDecode /FlateDecode]', data: deflateSync(await deflatedRun(64 * MiB), { level: 9 }) },
        ]),
    ],
    [
      'BrotliDecode (its JS decoder has no bound of its own)',
      async () => makeEncodedPdf([{ filter: '/BrotliDecode', data: brotliCompressSync(Buffer.alloc(16 * MiB)) }]),
    ],
    [
      'many streams, each under the budget, together over it',
      async () =>
        makeEncodedPdf(
          (await Promise.all(Array.from({ length: 8 }, () => deflatedRun(MiB)))).map((data) => ({
            filter: '/FlateDecode',
            data,
          })),
        ),
    ],
  ];
  for (const [name, make] of bombs) {
    it(name, async () => {
      const { error, pid } = await read(await make());
      expect(error).toBeInstanceOf(ExtractionRefused);
      expect(error!.reason).toBe('extracted');
      expect(error!.message).toBe(
        'it decompresses to more than 4 MiB (4194304 bytes) (CHAT_DOCUMENT_MAX_EXTRACTED_BYTES)',
      );
      // Ended, so its memory is the operating system's again.
      await expect.poll(() => signal(pid, 0)).toBe(false);
    });
  }

  it('counts text too: a text file whose characters pass the budget is refused', async () => {
    const { error } = await read('x'.repeat(3 * MiB), 'text');
    expect(error?.reason).toBe('extracted');
  });

  it('reads a PDF under the budget, and the next one in the same (warm) extractor', async () => {
    const first = await read(makePdf(reportPages(3)));
    expect(first.answer).toEqual({
      pages: 3,
      text: expect.stringContaining('Page 3, line 45: revenue'),
      tokens: undefined,
    });
    const second = await read(makePdf(reportPages(1)));
    expect(second.answer?.pages).toBe(1);
    expect(second.pid).toBe(first.pid);
    expect(signal(first.pid, 0)).toBe(true);
  });

  it("strips a text file's byte order mark; a short text's tokens are left to the gateway", async () => {
    const { answer } = await read('\ufeffHello, world.', 'text');
    expect(answer).toEqual({ text: 'Hello, world.', pages: 0, tokens: undefined });
  });

  it("counts the tokens of a long text itself, off the gateway's event loop", async () => {
    const words = 'the quick brown fox jumps over the lazy dog '.repeat(8000);
    const { answer } = await read(words, 'text');
    expect(answer!.text).toHaveLength(words.length);
    // o200k_base: one token per word here.
    expect(answer!.tokens).toBeGreaterThan(70_000);
    expect(answer!.tokens).toBeLessThan(75_000);
  });

  it('answers why a PDF does not parse, and ends that extractor too', async () => {
    const { error, pid } = await read('%PDF-1.7\nnot a PDF at all\nstartxref\n0\n%%EOF\n');
    expect(error?.reason).toBe('invalid');
    await expect.poll(() => signal(pid, 0)).toBe(false);
  });
});

describe('the time limit', () => {
  it('ends an extractor at CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS', async () => {
    const quick = new Extractors({ maxExtractedBytes: 256 * MiB, timeoutMs: 1500 });
    try {
      const path = await file(cpuBombPdf(200, 3, 8));
      const started = performance.now();
      const job = quick.run({ path, kind: 'pdf' }, new AbortController().signal);
      const [pid] = quick.pids;
      const error = await job.catch((e: ExtractionRefused) => e);
      expect(error).toBeInstanceOf(ExtractionRefused);
      expect((error as ExtractionRefused).reason).toBe('time');
      expect((error as ExtractionRefused).message).toBe(
        'reading it took longer than 1500 ms (CHAT_DOCUMENT_EXTRACT_TIMEOUT_MS)',
      );
      expect(performance.now() - started).toBeGreaterThanOrEqual(1500);
      await expect.poll(() => signal(pid, 0)).toBe(false);
    } finally {
      quick.close();
    }
  });

  it('ends the extractor of a caller who left', async () => {
    const path = await file(cpuBombPdf(200, 3, 8));
    const abort = new AbortController();
    const job = extractors.run({ path, kind: 'pdf' }, abort.signal);
    const pid = extractors.pids.at(-1)!;
    setTimeout(() => abort.abort(new Error('the caller left')), 300);
    await expect(job).rejects.toThrow('the caller left');
    await expect.poll(() => signal(pid, 0)).toBe(false);
  });
});
