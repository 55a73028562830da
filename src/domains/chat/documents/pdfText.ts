import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * The text of a PDF, read by PDF.js (as `unpdf` packages it for servers) in a worker thread: parsing a long PDF is
 * seconds of CPU, which would stall every other request on the event loop, and its objects live in the worker's own
 * heap, bounded by {@link WORKER_HEAP_MB} and gone when it ends. One PDF is read at a time, so the gateway holds at
 * most one file of CHAT_DOCUMENT_MAX_BYTES in memory for this.
 */

/** Old-space limit of the worker: a PDF that needs more is refused, never the gateway's memory. */
export const WORKER_HEAP_MB = 512;

/** Why a PDF yielded no text: `invalid` (does not parse), `encrypted`, `memory` (past {@link WORKER_HEAP_MB}). */
export class PdfReadError extends Error {
  constructor(
    readonly reason: 'invalid' | 'encrypted' | 'memory',
    message: string,
  ) {
    super(message);
  }
}

// CommonJS run by the worker: unpdf's own build, no TypeScript to load (the same under tests and from dist/).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { getDocumentProxy } = require(workerData.unpdf);
parentPort.once('message', async (data) => {
  try {
    const doc = await getDocumentProxy(new Uint8Array(data), { verbosity: 0, isEvalSupported: false });
    const pages = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pages.push(content.items.map((item) => (item.str ?? '') + (item.hasEOL ? '\\n' : '')).join(''));
      page.cleanup();
    }
    await doc.destroy();
    parentPort.postMessage({ ok: true, pages: pages.length, text: pages.join('\\n\\n') });
  } catch (error) {
    parentPort.postMessage({ ok: false, name: String(error && error.name), message: String((error && error.message) || error) });
  }
});
`;

let unpdfEntry: string | undefined;
let queue: Promise<unknown> = Promise.resolve();

/** The PDF's text, page by page (pages apart by a blank line); waits its turn behind the PDF being read. */
export function pdfText(data: Buffer, signal: AbortSignal): Promise<{ text: string; pages: number }> {
  const turn = queue.then(() => read(data, signal));
  queue = turn.catch(() => undefined);
  return turn;
}

function read(data: Buffer, signal: AbortSignal): Promise<{ text: string; pages: number }> {
  signal.throwIfAborted();
  unpdfEntry ??= createRequire(import.meta.url).resolve('unpdf');
  // The worker gets the bytes themselves (transferred, not copied) when the buffer owns its memory.
  const owned = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? data.buffer : data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { unpdf: unpdfEntry }, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    const stop = () => void worker.terminate();
    signal.addEventListener('abort', stop, { once: true });
    const settle = (outcome: () => void) => {
      signal.removeEventListener('abort', stop);
      void worker.terminate();
      outcome();
    };
    worker.once('message', (m: { ok: true; text: string; pages: number } | { ok: false; name: string; message: string }) =>
      settle(() => {
        if (m.ok) resolve({ text: m.text, pages: m.pages });
        else reject(new PdfReadError(m.name === 'PasswordException' ? 'encrypted' : 'invalid', m.message));
      }),
    );
    worker.once('error', (error: Error & { code?: string }) =>
      settle(() => reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new PdfReadError('memory', `reading it needs more than ${WORKER_HEAP_MB} MiB`) : error)),
    );
    worker.once('exit', () => settle(() => reject(signal.aborted ? signal.reason : new Error('the PDF reader stopped'))));
    worker.postMessage(owned, [owned as ArrayBuffer]);
  });
}
