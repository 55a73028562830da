import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createDeflate } from 'node:zlib';
import { afterAll, beforeAll } from 'vitest';

/**
 * Helpers for chat document tests: a GraphQL multipart request (the upload links' wire format), a PDF writer and the
 * documents of a realistic size.
 */

export interface UploadFile {
  name: string;
  data: Buffer | string;
  type?: string;
}

export interface UploadAnswer {
  status: number;
  body: {
    data?: any;
    errors?: Array<{ message: string; extensions?: Record<string, any> }>;
    extensions?: Record<string, any>;
  };
}

const UPLOAD = `mutation Upload($file: Upload!, $provider: ID) {
  uploadChatDocument(file: $file, provider: $provider) { id provider fileName bytes tokens status createdAt }
}`;

/**
 * POSTs a GraphQL multipart request as Apollo Client's upload link sends it: `operations` (the variable that takes the
 * file set to null), `map`, then the file, with the `Apollo-Require-Preflight` header the CSRF rule asks for.
 */
export async function upload(
  url: string,
  file: UploadFile,
  options: { provider?: string; query?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<UploadAnswer> {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query: options.query ?? UPLOAD,
      variables: { file: null, ...(options.provider ? { provider: options.provider } : {}) },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([file.data as BlobPart], { type: file.type ?? 'application/octet-stream' }), file.name);
  const res = await fetch(url, {
    method: 'POST',
    body: form,
    headers: { 'apollo-require-preflight': 'true', ...options.headers },
    signal: options.signal,
  });
  return { status: res.status, body: (await res.json()) as UploadAnswer['body'] };
}

/**
 * The bytes of a GraphQL multipart request for `file` (the upload links' layout), to send by hand: cut, with a wrong
 * Content-Length, or chunked.
 */
export function multipartBody(file: UploadFile, provider?: string): { contentType: string; body: Buffer } {
  const boundary = '----test-boundary-7d3f';
  const operations = JSON.stringify({ query: UPLOAD, variables: { file: null, ...(provider ? { provider } : {}) } });
  const head = [
    `--${boundary}\r\nContent-Disposition: form-data; name="operations"\r\n\r\n${operations}\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="map"\r\n\r\n{"0":["variables.file"]}\r\n`,
    `--${boundary}\r\nContent-Disposition: form-data; name="0"; filename="${file.name}"\r\nContent-Type: ${file.type ?? 'application/octet-stream'}\r\n\r\n`,
  ].join('');
  const body = Buffer.concat([Buffer.from(head), Buffer.from(file.data), Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return { contentType: `multipart/form-data; boundary=${boundary}`, body };
}

/** A PDF of `pages`, each page a list of text lines (Helvetica), written by hand: header, objects, xref, trailer. */
export function makePdf(pages: readonly (readonly string[])[]): Buffer {
  const objects: string[] = [];
  const add = (body: string) => objects.push(body);
  add(''); // 1: catalog, written below
  add(''); // 2: the page tree
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'); // 3
  const kids: number[] = [];
  const escape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`);
  for (const lines of pages) {
    const stream = `BT /F1 11 Tf 14 TL 50 780 Td ${lines.map((l) => `(${escape(l)}) Tj T*`).join(' ')} ET`;
    add(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`);
    const content = objects.length;
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${content} 0 R >>`,
    );
    kids.push(objects.length);
  }
  objects[0] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** A report of `pages` pages, 45 lines each, every line different (so no two pages tokenize alike). */
export function reportPages(pages: number): string[][] {
  return Array.from({ length: pages }, (_, p) =>
    Array.from(
      { length: 45 },
      (_, l) =>
        `Page ${p + 1}, line ${l + 1}: revenue in region ${(p * 45 + l) % 17} grew by ${(p * 7 + l * 3) % 23} percent over the quarter.`,
    ),
  );
}

/** One page's content stream as written in the file: its bytes, already encoded by `filter` (e.g. `/FlateDecode`). */
export interface EncodedContent {
  filter?: string;
  data: Buffer;
}

/**
 * A PDF whose pages' content streams are given encoded (compressed, a bomb …), with the Helvetica font of makePdf, and
 * `padding` bytes in a stream no page uses (a large file that is quick to read).
 */
export function makeEncodedPdf(pages: readonly EncodedContent[], padding = 0): Buffer {
  const objects: Array<string | Buffer> = ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  if (padding) objects.push(stream(Buffer.alloc(padding, 0x20), ''));
  const contents = pages.map((page) =>
    numbered(objects, stream(page.data, page.filter ? `/Filter ${page.filter}` : '')),
  );
  return writePdf(
    objects,
    contents.map((c) => `/Contents ${c} 0 R /Resources << /Font << /F1 3 0 R >> >>`),
  );
}

/**
 * A PDF that costs CPU, not bytes (the probe's 28 KB of 200 pages that took 30 s): every page draws form `/X<depth>`,
 * which draws `/X<depth-1>` `fanout` times, … down to `/X0`, a line of text; each page so reads `fanout^depth` lines.
 */
export function cpuBombPdf(pages: number, depth: number, fanout: number): Buffer {
  const objects: Array<string | Buffer> = ['<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  const form = (content: string, resources: string) =>
    stream(
      Buffer.from(content, 'latin1'),
      `/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << ${resources} >>`,
    );
  let previous = numbered(objects, form('BT /F1 11 Tf 50 700 Td (a line of a form) Tj ET', '/Font << /F1 3 0 R >>'));
  for (let level = 1; level <= depth; level++) {
    previous = numbered(
      objects,
      form(
        Array.from({ length: fanout }, () => `/X${level - 1} Do`).join(' '),
        `/XObject << /X${level - 1} ${previous} 0 R >>`,
      ),
    );
  }
  const top = previous;
  const content = numbered(objects, stream(Buffer.from(`/X${depth} Do`, 'latin1'), ''));
  return writePdf(
    objects,
    Array.from(
      { length: pages },
      () => `/Contents ${content} 0 R /Resources << /XObject << /X${depth} ${top} 0 R >> >>`,
    ),
  );
}

/** Adds `body` to the objects writePdf numbers from 3; its object number. */
const numbered = (objects: Array<string | Buffer>, body: string | Buffer) => objects.push(body) + 2;

function stream(data: Buffer, dict: string): Buffer {
  return Buffer.concat([
    Buffer.from(`<< /Length ${data.length} ${dict} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

/** Header, `objects` (numbered from 3), a page tree of one page per entry of `pages` (its dictionary's entries), xref, trailer. */
function writePdf(objects: ReadonlyArray<string | Buffer>, pages: readonly string[]): Buffer {
  const first = objects.length + 3;
  const all: Array<string | Buffer> = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${first + i} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    ...objects,
    ...pages.map((entries) => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] ${entries} >>`),
  ];
  const parts = [Buffer.from('%PDF-1.7\n', 'latin1')];
  let at = parts[0].length;
  const offsets: number[] = [];
  all.forEach((body, i) => {
    offsets.push(at);
    const part = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'),
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(part);
    at += part.length;
  });
  const xref = `xref\n0 ${all.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(
    Buffer.from(`${xref}trailer\n<< /Size ${all.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`, 'latin1'),
  );
  return Buffer.concat(parts);
}

/** `bytes` of `fill` (zero bytes by default) deflated at level 9, a MiB at a time (a GiB never sits in memory). */
export async function deflatedRun(bytes: number, fill = 0): Promise<Buffer> {
  const chunk = Buffer.alloc(Math.min(bytes, 1024 * 1024), fill);
  async function* run() {
    for (let left = bytes; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
  }
  const out: Buffer[] = [];
  await pipeline(Readable.from(run()), createDeflate({ level: 9 }), async (deflated: AsyncIterable<Buffer>) => {
    for await (const piece of deflated) out.push(piece);
  });
  return Buffer.concat(out);
}

/**
 * Spools this file's uploads to a folder of its own, so "nothing left behind" can be checked there: `TMPDIR` (which
 * fs-capacitor reads per upload) is set for the file's run only and restored after, since the file shares its worker's
 * process with the files before and after it (test/vitest.config.ts). Returns the spooled files still present.
 */
export function ownSpool(): () => string[] {
  const spool = mkdtempSync(join(tmpdir(), 'uploads-'));
  const before = process.env.TMPDIR;
  beforeAll(() => {
    process.env.TMPDIR = spool;
  });
  afterAll(() => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  });
  return () => readdirSync(spool).filter((f) => f.startsWith('capacitor-'));
}
