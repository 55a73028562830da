import busboy from 'busboy';
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { extname } from 'node:path';
import { extractText, getDocumentProxy } from 'unpdf';
import { sendJson } from '../http.js';
import type { EmulatorContext, SandboxRequest } from '../types.js';
import { countPromptTokens, parseChatRequest, isProblem, type Problem } from './chatRequest.js';
import { servedModel, type SandboxModel } from './models.js';

/**
 * Kimi's files API (platform.kimi.ai/docs/api/files-*, errors from /docs/api/errors; read 2026-11-26; docs/upstreams.md
 * §3.7), for the moonshot emulator:
 * - `POST /files`, multipart with `purpose` (only `file-extract`) and `file`: the file object `{id, object: "file",
 *   bytes, created_at, filename, purpose, status, status_details}`. Refused with Kimi's own 400s when the purpose is
 *   wrong, the file is empty, larger than 100 MB, or would pass 1,000 files (or 10 GB) for the account
 *   (`fileLimits` in the sandbox settings lowers these for tests). The body is read as it arrives, never held whole
 *   beyond what extraction needs.
 * - Extraction of the same formats the gateway reads itself: UTF-8 text (.txt, .md, .csv, .json, … as is) and PDF (its
 *   text layer, via unpdf); a PDF that does not parse is kept with `status: "error"`. Other formats Kimi reads (Word,
 *   slides, images: OCR) are not emulated: their content is a line saying so.
 * - `GET /files` (`{object: "list", data}`), `GET /files/{id}`, `GET /files/{id}/content` (the text, `text/plain`),
 *   `DELETE /files/{id}` (`{id, object: "file", deleted: true}`); an unknown id is a 404.
 * - `POST /tokenizers/estimate-token-count` with `{model, messages}`: `{data: {total_tokens}}`, counted as the
 *   emulator counts a prompt.
 * - A `cutAfterChunks` fault on an upload keeps the file and breaks the connection before the answer: the client
 *   does not learn the file's id.
 */

interface StoredFile {
  id: string;
  bytes: number;
  createdAt: number;
  filename: string;
  status: 'ok' | 'error';
  statusDetails: string;
  content: string;
}

const TEXT_EXTENSIONS = new Set([
  '.txt',
  '.md',
  '.csv',
  '.json',
  '.log',
  '.yaml',
  '.yml',
  '.html',
  '.ini',
  '.conf',
  '.go',
  '.h',
  '.c',
  '.cpp',
  '.cxx',
  '.cc',
  '.cs',
  '.java',
  '.js',
  '.css',
  '.jsp',
  '.php',
  '.py',
  '.py3',
  '.asp',
  '.ts',
  '.tsx',
]);
const KIMI_EXTENSIONS = new Set([
  ...TEXT_EXTENSIONS,
  ...'.pdf .doc .docx .xls .xlsx .ppt .pptx .jpeg .png .bmp .gif .svg .svgz .webp .ico .xbm .dib .pjp .tif .pjpeg .avif .dot .apng .epub .tiff .jfif .mobi'.split(
    ' ',
  ),
]);

const kimiError = (res: ServerResponse, status: number, type: string, message: string) =>
  sendJson(res, status, { error: { type, message } });

/** The files of one account (the sandbox key's), and the routes that serve them. */
export class KimiFiles {
  private readonly files = new Map<string, StoredFile>();

  constructor(private readonly models: readonly SandboxModel[]) {}

  /** Whether `route` is one of the files API's (or the token count's). */
  static serves(method: string, path: string): boolean {
    return (
      (method === 'POST' && (path === '/files' || path === '/tokenizers/estimate-token-count')) ||
      (method === 'GET' && path === '/files') ||
      /^\/files\/[^/]+(\/content)?$/.test(path)
    );
  }

  reset(): void {
    this.files.clear();
  }

  async handle(req: SandboxRequest, res: ServerResponse, ctx: EmulatorContext): Promise<void> {
    const { method, path } = req;
    if (method === 'POST' && path === '/files') return this.upload(req, res, ctx);
    if (method === 'POST' && path === '/tokenizers/estimate-token-count') return this.countTokens(req, res);
    if (method === 'GET' && path === '/files')
      return sendJson(res, 200, { object: 'list', data: [...this.files.values()].map(fileObject) });
    const [, , rawId, content] = path.split('/');
    const id = decodeURIComponent(rawId);
    const file = this.files.get(id);
    if (!file) return kimiError(res, 404, 'resource_not_found_error', `file not found: ${id}`);
    if (method === 'GET' && content === 'content') {
      if (file.status === 'error')
        return kimiError(
          res,
          400,
          'invalid_request_error',
          `Invalid request: file ${id} failed to extract: ${file.statusDetails}`,
        );
      res.writeHead(200, {
        'content-type': 'text/plain; charset=utf-8',
        'content-length': Buffer.byteLength(file.content),
      });
      res.end(file.content);
      return;
    }
    if (method === 'GET' && content === undefined) return sendJson(res, 200, fileObject(file));
    if (method === 'DELETE' && content === undefined) {
      this.files.delete(id);
      return sendJson(res, 200, { id, object: 'file', deleted: true });
    }
    return kimiError(res, 404, 'resource_not_found_error', `Not found: ${method} ${path}`);
  }

  private async upload(req: SandboxRequest, res: ServerResponse, ctx: EmulatorContext): Promise<void> {
    const limits = ctx.settings.fileLimits;
    let form: UploadForm;
    try {
      form = await readForm(req, limits.maxFileBytes);
    } catch (error) {
      req.recordBody(`multipart/form-data: unreadable (${(error as Error).message})`);
      return kimiError(res, 400, 'invalid_request_error', `Invalid request: ${(error as Error).message}`);
    }
    req.recordBody(
      `multipart/form-data: purpose=${form.purpose ?? ''}${form.file ? `, file=${form.file.name} (${form.file.bytes} bytes)` : ''}`,
    );
    if (form.purpose !== 'file-extract')
      return kimiError(res, 400, 'invalid_request_error', "Invalid purpose: only 'file-extract' accepted");
    const upload = form.file;
    if (!upload) return kimiError(res, 400, 'invalid_request_error', 'Invalid request: file is required');
    if (upload.bytes === 0)
      return kimiError(res, 400, 'invalid_request_error', 'File size is zero, please confirm and re-upload the file');
    if (upload.truncated)
      return kimiError(
        res,
        400,
        'invalid_request_error',
        `File size is too large, max file size is ${Math.round(limits.maxFileBytes / 1024 / 1024)}MB, please confirm and re-upload the file`,
      );
    if (this.files.size >= limits.maxFiles) {
      return kimiError(
        res,
        400,
        'invalid_request_error',
        `The number of files you have uploaded exceeded the max file count ${limits.maxFiles}, please delete previous uploaded files`,
      );
    }
    const total = [...this.files.values()].reduce((n, f) => n + f.bytes, 0);
    if (total + upload.bytes > limits.maxTotalBytes) {
      return kimiError(
        res,
        400,
        'invalid_request_error',
        `Invalid request: the total size of uploaded files exceeds ${Math.round(limits.maxTotalBytes / 1024 ** 3)}GB, please delete previous uploaded files`,
      );
    }
    const ext = extname(upload.name).toLowerCase();
    if (!KIMI_EXTENSIONS.has(ext))
      return kimiError(
        res,
        400,
        'invalid_request_error',
        `Invalid request: unsupported file type: ${ext || upload.name}`,
      );
    const extracted = await extract(upload, ext);
    const file: StoredFile = {
      id: newFileId(),
      bytes: upload.bytes,
      createdAt: Math.floor(ctx.now() / 1000),
      filename: upload.name,
      ...extracted,
    };
    this.files.set(file.id, file);
    // The file is kept; the answer is lost on the way.
    if (ctx.cutAfterChunks !== undefined) {
      res.socket?.destroy();
      return;
    }
    sendJson(res, 200, fileObject(file));
  }

  private countTokens(req: SandboxRequest, res: ServerResponse): void {
    const parsed = parseChatRequest(req.body, { temperatureMax: 1, maxChoices: 1 });
    if (isProblem(parsed))
      return kimiError(res, 400, 'invalid_request_error', `Invalid request: ${describeCount(parsed)}`);
    if (!servedModel(this.models, parsed.model))
      return kimiError(
        res,
        404,
        'resource_not_found_error',
        `Not found the model ${parsed.model} or Permission denied`,
      );
    const empty = parsed.messages.findIndex((m) => !m.text && m.images === 0);
    if (empty !== -1)
      return kimiError(
        res,
        400,
        'invalid_request_error',
        `Invalid request: messages[${empty}].content must not be empty`,
      );
    sendJson(res, 200, { data: { total_tokens: countPromptTokens(parsed.messages) } });
  }
}

interface UploadForm {
  purpose?: string;
  file?: { name: string; bytes: number; truncated: boolean; data: Buffer[] };
}

/** The form's fields as they stream in; the file's bytes are kept only for the formats whose text is extracted. */
function readForm(req: SandboxRequest, maxFileBytes: number): Promise<UploadForm> {
  const stream = req.stream!;
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: { fileSize: maxFileBytes, files: 1, fields: 4 },
      });
    } catch (error) {
      stream.resume();
      return reject(error as Error);
    }
    const form: UploadForm = {};
    parser.on('field', (name, value) => {
      if (name === 'purpose') form.purpose = value;
    });
    parser.on('file', (name, file, info) => {
      if (name !== 'file') return file.resume();
      const keep =
        TEXT_EXTENSIONS.has(extname(info.filename ?? '').toLowerCase()) ||
        extname(info.filename ?? '').toLowerCase() === '.pdf';
      const entry = { name: info.filename ?? '', bytes: 0, truncated: false, data: [] as Buffer[] };
      form.file = entry;
      file.on('data', (chunk: Buffer) => {
        entry.bytes += chunk.length;
        if (keep) entry.data.push(chunk);
      });
      file.on('limit', () => {
        entry.truncated = true;
        entry.data = [];
      });
    });
    parser.on('close', () => resolve(form));
    parser.on('error', (error) => {
      stream.unpipe(parser);
      stream.resume();
      reject(error as Error);
    });
    stream.pipe(parser);
  });
}

async function extract(
  upload: NonNullable<UploadForm['file']>,
  ext: string,
): Promise<Pick<StoredFile, 'status' | 'statusDetails' | 'content'>> {
  const data = Buffer.concat(upload.data);
  upload.data = [];
  if (ext === '.pdf') {
    try {
      const doc = await getDocumentProxy(new Uint8Array(data), { verbosity: 0, isEvalSupported: false });
      const { text } = await extractText(doc, { mergePages: true });
      await doc.destroy();
      return { status: 'ok', statusDetails: '', content: text };
    } catch (error) {
      return { status: 'error', statusDetails: `failed to parse the PDF (${(error as Error).message})`, content: '' };
    }
  }
  if (TEXT_EXTENSIONS.has(ext)) return { status: 'ok', statusDetails: '', content: data.toString('utf8') };
  return {
    status: 'ok',
    statusDetails: '',
    content: `[The sandbox does not extract ${ext} files; Kimi would give the text of ${upload.name} here.]`,
  };
}

const fileObject = (f: StoredFile) => ({
  id: f.id,
  object: 'file',
  bytes: f.bytes,
  created_at: f.createdAt,
  filename: f.filename,
  purpose: 'file-extract',
  status: f.status,
  status_details: f.statusDetails,
});

/** Kimi's file ids: 20 lower-case letters and digits (e.g. `clg681objj8g9m7n4je0`). */
function newFileId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return `c${[...randomBytes(19)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}

function describeCount(problem: Problem): string {
  return 'detail' in problem ? problem.detail : 'param' in problem ? `${problem.param} is required` : problem.kind;
}
