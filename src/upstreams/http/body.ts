import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ErrorCode, upstreamError, type GatewayError } from '../../errors/codes.js';
import { collect } from '../../streams/collect.js';
import { UpstreamCode } from '../codes.js';
import type { ResponseBufferBudget } from './bufferBudget.js';

/** The default of UPSTREAM_MAX_RESPONSE_BYTES: room for the largest Graph page with `$expand`, 16 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** Reused: a non-streaming decode keeps no state between calls. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** `16 MiB (16777216 bytes)`: the limit as people read it, and as they write it in the variable. */
export function describeBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const mib = bytes / (1024 * 1024);
  const readable = mib >= 1 ? `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB` : `${Math.round(bytes / 1024)} KiB`;
  return `${readable} (${bytes} bytes)`;
}

/** `what`: `a response`, `one stream event`; `detail` says how it was measured, e.g. ` after gzip decompression`. */
export function tooLarge(
  upstream: string,
  limit: number,
  options: { what?: string; detail?: string; status?: number } = {},
): GatewayError {
  const { what = 'a response', detail = '', status } = options;
  return upstreamError(
    ErrorCode.UpstreamError,
    `The ${upstream} service sent ${what} larger than ${describeBytes(limit)}${detail}, the limit UPSTREAM_MAX_RESPONSE_BYTES sets; the gateway stopped reading it.`,
    { upstream, status, upstreamCode: UpstreamCode.ResponseTooLarge },
  );
}

/** The process-wide budget is spent: this body is not read on, so that memory stays bounded. */
export function bufferBudgetSpent(upstream: string, budget: ResponseBufferBudget, status?: number): GatewayError {
  return upstreamError(
    ErrorCode.UpstreamError,
    `The gateway already holds ${describeBytes(budget.limit)} of upstream responses, the limit UPSTREAM_MAX_BUFFERED_BYTES sets; it stopped reading this ${upstream} response. Retry shortly, or raise UPSTREAM_MAX_BUFFERED_BYTES.`,
    { upstream, status, upstreamCode: UpstreamCode.ResponseBufferFull },
  );
}

/**
 * The body decoded as its `Content-Encoding` says (gzip, deflate, br, or a list of them), so every limit counts the
 * bytes the gateway would actually hold. An unknown encoding is refused rather than handed on as garbage.
 *
 * Not undici's `interceptors.decompress` (7.30.2): it hands an unknown coding on undecoded (the client would parse
 * garbage), drops `Content-Encoding` so the limit's error cannot name it, and warns `ExperimentalWarning` on the
 * gateway's stderr at start-up. Decoding here happens where the body is read, after every interceptor.
 */
export function decodedBody(
  body: Readable,
  contentEncoding: string | string[] | undefined,
  upstream: string,
  status: number,
): Readable {
  const raw = (Array.isArray(contentEncoding) ? contentEncoding.join(',') : (contentEncoding ?? '')).toLowerCase();
  const codings = raw
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c && c !== 'identity');
  let stream = body;
  // Applied in the order listed, so undone in reverse.
  for (const coding of codings.reverse()) {
    const decoder = DECODERS[coding];
    if (!decoder) {
      body.destroy();
      throw upstreamError(
        ErrorCode.UpstreamError,
        `The ${upstream} service sent a body in an encoding the gateway cannot read (Content-Encoding: ${raw}).`,
        { upstream, status },
      );
    }
    const next = decoder() as unknown as Readable;
    const source = stream;
    // Destroying the outer stream (a cancel, a limit) must reach the socket; an error in any stage reaches the reader.
    source.on('error', (error) => next.destroy(error));
    next.on('close', () => source.destroy());
    source.pipe(next as unknown as NodeJS.WritableStream);
    stream = next;
  }
  return stream;
}

/**
 * Reads a whole buffered body, at most `limit` bytes after decoding: past it the body is destroyed (which aborts the
 * upstream request) and the caller gets UPSTREAM_ERROR naming the upstream and the limit. A `Content-Length` above
 * the limit is refused before reading anything. Bodies of 2xx answers must be valid UTF-8 (JSON is); error bodies
 * are only quoted in messages, so there a bad byte becomes U+FFFD instead. With a `budget`, every chunk is taken
 * from it as it arrives (a chunk that does not fit fails the read with UPSTREAM_ERROR) and given back at the end.
 */
export async function readBoundedText(
  body: Readable,
  headers: Record<string, string | string[] | undefined>,
  options: { upstream: string; status: number; limit: number; budget?: ResponseBufferBudget },
): Promise<string> {
  const { upstream, status, limit, budget } = options;
  const declared = declaredTooLarge(headers, upstream, limit, status);
  if (declared) {
    body.destroy();
    throw declared;
  }
  const decoded = decodedBody(body, headers['content-encoding'], upstream, status);
  const detail = decoded === body ? '' : ` after decompression (Content-Encoding: ${headers['content-encoding']})`;
  let taken = 0;
  if (budget) {
    // Listening before `collect` does: a chunk that does not fit destroys the stream before it is kept.
    decoded.on('data', (chunk: Buffer) => {
      if (budget.take(chunk.length)) taken += chunk.length;
      else decoded.destroy(bufferBudgetSpent(upstream, budget, status));
    });
  }
  try {
    let parts: Buffer[];
    let size: number;
    try {
      ({ chunks: parts, size } = await collect(decoded, limit, () => tooLarge(upstream, limit, { detail, status })));
    } catch (error) {
      // `collect` destroyed the decoder; the socket's body goes too (a cancel or a limit ends the upstream request).
      body.destroy();
      throw error;
    }
    return textOf(parts, size, status, upstream);
  } finally {
    budget?.give(taken);
  }
}

/** The error for a `Content-Length` above the limit, refused before reading anything; undefined when within it. */
export function declaredTooLarge(
  headers: Record<string, string | string[] | undefined>,
  upstream: string,
  limit: number,
  status: number,
): GatewayError | undefined {
  const declared = Number(headers['content-length']);
  return Number.isFinite(declared) && declared > limit
    ? tooLarge(upstream, limit, { detail: ` (Content-Length: ${declared})`, status })
    : undefined;
}

/** Whether a body with this `Content-Encoding` must pass a decoder before its bytes are the text. */
export function isEncoded(contentEncoding: string | string[] | undefined): boolean {
  return contentEncoding !== undefined && contentEncoding !== '' && contentEncoding !== 'identity';
}

/**
 * The text of a whole body's chunks (`parts` is emptied): strict UTF-8 for a 2xx answer (JSON is), else lenient,
 * since an error body is only quoted in messages.
 */
export function textOf(parts: Buffer[], size: number, status: number, upstream: string): string {
  const bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
  parts.length = 0;
  if (status < 200 || status >= 300) return bytes.toString('utf8');
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw upstreamError(
      ErrorCode.UpstreamError,
      `The ${upstream} service answered ${status} with a body that is not valid UTF-8.`,
      { upstream, status, upstreamCode: UpstreamCode.InvalidUtf8 },
    );
  }
}
