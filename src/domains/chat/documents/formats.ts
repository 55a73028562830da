import { extname } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * What a file is, read from its bytes (never from the type the client claims): a PDF (`%PDF-` first), UTF-8 text (no
 * NUL byte, valid UTF-8 throughout), or other bytes. One pass over the file, which also proves it arrived whole: a
 * truncated upload fails the read.
 */
export interface FileScan {
  bytes: number;
  kind: 'pdf' | 'text' | 'binary';
  /** PDF: `startxref` and `%%EOF` in its last KiB, the trailer every readable PDF ends with. */
  pdfTrailer: boolean;
}

/** Text formats the gateway extracts itself: their text is the file. */
const TEXT_EXTENSIONS = new Set([
  '.txt',
  '.text',
  '.md',
  '.markdown',
  '.csv',
  '.tsv',
  '.json',
  '.log',
  '.yaml',
  '.yml',
  '.xml',
  '.html',
  '.htm',
  '.ini',
  '.conf',
]);

/** Media types by extension, for what the gateway sends upstream (a client's claimed type is not trusted). */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.json': 'application/json',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.doc': 'application/msword',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.png': 'image/png',
  '.jpeg': 'image/jpeg',
  '.jpg': 'image/jpeg',
  '.epub': 'application/epub+zip',
};

/** `.pdf`: a name's extension, lower case (`''` for none). */
export const extensionOf = (name: string) => extname(name).toLowerCase();

/** The media type of a file the gateway read: PDF or text from its bytes, else by its name. */
export function mediaTypeOf(name: string, scan: FileScan): string {
  if (scan.kind === 'pdf') return 'application/pdf';
  return MEDIA_TYPES[extensionOf(name)] ?? (scan.kind === 'text' ? 'text/plain' : 'application/octet-stream');
}

/** Whether the gateway extracts this file's text itself: a PDF, or UTF-8 text under a text name (or no extension). */
export function gatewayExtracts(name: string, scan: FileScan): boolean {
  if (scan.kind === 'pdf') return true;
  const ext = extensionOf(name);
  return scan.kind === 'text' && (ext === '' || TEXT_EXTENSIONS.has(ext));
}

/** The formats the gateway extracts, as a caller reads them in an error. */
export const GATEWAY_FORMATS = 'PDF, plain text and Markdown (UTF-8; also .csv, .json, .yaml, .xml, .html, .log)';

const TAIL = 1024;

/** Reads the whole file once (see {@link FileScan}). */
export async function scanFile(stream: Readable): Promise<FileScan> {
  let bytes = 0;
  let head: Buffer | undefined;
  let tail: Buffer = Buffer.alloc(0);
  let text = true;
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (!head) head = chunk.subarray(0, 8);
    bytes += chunk.length;
    tail = chunk.length >= TAIL ? chunk.subarray(chunk.length - TAIL) : Buffer.concat([tail, chunk]).subarray(-TAIL);
    if (!text) continue;
    if (chunk.includes(0)) text = false;
    else {
      try {
        utf8.decode(chunk, { stream: true });
      } catch {
        text = false;
      }
    }
  }
  if (text) {
    try {
      utf8.decode();
    } catch {
      text = false;
    }
  }
  const pdf = head?.subarray(0, 5).toString('latin1') === '%PDF-';
  const end = tail.toString('latin1');
  return {
    bytes,
    kind: pdf ? 'pdf' : text ? 'text' : 'binary',
    pdfTrailer: pdf && end.includes('startxref') && end.includes('%%EOF'),
  };
}
