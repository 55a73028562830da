import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { ErrorCode, upstreamError } from '../../errors/codes.js';
import type { UpstreamCaller } from '../http/client.js';
import type { ChatClient } from './client.js';
import { providerError, unreadableAnswer } from './errors.js';

/**
 * A files API that extracts text (Kimi's, `ChatProviderSpec.files`): upload, the extracted text, the list, delete,
 * and the provider's own token count. The same key, limiter and error mapping as the provider's chat calls.
 */

/** A file as the files API describes it (Kimi: `id`, `object: "file"`, `bytes`, `created_at`, `filename`, `purpose`, `status`, `status_details`). */
export interface UpstreamFile {
  id: string;
  bytes: number;
  /** Unix seconds. */
  createdAt: number;
  filename: string;
  /** `ok` or `ready` once extracted; `error` when it failed (then `statusDetails` says why). */
  status: string;
  statusDetails: string;
}

/** An upload that ended without the provider's answer: it may or may not have kept the file. `failure` is the error to report. */
export class UploadOutcomeUnknown extends Error {
  constructor(readonly failure: unknown) {
    super('the upload ended without an answer');
  }
}

/** The file to upload: its name, media type and size, and a way to read it (once per attempt: a retry reads it again). */
export interface FileToUpload {
  name: string;
  mediaType: string;
  bytes: number;
  open(): Readable;
}

/**
 * `POST {base}/files` with `purpose=file-extract`, the file streamed from `file.open()` in a multipart body whose
 * length is known before the first byte (so the provider can refuse a size at once). Resolves to the file the provider
 * made; an upload that got no answer rejects with {@link UploadOutcomeUnknown}, so the caller can look for the file
 * the provider may have kept.
 */
export async function uploadFile(
  client: ChatClient,
  file: FileToUpload,
  caller: UpstreamCaller,
): Promise<UpstreamFile> {
  const { signal, requestId, upstreamRequests: tally } = caller;
  await client.admit(signal);
  const boundary = `----gateway${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nfile-extract\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${formFileName(file.name)}"\r\nContent-Type: ${file.mediaType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = () => Readable.from(multipart(head, file.open(), tail), { objectMode: false });
  let res;
  try {
    res = await client.http.send({
      method: 'POST',
      url: `${client.config.baseUrl}/files`,
      headers: {
        ...authorization(client),
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + file.bytes + tail.length),
        accept: 'application/json',
      },
      body,
      signal,
      requestId,
      tally,
      isFinal: client.quotaSpent,
      traceAttributes: { 'file.bytes': file.bytes },
    });
  } catch (error) {
    // No answer (a timeout, a reset, the caller gone): the provider may have kept the file all the same.
    throw new UploadOutcomeUnknown(client.failure(error, signal, 'the upload broke off'));
  }
  client.rateHeaders?.observe(res.headers, Date.now());
  if (res.status >= 300) throw providerError(client.spec, res.status, res.headers, res.text, client.credentials);
  client.credentials.accepted(client.spec.id);
  return fileOf(client, res.status, res.text);
}

/** `GET {base}/files/{id}/content`: the extracted text; undefined when the provider has no such file (404). */
export async function fileContent(client: ChatClient, id: string, caller: UpstreamCaller): Promise<string | undefined> {
  const res = await get(client, `/files/${encodeURIComponent(id)}/content`, caller, 'text/plain, application/json');
  if (res.status === 404) return undefined;
  if (res.status >= 300) throw providerError(client.spec, res.status, res.headers, res.text, client.credentials);
  return extractedText(res.text);
}

/** `GET {base}/files`: every file of the account. */
export async function listFiles(client: ChatClient, caller: UpstreamCaller): Promise<UpstreamFile[]> {
  const res = await get(client, '/files', caller, 'application/json');
  if (res.status >= 300) throw providerError(client.spec, res.status, res.headers, res.text, client.credentials);
  try {
    const json = JSON.parse(res.text) as { data?: unknown };
    if (!Array.isArray(json.data)) throw new Error('the body has no data list');
    return json.data.map((item) => fileFields(item));
  } catch (error) {
    throw unreadableAnswer(client.spec, res.status, (error as Error).message);
  }
}

/** `DELETE {base}/files/{id}`: true when deleted, false when the provider had no such file (404). */
export async function deleteFile(client: ChatClient, id: string, caller: UpstreamCaller): Promise<boolean> {
  const { signal, requestId, upstreamRequests: tally } = caller;
  await client.admit(signal);
  let res;
  try {
    res = await client.http.send({
      method: 'DELETE',
      url: `${client.config.baseUrl}/files/${encodeURIComponent(id)}`,
      headers: { ...authorization(client), accept: 'application/json' },
      signal,
      requestId,
      tally,
      retry: { maxAttempts: 1 },
    });
  } catch (error) {
    throw client.failure(error, signal, 'the delete failed');
  }
  client.rateHeaders?.observe(res.headers, Date.now());
  if (res.status === 404) return false;
  if (res.status >= 300) throw providerError(client.spec, res.status, res.headers, res.text, client.credentials);
  return true;
}

/** `POST {base}/tokenizers/estimate-token-count`: the provider's count of the tokens of `messages` for `model`. */
export async function countTokens(
  client: ChatClient,
  model: string,
  messages: ReadonlyArray<{ role: string; content: string }>,
  caller: UpstreamCaller,
): Promise<number> {
  const { signal, requestId, upstreamRequests: tally } = caller;
  await client.admit(signal);
  let res;
  try {
    res = await client.http.send({
      method: 'POST',
      url: `${client.config.baseUrl}/tokenizers/estimate-token-count`,
      headers: { ...authorization(client), 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ model, messages }),
      signal,
      requestId,
      tally,
      isFinal: client.quotaSpent,
    });
  } catch (error) {
    throw client.failure(error, signal, 'the token count failed');
  }
  client.rateHeaders?.observe(res.headers, Date.now());
  if (res.status >= 300) throw providerError(client.spec, res.status, res.headers, res.text, client.credentials);
  try {
    const total = (JSON.parse(res.text) as { data?: { total_tokens?: unknown } }).data?.total_tokens;
    if (typeof total !== 'number' || !Number.isInteger(total) || total < 0)
      throw new Error('data.total_tokens is not a count');
    return total;
  } catch (error) {
    throw unreadableAnswer(client.spec, res.status, (error as Error).message);
  }
}

async function get(client: ChatClient, path: string, caller: UpstreamCaller, accept: string) {
  const { signal, requestId, upstreamRequests: tally } = caller;
  await client.admit(signal);
  try {
    const res = await client.http.send({
      method: 'GET',
      url: `${client.config.baseUrl}${path}`,
      headers: { ...authorization(client), accept },
      signal,
      requestId,
      tally,
    });
    client.rateHeaders?.observe(res.headers, Date.now());
    if (res.status < 300) client.credentials.accepted(client.spec.id);
    return res;
  } catch (error) {
    throw client.failure(error, signal, 'the request failed');
  }
}

const authorization = (client: ChatClient): Record<string, string> =>
  client.config.apiKey ? { authorization: `Bearer ${client.config.apiKey}` } : {};

async function* multipart(head: Buffer, file: Readable, tail: Buffer): AsyncGenerator<Buffer> {
  yield head;
  try {
    for await (const chunk of file) yield chunk as Buffer;
  } finally {
    file.destroy();
  }
  yield tail;
}

/** A file name as a form's `filename` parameter carries it (the HTML standard's escapes: `"` and line breaks). */
function formFileName(name: string): string {
  return name.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function fileOf(client: ChatClient, status: number, text: string): UpstreamFile {
  try {
    return fileFields(JSON.parse(text));
  } catch (error) {
    throw unreadableAnswer(client.spec, status, (error as Error).message);
  }
}

function fileFields(json: unknown): UpstreamFile {
  const f = json as Record<string, unknown> | null;
  if (typeof f?.id !== 'string' || !f.id) throw new Error('a file without an id');
  return {
    id: f.id,
    bytes: typeof f.bytes === 'number' ? f.bytes : 0,
    createdAt: typeof f.created_at === 'number' ? f.created_at : 0,
    filename: typeof f.filename === 'string' ? f.filename : '',
    status: typeof f.status === 'string' ? f.status : '',
    statusDetails: typeof f.status_details === 'string' ? f.status_details : '',
  };
}

/**
 * The extracted text of a content answer. Kimi documents it as `text/plain`; its answers have also been seen as a JSON
 * object `{content, file_type, filename, title, type}` (what its own guide puts in a system message whole): the
 * `content` of such an object, else the body as it is.
 */
function extractedText(body: string): string {
  if (!body.startsWith('{')) return body;
  try {
    const json = JSON.parse(body) as { content?: unknown };
    return typeof json.content === 'string' ? json.content : body;
  } catch {
    return body;
  }
}

/** The file the provider reports as failed to extract: what it said, for the caller. */
export function extractionFailed(client: ChatClient, file: UpstreamFile) {
  const said = file.statusDetails ? `: ${file.statusDetails}` : '';
  return upstreamError(
    ErrorCode.BadUserInput,
    `The ${client.spec.id} service could not extract text from ${JSON.stringify(file.filename)}${said}.`,
    { upstream: client.spec.id, upstreamCode: 'EXTRACTION_FAILED' },
  );
}
