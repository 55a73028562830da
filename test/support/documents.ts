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
  body: { data?: any; errors?: Array<{ message: string; extensions?: Record<string, any> }>; extensions?: Record<string, any> };
}

const UPLOAD = `mutation Upload($file: Upload!, $provider: ID) {
  uploadChatDocument(file: $file, provider: $provider) { id provider fileName bytes tokens status createdAt }
}`;

/**
 * POSTs a GraphQL multipart request as Apollo Client's upload link sends it: `operations` (the variable that takes the
 * file set to null), `map`, then the file, with the `Apollo-Require-Preflight` header the CSRF rule asks for.
 */
export async function upload(url: string, file: UploadFile, options: { provider?: string; query?: string; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<UploadAnswer> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: options.query ?? UPLOAD, variables: { file: null, ...(options.provider ? { provider: options.provider } : {}) } }));
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([file.data as BlobPart], { type: file.type ?? 'application/octet-stream' }), file.name);
  const res = await fetch(url, { method: 'POST', body: form, headers: { 'apollo-require-preflight': 'true', ...options.headers }, signal: options.signal });
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
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${content} 0 R >>`);
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
    Array.from({ length: 45 }, (_, l) => `Page ${p + 1}, line ${l + 1}: revenue in region ${(p * 45 + l) % 17} grew by ${(p * 7 + l * 3) % 23} percent over the quarter.`),
  );
}
