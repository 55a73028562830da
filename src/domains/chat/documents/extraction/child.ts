/**
 * The extractor process (extractors.ts forks it): reads one spooled document at a time, a PDF with PDF.js (as `unpdf`
 * packages it for servers) or UTF-8 text, and answers its text, pages and estimated tokens. A process of its own, not a
 * worker thread: the buffers PDF.js decompresses into are outside any V8 heap limit, and a thread's freed buffers stay
 * in the gateway's malloc arenas (the probe's RSS stayed at 1.8 GB); a process gives everything back when it ends.
 *
 * Every byte PDF.js decodes is counted against the job's budget (CHAT_DOCUMENT_MAX_EXTRACTED_BYTES) before it is
 * taken, and past the budget the process exits at once with {@link OVER_BUDGET_EXIT}: PDF.js catches and logs most
 * errors inside a document and carries on, so an exception would not stop it, and an exit frees the memory. PDF.js
 * decodes in three ways, each counted here:
 * - a FlateDecode (or BrotliDecode) stream it reads whole (page contents, fonts, CMaps) goes through the global
 *   `DecompressionStream`: replaced by one that inflates with node:zlib, `maxOutputLength` the budget left;
 * - every other decoder (FlateStream read piecemeal, as object and xref streams are, LZW, RunLength, ASCII85/Hex,
 *   predictors, decryption) grows its output through `DecodeStream.prototype.ensureBuffer`: wrapped to count the growth
 *   before the allocation;
 * - BrotliStream's JS decoder builds its whole output in one call with no bound: replaced by node:zlib's
 *   `brotliDecompressSync` with `maxOutputLength` set to what is left of the budget.
 * PDF.js's classes are not exported; the first DecodeStream the document builds is caught by a setter on the property
 * its constructor assigns first (`_rawMinBufferLength`), and its prototype chain (class names survive the bundle) is
 * patched then. test/domains/chat/documents/extraction/extractors.test.ts runs a bomb through each path, so an upgrade of
 * unpdf that moves them fails there.
 */
import { readFile } from 'node:fs/promises';
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import {
  OVER_BUDGET_EXIT,
  TOKENS_HERE_FROM,
  type ExtractionAnswer,
  type ExtractionJob,
  type ExtractorReady,
} from './protocol.js';

/** What the current job may still take. */
let budget = 0;

function spend(bytes: number): void {
  budget -= bytes;
  if (budget < 0) process.exit(OVER_BUDGET_EXIT);
}

/** node:zlib's one-shot decoders by DecompressionStream format, each bounded by `maxOutputLength`. */
const DECODERS: Record<string, (data: Buffer, options: { maxOutputLength: number }) => Buffer> = {
  deflate: inflateSync,
  'deflate-raw': inflateRawSync,
  gzip: gunzipSync,
  brotli: brotliDecompressSync,
};

/**
 * PDF.js writes a stream's whole compressed bytes, closes, and reads the output: inflated in one call with the budget
 * left as `maxOutputLength`, a bomb stops at the budget in native code (counting a web stream's chunks in a
 * TransformStream took 14 s to reach 256 MiB). A corrupt stream errors the output, and PDF.js falls back to its own
 * decoder (counted in ensureBuffer).
 */
class BudgetedDecompressionStream {
  readonly readable: ReadableStream<Uint8Array>;
  readonly writable: WritableStream<BufferSource>;

  constructor(format: string) {
    const decode = DECODERS[format];
    if (!decode) throw new TypeError(`Unsupported compression format: ${format}`);
    const input: Buffer[] = [];
    let output!: ReadableStreamDefaultController<Uint8Array>;
    this.readable = new ReadableStream<Uint8Array>({ start: (controller) => void (output = controller) });
    this.writable = new WritableStream<BufferSource>({
      write(chunk) {
        input.push(
          ArrayBuffer.isView(chunk)
            ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
            : Buffer.from(chunk),
        );
      },
      close() {
        let data: Buffer;
        try {
          data = decode(Buffer.concat(input), { maxOutputLength: Math.max(1, budget + 1) });
        } catch (error) {
          if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') process.exit(OVER_BUDGET_EXIT);
          output.error(error);
          return;
        }
        spend(data.length);
        output.enqueue(new Uint8Array(data.buffer, data.byteOffset, data.length));
        output.close();
      },
      abort(reason) {
        output.error(reason);
      },
    });
  }
}

interface DecodeStreamLike {
  buffer?: Uint8Array;
  minBufferLength?: number;
  bufferLength: number;
  eof: boolean;
  stream: { getBytes(): Uint8Array };
  ensureBuffer(requested: number): Uint8Array;
  readBlock(): void;
}

const patched = new Set<object>();

function patchClassesOf(instance: object): void {
  for (
    let proto = Object.getPrototypeOf(instance) as Record<string, unknown> | null;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    if (patched.has(proto)) continue;
    const name = (proto.constructor as { name?: string } | undefined)?.name;
    if (name === 'DecodeStream') {
      patched.add(proto);
      const grow = proto.ensureBuffer as DecodeStreamLike['ensureBuffer'];
      proto.ensureBuffer = function (this: DecodeStreamLike, requested: number) {
        const have = this.buffer?.byteLength ?? 0;
        if (requested > have) {
          // The size PDF.js will allocate: at least the stream's minBufferLength (from its /Length), doubled to fit.
          let size = Math.max(1, this.minBufferLength ?? 1);
          while (size < requested) size *= 2;
          spend(size - have);
        }
        return grow.call(this, requested);
      };
    } else if (name === 'BrotliStream') {
      patched.add(proto);
      proto.readBlock = function (this: DecodeStreamLike) {
        const input = this.stream.getBytes();
        let out: Buffer;
        try {
          out = brotliDecompressSync(input, { maxOutputLength: Math.max(1, budget + 1) });
        } catch (error) {
          if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') process.exit(OVER_BUDGET_EXIT);
          throw error;
        }
        spend(out.length);
        this.buffer = new Uint8Array(out.buffer, out.byteOffset, out.length);
        this.bufferLength = out.length;
        this.eof = true;
      };
    }
  }
}

function catchDecodeStreams(): void {
  const FIRST_ASSIGNED = '_rawMinBufferLength';
  Object.defineProperty(Object.prototype, FIRST_ASSIGNED, {
    configurable: true,
    set(this: object, value: unknown) {
      Object.defineProperty(this, FIRST_ASSIGNED, { value, writable: true, enumerable: true, configurable: true });
      patchClassesOf(this);
    },
  });
}

globalThis.DecompressionStream = BudgetedDecompressionStream as unknown as typeof DecompressionStream;
catchDecodeStreams();

// PDF.js is loaded at start, so a job does not wait for it. The tokenizer (over a second of parsing) only when a
// text is long enough to need it here (TOKENS_HERE_FROM); a short one's tokens the gateway counts in a moment.
const unpdf = import('unpdf').then(async (m) => (await m.getResolvedPDFJS(), m));

async function pdf(data: Uint8Array): Promise<{ text: string; pages: number }> {
  const { getDocumentProxy } = await unpdf;
  const doc = await getDocumentProxy(data, { verbosity: 0, isEvalSupported: false });
  try {
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      let text = '';
      // Page by page in the chunks PDF.js makes, counted as they come: a font's ToUnicode map can turn one byte of
      // content into many characters.
      const reader = page.streamTextContent().getReader() as ReadableStreamDefaultReader<{
        items: Array<{ str?: string; hasEOL?: boolean }>;
      }>;
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        for (const item of chunk.value.items) {
          const part = (item.str ?? '') + (item.hasEOL ? '\n' : '');
          spend(part.length * 2);
          text += part;
        }
      }
      pages.push(text);
      page.cleanup();
    }
    return { text: pages.join('\n\n'), pages: pages.length };
  } finally {
    await doc.destroy();
  }
}

function utf8(data: Uint8Array): string {
  const text = new TextDecoder('utf-8', { fatal: true }).decode(data);
  spend(text.length * 2);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

async function extract(job: ExtractionJob): Promise<ExtractionAnswer> {
  budget = job.maxBytes;
  try {
    const data = new Uint8Array(await readFile(job.path));
    const { text, pages } = job.kind === 'pdf' ? await pdf(data) : { text: utf8(data), pages: 0 };
    const tokens =
      text.length >= TOKENS_HERE_FROM
        ? await (await import('../../contextWindow.js')).estimateDocumentTokens(text)
        : undefined;
    return { ok: true, text, pages, tokens, rss: process.memoryUsage.rss() };
  } catch (error) {
    const name = (error as Error | undefined)?.name;
    const message = (error as Error | undefined)?.message ?? String(error);
    return {
      ok: false,
      reason: name === 'PasswordException' ? 'encrypted' : 'invalid',
      message,
      rss: process.memoryUsage.rss(),
    };
  }
}

if (process.send) {
  process.on('message', (job: ExtractionJob) => void extract(job).then((answer) => process.send!(answer)));
  void unpdf.then(() => process.send!({ ready: true } satisfies ExtractorReady));
  // The gateway is gone (or closed the pool): so is this process.
  process.on('disconnect', () => process.exit(0));
}
